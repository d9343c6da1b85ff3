// A facility's power as a function of its IT load, as the Cluster model carries it (PowerSummary::overhead):
// a fixed part drawn at any load, a part proportional to the IT power and a square-law part, scaled so that
// the facility draws its full-load PUE at its rated IT power; or, without a split, IT x PUE at every load.
//
//   const FacilityOverhead& overhead = cluster.power.overhead;      // built by summarize_power()
//   Power at_40_percent = overhead.facility_power(overhead.capacity * 0.4);
//   if (!overhead.curve) std::cout << "one PUE at every load (" << overhead.basis << ")";
//
// The split comes from facility_overhead.hpp (data/power/facility-overhead.yaml); this header holds only the
// value, so that the Cluster model can carry it without the loader.
#pragma once

#include <string>

#include "gputwin/core/units.hpp"

namespace gputwin {

struct FacilityOverhead {
  bool curve = false;  // false: facility = IT x full_load_pue at every load
  double full_load_pue = 1.0;
  Power capacity;             // the IT power the facility is rated for (the design's maximum)
  Power fixed;                // overhead drawn at any load
  double proportional = 0.0;  // overhead per watt of IT power
  Power square_law;           // the square-law overhead at full load (it scales with the load squared)
  std::string basis;          // the curve's cooling class and source, or why there is none

  // Facility power (IT plus overhead) at `it` IT power.
  [[nodiscard]] Power facility_power(Power it) const;
  // Facility over IT power at `it` (the full-load PUE without a curve or at zero load).
  [[nodiscard]] double pue_at(Power it) const;
  // The fixed share of the full-load overhead (0 without a curve).
  [[nodiscard]] double fixed_share() const;
};

}  // namespace gputwin
