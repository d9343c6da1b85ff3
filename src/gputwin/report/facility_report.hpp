// The facility's power by IT load in `plan`'s text and JSON (design/facility_overhead.hpp):
//
//   FacilityOverhead overhead = design_facility_overhead(spec.facility.cooling, cluster.power);
//   std::string text = with_facility_by_load(plan_text(cluster), cluster.power, overhead);  // a line after
//   IT power document["power"].update(facility_overhead_json(cluster.power, overhead));
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/design/cluster.hpp"
#include "gputwin/design/facility_overhead.hpp"

namespace gputwin {

// One line: facility power at typical and maximum IT load and what shapes it (a sourced split, or one PUE at
// every load and why).
[[nodiscard]] std::string facility_by_load_text(const PowerSummary& power, const FacilityOverhead& overhead);
// `plan_text` with that line after its IT power line.
[[nodiscard]] std::string with_facility_by_load(const std::string& plan_text, const PowerSummary& power,
                                                const FacilityOverhead& overhead);
// Keys for plan JSON's `power`: overhead_curve, overhead_fixed_kw, overhead_proportional,
// overhead_square_law_kw, overhead_basis, pue_typical (docs/plan-json.md).
[[nodiscard]] nlohmann::ordered_json facility_overhead_json(const PowerSummary& power,
                                                            const FacilityOverhead& overhead);

}  // namespace gputwin
