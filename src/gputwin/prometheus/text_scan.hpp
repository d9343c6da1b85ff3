// Small text helpers the Prometheus readers share: numbers parsed whole with no locale, and sample values as
// Prometheus writes them ("NaN", "+Inf", "-Inf", or a float).
//
//   parse_sample_value("+Inf");    // infinity
//   parse_sample_value("16.3W");   // nullopt
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gputwin::prometheus {

[[nodiscard]] std::string_view trim(std::string_view text);
[[nodiscard]] std::vector<std::string_view> split_whitespace(std::string_view text);
[[nodiscard]] std::optional<double> parse_double(std::string_view text);
[[nodiscard]] std::optional<std::int64_t> parse_integer(std::string_view text);
// A float, NaN, +Inf, Inf or -Inf (Prometheus's own spellings of the special values).
[[nodiscard]] std::optional<double> parse_sample_value(std::string_view text);

}  // namespace gputwin::prometheus
