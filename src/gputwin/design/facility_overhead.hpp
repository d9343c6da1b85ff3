// Facility power as a function of IT load: a fixed part drawn at any load, a part proportional to the IT
// power and a square-law part, scaled so that the facility draws its full-load PUE at its rated IT power.
//
//   auto curves = load_overhead_curves(bundled_data_dir() + "/power/facility-overhead.yaml");
//   FacilityOverhead overhead = facility_overhead(curves.value().find("air-standard"), 1.58,
//   kilowatts(1000)); Power at_40_percent = overhead.facility_power(kilowatts(400));
//   power.overhead = design_facility_overhead(spec.facility.cooling, power);  // in summarize_power()
//
// The split is a cooling class's (data/power/facility-overhead.yaml, Schneider Electric White Paper 113's
// Table 2 for the air-cooled room); its scale the site's PUE, read as the PUE at full load. Without a split
// (another cooling class, or heat sent to liquid) the facility is IT power x PUE at every load, and
// `why_flat` says why. docs/perf-power.md, "PUE by IT load".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/design/facility_power_curve.hpp"

namespace gputwin {

// One device of a facility's power and cooling path and its losses, each a fraction of the facility's
// full-load rating.
struct OverheadComponent {
  std::string name;
  double no_load = 0.0;       // drawn at any load
  double proportional = 0.0;  // x the load fraction
  double square_law = 0.0;    // x the load fraction squared
};

// A cooling class's overhead split with its source.
struct OverheadCurve {
  std::string cooling;  // catalog cooling id
  std::vector<OverheadComponent> components;
  std::string source;
  std::string confidence;

  [[nodiscard]] double no_load() const;
  [[nodiscard]] double proportional() const;
  [[nodiscard]] double square_law() const;
  [[nodiscard]] double full_load() const { return no_load() + proportional() + square_law(); }
};

struct OverheadCurves {
  std::map<std::string, OverheadCurve> by_cooling;
  [[nodiscard]] const OverheadCurve* find(const std::string& cooling) const;
};

[[nodiscard]] Result<OverheadCurves> load_overhead_curves(const std::string& path);
// The bundled file's curves, loaded once.
[[nodiscard]] const Result<OverheadCurves>& bundled_overhead_curves();

// The overhead at `full_load_pue`, rated for `capacity` of IT power, shaped by `curve` when not null.
[[nodiscard]] FacilityOverhead facility_overhead(const OverheadCurve* curve, double full_load_pue,
                                                 Power capacity);

// A design's: its cooling class's (the spec's facility.cooling) curve at its PUE, rated for its IT power at
// maximum load; one PUE at every load when its racks send heat to liquid, the cooling class has no curve, or
// the bundled curves do not load (basis then names the error).
[[nodiscard]] FacilityOverhead design_facility_overhead(const std::string& cooling,
                                                        const PowerSummary& power);

}  // namespace gputwin
