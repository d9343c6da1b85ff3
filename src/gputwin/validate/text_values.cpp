#include "gputwin/validate/text_values.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>

namespace gputwin::validate {
namespace {

// Markers nvidia-smi and DCGM print instead of a value (brackets are stripped before comparing).
constexpr std::array<std::string_view, 9> kUnavailableMarkers = {
    "N/A",
    "Not Supported",
    "Not Available",
    "Unknown Error",
    "Requested functionality has been deprecated",
    "Insufficient Permissions",
    "GPU requires reset",
    "Not Found",
    "None"};

std::string quoted(std::string_view text) {
  constexpr std::size_t kLongest = 40;  // binary garbage must not flood the message
  std::string shown(text.substr(0, kLongest));
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return "'" + shown + (text.size() > kLongest ? "...'" : "'");
}

}  // namespace

void fail_at(const FieldAt& at, const std::string& message) {
  throw InputFailure(InputError{at.where, at.field, message});
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split_whitespace(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t position = 0;
  while (position < text.size()) {
    const auto start = text.find_first_not_of(" \t\r\n", position);
    if (start == std::string_view::npos) break;
    auto end = text.find_first_of(" \t\r\n", start);
    if (end == std::string_view::npos) end = text.size();
    words.push_back(text.substr(start, end - start));
    position = end;
  }
  return words;
}

bool is_unavailable(std::string_view text) {
  text = trim(text);
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']')
    text = trim(text.substr(1, text.size() - 2));
  if (text.empty()) return true;
  for (std::string_view marker : kUnavailableMarkers)
    if (text == marker) return true;
  return false;
}

std::optional<double> parse_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> number_with_unit(std::string_view text, std::string_view unit, const FieldAt& at) {
  text = trim(text);
  if (is_unavailable(text)) return std::nullopt;
  std::string_view number = text;
  if (!unit.empty() && text.size() >= unit.size() && text.substr(text.size() - unit.size()) == unit)
    number = trim(text.substr(0, text.size() - unit.size()));
  if (auto value = parse_double(number)) return value;
  const std::string expected = unit.empty() ? "a number" : "a number in " + std::string(unit);
  fail_at(at, "expected " + expected + ", got " + quoted(text));
}

std::optional<std::int64_t> count_value(std::string_view text, const FieldAt& at) {
  text = trim(text);
  if (is_unavailable(text)) return std::nullopt;
  if (auto value = parse_integer(text); value && *value >= 0) return value;
  fail_at(at, "expected a count (a whole number >= 0), got " + quoted(text));
}

std::optional<Power> power_value(std::string_view text, const FieldAt& at) {
  if (auto value = number_with_unit(text, "W", at)) return watts(*value);
  return std::nullopt;
}

std::optional<ByteSize> mebibytes_value(std::string_view text, const FieldAt& at) {
  constexpr double kBytesPerMebibyte = 1048576.0;
  if (auto value = number_with_unit(text, "MiB", at)) return bytes(*value * kBytesPerMebibyte);
  return std::nullopt;
}

std::optional<double> megahertz_value(std::string_view text, const FieldAt& at) {
  return number_with_unit(text, "MHz", at);
}

std::optional<double> celsius_value(std::string_view text, const FieldAt& at) {
  return number_with_unit(text, "C", at);
}

std::optional<int> link_width_value(std::string_view text, const FieldAt& at) {
  text = trim(text);
  if (is_unavailable(text)) return std::nullopt;
  if (!text.empty() && (text.back() == 'x' || text.back() == 'X')) text.remove_suffix(1);
  if (auto lanes = parse_integer(text); lanes && *lanes > 0 && *lanes <= 64) return static_cast<int>(*lanes);
  fail_at(at, "expected a link width such as '16x', got " + quoted(text));
}

std::optional<bool> switch_value(std::string_view text, const FieldAt& at) {
  text = trim(text);
  if (is_unavailable(text)) return std::nullopt;
  for (std::string_view on : {"Enabled", "Yes", "On", "Active", "True", "true"})
    if (text == on) return true;
  for (std::string_view off : {"Disabled", "No", "Off", "Not Active", "False", "false"})
    if (text == off) return false;
  fail_at(at, "expected Enabled/Disabled, Yes/No, On/Off or Active/Not Active, got " + quoted(text));
}

std::optional<std::string> text_value(std::string_view text) {
  text = trim(text);
  if (is_unavailable(text)) return std::nullopt;
  return std::string(text);
}

}  // namespace gputwin::validate
