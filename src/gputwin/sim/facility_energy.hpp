// A replay's facility energy at each interval's IT load, where the design's facility overhead follows the
// load (design/facility_overhead.hpp): a fixed overhead for every hour of the interval, a proportional one
// per IT kWh, and a square-law one at the interval's mean IT power. ReplayEnergy::summarize applies it with
// the profile's overhead (ReplayPowerProfile::facility):
//
//   apply_facility_overhead(energy, profile.facility, interval_s);   // each interval's facility_kwh, the
//   total double share = facility_over_it(energy.intervals[i]);            // what a job's IT kWh in it costs
//
// Without a curve every interval is IT x the design's PUE (energy.pue), and the source says "one PUE at every
// load" when the overhead says why. With one, the total is the intervals' sum and `pue` becomes the run's
// mean (facility over IT energy); jobs and idle GPUs are charged each interval's own ratio, so they still add
// up to the total.
#pragma once

#include "gputwin/design/facility_power_curve.hpp"
#include "gputwin/sim/energy_metrics.hpp"

namespace gputwin {

// Facility energy, kWh, of one interval of `hours` that drew `it_kwh` of IT energy.
[[nodiscard]] double interval_facility_kwh(const FacilityOverhead& overhead, double it_kwh, double hours);

// Fills every interval's facility_kwh and mean_facility_kw (intervals of `interval_s`), the total facility
// energy and PUE, and the source line.
void apply_facility_overhead(ReplayEnergyMetrics& energy, const FacilityOverhead& overhead,
                             double interval_s);

// The interval's facility over IT energy (0 when it drew none).
[[nodiscard]] double facility_over_it(const EnergyInterval& interval);

}  // namespace gputwin
