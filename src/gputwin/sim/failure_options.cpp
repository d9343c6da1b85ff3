#include "gputwin/sim/failure_options.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gputwin {
namespace {

std::optional<double> number_of(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Seconds in one of the time units; empty when `unit` is not one.
std::optional<double> seconds_per(std::string_view unit) {
  if (unit == "s") return 1.0;
  if (unit == "min") return 60.0;
  if (unit == "h" || unit == "hour") return 3600.0;
  if (unit == "d" || unit == "day") return 86400.0;
  return std::nullopt;
}

std::invalid_argument bad(std::string_view option, std::string_view text, const std::string& why) {
  return std::invalid_argument(std::string(option) + ": '" + std::string(text) + "': " + why);
}

}  // namespace

std::optional<double> seconds_per_rate_unit(std::string_view unit) {
  constexpr double kSecondsPerMonth = 365.25 * 24 / 12 * 3600;  // the mean Gregorian month, 730.5 h
  if (unit == "month") return kSecondsPerMonth;
  return seconds_per(unit);
}

double parse_duration_s(std::string_view text, std::string_view option) {
  std::size_t split = text.size();
  while (split > 0 && std::isalpha(static_cast<unsigned char>(text[split - 1])) != 0) --split;
  const auto unit = seconds_per(text.substr(split));
  if (!unit) throw bad(option, text, "give a duration with its unit: s, min, h or d (e.g. 48h)");
  const auto value = number_of(text.substr(0, split));
  if (!value || *value < 0) throw bad(option, text, "expected a number >= 0 before the unit");
  return *value * *unit;
}

double parse_failure_rate_per_hour(std::string_view text, std::string_view option) {
  std::vector<std::string_view> parts;
  for (std::size_t from = 0;;) {
    const auto slash = text.find('/', from);
    parts.push_back(
        text.substr(from, slash == std::string_view::npos ? std::string_view::npos : slash - from));
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
  const std::string form =
      "give failures per unit and time, e.g. 6.5/1000/day (per 1000 nodes a day), 0.01/h or 0.2/month";
  if (parts.size() < 2 || parts.size() > 3) throw bad(option, text, "a rate needs its time unit: " + form);
  // A month is a rate's unit (the mean calendar month), not a duration's.
  const auto unit = seconds_per_rate_unit(parts.back());
  if (!unit) throw bad(option, text, "unknown time unit '" + std::string(parts.back()) + "': " + form);
  const auto count = number_of(parts.front());
  const auto per = parts.size() == 3 ? number_of(parts[1]) : std::optional<double>(1.0);
  if (!count || *count < 0 || !per || *per <= 0) throw bad(option, text, form);
  return *count / *per * 3600.0 / *unit;
}

}  // namespace gputwin
