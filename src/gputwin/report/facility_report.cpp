#include "gputwin/report/facility_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gputwin {

std::string facility_by_load_text(const PowerSummary& power) {
  const FacilityOverhead& overhead = power.overhead;
  if (!overhead.curve) {
    return fmt::format("  Facility by IT load: one PUE at every load ({}): {} at typical, {} at maximum\n",
                       overhead.basis, format_power(power.facility_typical),
                       format_power(power.facility_max));
  }
  return fmt::format(
      "  Facility by IT load: {} at typical (PUE {}), {} at maximum (PUE {}); overhead {} fixed + {} x IT "
      "({}, "
      "scaled to the PUE at full load)\n",
      format_power(power.facility_typical), format_number(overhead.pue_at(power.it_typical), 3),
      format_power(power.facility_max), format_number(overhead.pue_at(power.it_max), 3),
      format_power(overhead.fixed), format_number(overhead.proportional, 3), overhead.basis);
}

nlohmann::ordered_json facility_overhead_json(const PowerSummary& power) {
  const FacilityOverhead& overhead = power.overhead;
  const auto kw = [](Power p) { return std::round(in_kilowatts(p) * 1000) / 1000; };
  const auto ratio = [](double value) { return std::round(value * 1e5) / 1e5; };
  return {{"overhead_curve", overhead.curve},
          {"overhead_fixed_kw", kw(overhead.fixed)},
          {"overhead_proportional", ratio(overhead.proportional)},
          {"overhead_square_law_kw", kw(overhead.square_law)},
          {"overhead_basis", overhead.basis},
          {"pue_typical", ratio(overhead.pue_at(power.it_typical))}};
}

}  // namespace gputwin
