#include "gputwin/core/civil_time.hpp"

#include <array>

namespace gputwin {
namespace {

constexpr std::int64_t kSecondsPerDay = 86400;

// Days from 1970-01-01 to year-month-day in the proleptic Gregorian calendar (Howard Hinnant's
// days_from_civil: counting years from March puts the leap day last, so month lengths follow a fixed
// 153-days-per-5-months pattern).
constexpr std::int64_t days_from_civil(std::int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const std::int64_t year_of_era = year - era * 400;
  const int month_from_march = month > 2 ? month - 3 : month + 9;
  const std::int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
  const std::int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468: days from 0000-03-01 to 1970-01-01
}
static_assert(days_from_civil(1970, 1, 1) == 0);
static_assert(days_from_civil(2000, 3, 1) == 11017);
static_assert(days_from_civil(1969, 12, 31) == -1);

constexpr bool is_leap_year(std::int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

constexpr int days_in_month(std::int64_t year, int month) {
  constexpr std::array<int, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : kDays[month - 1];
}

// The value of text[offset, offset + width) when it is all digits.
std::optional<int> digits_at(std::string_view text, std::size_t offset, std::size_t width) {
  int value = 0;
  for (const char c : text.substr(offset, width)) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

}  // namespace

std::optional<std::int64_t> parse_timestamp(std::string_view text, char separator) {
  constexpr std::string_view kShape = "dddd-dd-dd_dd:dd:dd";
  if (text.size() != kShape.size()) return std::nullopt;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const char expected = kShape[i] == '_' ? separator : kShape[i];
    if (kShape[i] != 'd' && text[i] != expected) return std::nullopt;
  }
  const auto year = digits_at(text, 0, 4), month = digits_at(text, 5, 2), day = digits_at(text, 8, 2);
  const auto hour = digits_at(text, 11, 2), minute = digits_at(text, 14, 2), second = digits_at(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month)) return std::nullopt;
  if (*hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  const std::int64_t seconds_of_day = std::int64_t{*hour} * 3600 + std::int64_t{*minute} * 60 + *second;
  return days_from_civil(*year, *month, *day) * kSecondsPerDay + seconds_of_day;
}

std::optional<int> parse_utc_offset(std::string_view text) {
  if (text == "UTC" || text == "Z") return 0;
  if (text.rfind("UTC", 0) == 0) text.remove_prefix(3);
  // [+-]HH:MM exactly.
  if (text.size() != 6 || (text[0] != '+' && text[0] != '-') || text[3] != ':') return std::nullopt;
  const auto hours = digits_at(text, 1, 2);
  const auto minutes = digits_at(text, 4, 2);
  if (!hours || !minutes || *minutes >= 60 || *hours * 60 + *minutes > 14 * 60) return std::nullopt;
  const int seconds = (*hours * 60 + *minutes) * 60;
  return text[0] == '-' ? -seconds : seconds;
}

}  // namespace gputwin
