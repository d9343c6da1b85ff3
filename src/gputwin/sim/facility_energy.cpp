#include "gputwin/sim/facility_energy.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gputwin {

double interval_facility_kwh(const FacilityOverhead& overhead, double it_kwh, double hours) {
  if (!(hours > 0)) return 0.0;
  const Power mean_it = kilowatts(it_kwh / hours);
  return in_kilowatts(overhead.facility_power(mean_it)) * hours;
}

double facility_over_it(const EnergyInterval& interval) {
  return interval.it_kwh > 0 ? interval.facility_kwh / interval.it_kwh : 0.0;
}

namespace {

void set_mean_facility_power(ReplayEnergyMetrics& energy, double interval_s) {
  for (EnergyInterval& row : energy.intervals) row.mean_facility_kw = row.facility_kwh * 3600 / interval_s;
}

}  // namespace

void apply_facility_overhead(ReplayEnergyMetrics& energy, const FacilityOverhead& overhead,
                             double interval_s) {
  if (!overhead.curve) {
    for (EnergyInterval& row : energy.intervals) row.facility_kwh = row.it_kwh * energy.pue;
    set_mean_facility_power(energy, interval_s);
    energy.facility_kwh = energy.it_kwh * energy.pue;
    if (!overhead.basis.empty()) energy.source += "; one PUE at every load (" + overhead.basis + ")";
    return;
  }
  // The replay counts IT energy from time 0 to its end; the end follows from its mean IT power.
  const double end_s = energy.mean_it_kw > 0 ? energy.it_kwh * 3600 / energy.mean_it_kw : 0.0;
  double facility_kwh = 0;
  for (std::size_t i = 0; i < energy.intervals.size(); ++i) {
    EnergyInterval& row = energy.intervals[i];
    row.facility_kwh = 0;
    if (!(row.it_kwh > 0)) continue;  // no IT energy counted, no facility energy either
    const double to = i + 1 < energy.intervals.size() ? std::min(end_s, row.start + interval_s) : end_s;
    row.facility_kwh = interval_facility_kwh(overhead, row.it_kwh, std::max(0.0, to - row.start) / 3600);
    facility_kwh += row.facility_kwh;
  }
  set_mean_facility_power(energy, interval_s);
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
