// Transceiver and active-cable power (PowerSummary::modules) in `plan`'s text and JSON: what went into IT
// power and, for every host part, why (its published figure counts its modules, leaves them out, or does not
// say).
//
//   text += module_power_text(cluster.power);              // after plan's IT power line; empty without modules
//   document["power"].update(module_power_json(cluster.power));
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

// A heading line with the totals added, then one line per host and module part; empty without modules.
[[nodiscard]] std::string module_power_text(const PowerSummary& power);
// Keys for plan JSON's `power`: modules_max_kw, modules_typical_kw, modules (docs/plan-json.md).
[[nodiscard]] nlohmann::ordered_json module_power_json(const PowerSummary& power);

}  // namespace gputwin
