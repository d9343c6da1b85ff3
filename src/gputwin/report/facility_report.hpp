// The facility's power by IT load (PowerSummary::overhead, design/facility_power_curve.hpp) in `plan`'s text
// and JSON, which plan_text and plan_json include:
//
//   std::string line = facility_by_load_text(cluster.power);   // after plan's IT power line
//   document["power"].update(facility_overhead_json(cluster.power));
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

// One line: facility power at typical and maximum IT load and what shapes it (a sourced split, or one PUE at
// every load and why).
[[nodiscard]] std::string facility_by_load_text(const PowerSummary& power);
// Keys for plan JSON's `power`: overhead_curve, overhead_fixed_kw, overhead_proportional,
// overhead_square_law_kw, overhead_basis, pue_typical (docs/plan-json.md).
[[nodiscard]] nlohmann::ordered_json facility_overhead_json(const PowerSummary& power);

}  // namespace gputwin
