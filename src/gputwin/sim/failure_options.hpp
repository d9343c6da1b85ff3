// The failure options' text, parsed at the edge with their units required: durations ("3h", "90d", "30min",
// "45s") and failure rates ("6.5/1000/day": failures per 1,000 units per day; "0.01/h": per unit per hour;
// "/month": 730.5 h).
//
//   double repair_s = parse_duration_s("48h", "--repair");                       // 172800
//   double per_unit_hour = parse_failure_rate_per_hour("6.5/1000/day", "--node-failure-rate");
#pragma once

#include <optional>
#include <string_view>

namespace gputwin {

// Throws std::invalid_argument starting with `option` when the number or its unit (s, min, h, d) is missing.
[[nodiscard]] double parse_duration_s(std::string_view text, std::string_view option);
// Seconds in the time unit of a rate ("s", "min", "h"/"hour", "d"/"day", and "month": the mean calendar
// month, 365.25 x 24 / 12 = 730.5 h); empty when `unit` is none of them. The one unit table of durations and
// rates.
[[nodiscard]] std::optional<double> seconds_per_rate_unit(std::string_view unit);
// Failures per unit per hour; throws std::invalid_argument starting with `option` when the time unit is
// missing.
[[nodiscard]] double parse_failure_rate_per_hour(std::string_view text, std::string_view option);

}  // namespace gputwin
