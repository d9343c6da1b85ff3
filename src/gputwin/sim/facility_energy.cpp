#include "gputwin/sim/facility_energy.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gputwin {

double interval_facility_kwh(const FacilityOverhead& overhead, double it_kwh, double hours) {
  if (!(hours > 0)) return 0.0;
  const Power mean_it = kilowatts(it_kwh / hours);
  return in_kilowatts(overhead.facility_power(mean_it)) * hours;
}

void apply_facility_overhead(ReplayEnergyMetrics& energy, const FacilityOverhead& overhead,
                             double interval_s) {
  if (!overhead.curve) {
    energy.source += "; one PUE at every load (" + overhead.basis + ")";
    return;
  }
  // The replay counts IT energy from time 0 to its end; the end follows from its mean IT power.
  const double end_s = energy.mean_it_kw > 0 ? energy.it_kwh * 3600 / energy.mean_it_kw : 0.0;
  double facility_kwh = 0;
  for (std::size_t i = 0; i < energy.intervals.size(); ++i) {
    const EnergyInterval& row = energy.intervals[i];
    if (!(row.it_kwh > 0)) continue;  // no IT energy counted, no facility energy either
    const double to = i + 1 < energy.intervals.size() ? std::min(end_s, row.start + interval_s) : end_s;
    facility_kwh += interval_facility_kwh(overhead, row.it_kwh, std::max(0.0, to - row.start) / 3600);
  }
  energy.facility_kwh = facility_kwh;
  energy.pue = energy.it_kwh > 0 ? facility_kwh / energy.it_kwh : overhead.full_load_pue;
  energy.source += fmt::format(
      "; facility overhead by each interval's IT load ({:.0f} kW fixed + {:.3g} x IT, PUE {:.3g} at the "
      "design's "
      "full {:.0f} kW: {}); PUE below is the run's mean",
      in_kilowatts(overhead.fixed), overhead.proportional, overhead.full_load_pue,
      in_kilowatts(overhead.capacity), overhead.basis);
}

}  // namespace gputwin
