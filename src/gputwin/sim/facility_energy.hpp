// A replay's facility energy at each interval's IT load, where the design's facility overhead follows the
// load (design/facility_overhead.hpp): a fixed overhead for every hour of the interval, a proportional one
// per IT kWh, and a square-law one at the interval's mean IT power.
//
//   ReplayResult run = engine.run();
//   energy.summarize(run);                                          // facility = IT x one PUE
//   apply_facility_overhead(*run.energy, overhead, options.interval);  // facility at each interval's load
//
// Without a curve the energy keeps IT x PUE and its source says "one PUE at every load". With one, the total
// facility energy is the intervals' sum and `pue` becomes the run's mean (facility over IT energy), so
// per-job and idle facility energy, taken at that mean, still add up to the total.
#pragma once

#include "gputwin/design/facility_overhead.hpp"
#include "gputwin/sim/energy_metrics.hpp"

namespace gputwin {

// Facility energy, kWh, of one interval of `hours` that drew `it_kwh` of IT energy.
[[nodiscard]] double interval_facility_kwh(const FacilityOverhead& overhead, double it_kwh, double hours);

void apply_facility_overhead(ReplayEnergyMetrics& energy, const FacilityOverhead& overhead,
                             double interval_s);

}  // namespace gputwin
