#include "gputwin/prometheus/time_params.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "gputwin/core/civil_time.hpp"
#include "gputwin/prometheus/text_scan.hpp"

namespace gputwin::prometheus {
namespace {

constexpr double kSecondsPerDay = 86400;

// "Z", "+01:00", "-05:30" -> the offset from UTC in seconds.
std::optional<double> zone_offset(std::string_view zone) {
  if (zone == "Z" || zone == "z") return 0.0;
  if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':') return std::nullopt;
  const auto hours = parse_integer(zone.substr(1, 2));
  const auto minutes = parse_integer(zone.substr(4, 2));
  if (!hours || !minutes || *hours > 23 || *minutes > 59) return std::nullopt;
  const double offset = static_cast<double>(*hours * 3600 + *minutes * 60);
  return zone[0] == '-' ? -offset : offset;
}

std::optional<double> parse_rfc3339(std::string_view text) {
  constexpr std::size_t kDateTime = 19;  // "YYYY-MM-DDTHH:MM:SS"
  if (text.size() < kDateTime + 1 || (text[10] != 'T' && text[10] != 't')) return std::nullopt;
  std::string date_time(text.substr(0, kDateTime));
  date_time[10] = 'T';
  const auto seconds = parse_timestamp(date_time, 'T');
  if (!seconds) return std::nullopt;
  std::string_view rest = text.substr(kDateTime);
  double fraction = 0;
  if (rest.front() == '.') {
    const auto digits = rest.find_first_not_of("0123456789", 1);
    if (digits == 1 || digits == std::string_view::npos) return std::nullopt;
    fraction = parse_double("0" + std::string(rest.substr(0, digits))).value_or(0);
    rest.remove_prefix(digits);
  }
  const auto offset = zone_offset(rest);
  if (!offset) return std::nullopt;
  return static_cast<double>(*seconds) + fraction - *offset;
}

}  // namespace

std::optional<double> parse_time(std::string_view text) {
  text = trim(text);
  if (text.find('-', 1) != std::string_view::npos || text.find('T') != std::string_view::npos)
    return parse_rfc3339(text);
  const auto seconds = parse_double(text);
  if (!seconds || *seconds < 0) return std::nullopt;
  return *seconds;
}

std::optional<double> parse_duration(std::string_view text) {
  struct Unit {
    std::string_view name;
    double seconds;
  };
  // Largest first; "ms" before "m" so that the longer suffix is tried first at each position.
  static constexpr std::array<Unit, 7> kUnits = {{{"y", 365 * kSecondsPerDay},
                                                  {"w", 7 * kSecondsPerDay},
                                                  {"d", kSecondsPerDay},
                                                  {"h", 3600},
                                                  {"m", 60},
                                                  {"s", 1},
                                                  {"ms", 0.001}}};
  text = trim(text);
  if (text.empty()) return std::nullopt;
  double total = 0;
  std::size_t next_unit = 0;
  while (!text.empty()) {
    const auto digits = text.find_first_not_of("0123456789");
    if (digits == 0 || digits == std::string_view::npos) return std::nullopt;
    const auto count = parse_integer(text.substr(0, digits));
    text.remove_prefix(digits);
    const std::size_t unit_length = text.starts_with("ms") ? 2 : 1;
    const std::string_view unit = text.substr(0, unit_length);
    std::size_t index = next_unit;
    while (index < kUnits.size() && kUnits[index].name != unit) ++index;
    if (!count || index == kUnits.size()) return std::nullopt;
    total += static_cast<double>(*count) * kUnits[index].seconds;
    next_unit = index + 1;
    text.remove_prefix(unit_length);
  }
  if (total <= 0) return std::nullopt;
  return total;
}

std::string rfc3339(double seconds) {
  const std::int64_t total_ms = std::llround(seconds * 1000);
  std::int64_t whole = total_ms / 1000;
  std::int64_t milliseconds = total_ms % 1000;
  if (milliseconds < 0) {
    milliseconds += 1000;
    --whole;
  }
  // Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil, inverted).
  std::int64_t days = whole / 86400;
  std::int64_t rest = whole % 86400;
  if (rest < 0) {
    rest += 86400;
    --days;
  }
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t day_of_era = days - era * 146097;
  const std::int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const std::int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const std::int64_t month_index = (5 * day_of_year + 2) / 153;
  const std::int64_t day = day_of_year - (153 * month_index + 2) / 5 + 1;
  const std::int64_t month = month_index < 10 ? month_index + 3 : month_index - 9;
  const std::int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  const std::string base = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", year, month, day, rest / 3600,
                                       (rest / 60) % 60, rest % 60);
  return milliseconds == 0 ? base + "Z" : fmt::format("{}.{:03}Z", base, milliseconds);
}

std::string duration_text(double seconds) {
  const auto milliseconds = std::llround(seconds * 1000);
  if (milliseconds % 1000 == 0) return fmt::format("{}s", milliseconds / 1000);
  return fmt::format("{}ms", milliseconds);
}

}  // namespace gputwin::prometheus
