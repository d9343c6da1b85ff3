// Values as tools print them: "350.00 W", "81559 MiB", "16x", "Enabled", "N/A", "[Not Supported]".
//
//   FieldAt at{{"node.xml", 120, 0}, "power_readings.power_draw"};
//   std::optional<Power> draw = power_value("350.00 W", at);   // watts(350); "N/A" gives an empty optional
//   power_value("lots", at);                                     // throws InputFailure: node.xml:120: ...
//
// A value the tool marks as unavailable is an empty optional, never 0; text that is neither a value nor a
// known "unavailable" marker is a located error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"

namespace gputwin::validate {

// Where a value was read: the file and line, and the field's name for the message.
struct FieldAt {
  SourceLocation where;
  std::string field;
};

[[noreturn]] void fail_at(const FieldAt& at, const std::string& message);

// "N/A", "[N/A]", "[Not Supported]", "Unknown Error", "[Requested functionality has been deprecated]", "".
[[nodiscard]] bool is_unavailable(std::string_view text);

[[nodiscard]] std::string_view trim(std::string_view text);
[[nodiscard]] std::vector<std::string_view> split_whitespace(std::string_view text);

// A decimal number followed by `unit` (or by nothing when the unit was in a header). Throws when malformed.
[[nodiscard]] std::optional<double> number_with_unit(std::string_view text, std::string_view unit,
                                                     const FieldAt& at);
[[nodiscard]] std::optional<std::int64_t> count_value(std::string_view text, const FieldAt& at);
[[nodiscard]] std::optional<Power> power_value(std::string_view text, const FieldAt& at);
[[nodiscard]] std::optional<ByteSize> mebibytes_value(std::string_view text, const FieldAt& at);
[[nodiscard]] std::optional<double> megahertz_value(std::string_view text, const FieldAt& at);
[[nodiscard]] std::optional<double> celsius_value(std::string_view text, const FieldAt& at);
// "16x" or "16": lanes.
[[nodiscard]] std::optional<int> link_width_value(std::string_view text, const FieldAt& at);
// Enabled/Disabled, Yes/No, On/Off, Active/Not Active, True/False.
[[nodiscard]] std::optional<bool> switch_value(std::string_view text, const FieldAt& at);
// The text itself, or empty when the tool marks it unavailable.
[[nodiscard]] std::optional<std::string> text_value(std::string_view text);

// Parses a whole string as a number; no exceptions, no locale.
[[nodiscard]] std::optional<double> parse_double(std::string_view text);
[[nodiscard]] std::optional<std::int64_t> parse_integer(std::string_view text);

constexpr ByteSize bytes(double value) {
  return ByteSize::from_base(value);
}
// nccl-tests reports GB/s with 1 GB = 1e9 bytes.
constexpr DataRate gigabytes_per_second(double value) {
  return DataRate::from_base(value * 8e9);
}

}  // namespace gputwin::validate
