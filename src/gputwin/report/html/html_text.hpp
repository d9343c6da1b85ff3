// Text helpers shared by the HTML report's parts: escaping for element content and attribute values, and
// numbers printed the same way on every machine.
//
//   html += "<td>" + html_escape(part.description) + "</td>";
//   svg += fmt::format("<rect x=\"{}\"", svg_number(x));
#pragma once

#include <string>
#include <string_view>

namespace gputwin {

[[nodiscard]] std::string html_escape(std::string_view text);
// Up to 2 decimals, trailing zeros dropped: SVG coordinates stay short and byte-identical across runs.
[[nodiscard]] std::string svg_number(double value);

}  // namespace gputwin
