// What simulate replay needs to count energy and hold a power budget: the designed cluster's power profile
// (the perf power model's figures for its one node type, as plain numbers for sim) and the --power-budget
// option read with its unit.
//
//   std::string why_not;
//   std::optional<ReplayPowerProfile> profile = replay_power_profile(cluster, catalog, pool_nodes, why_not);
//   double budget_w = parse_power_budget("2.5MW");   // 2.5e6; "2500" (no unit) throws UsageFailure
#pragma once

#include <optional>
#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/sim/power_policy.hpp"

namespace gputwin::cli {

// The profile of `cluster`'s compute nodes (`pool_nodes` of them in the replay's whole-GPU pool); empty, with
// `why_not` saying why, when energy cannot be modelled (several node types, a GPU the catalog lacks, the
// power model unreadable).
[[nodiscard]] std::optional<ReplayPowerProfile> replay_power_profile(const Cluster& cluster,
                                                                     const Catalog& catalog, int pool_nodes,
                                                                     std::string& why_not);

// "2.5MW", "2500 kW", "2500000W" -> watts (IT). A number without a unit, another dimension or a value <= 0
// throws UsageFailure naming --power-budget.
[[nodiscard]] double parse_power_budget(const std::string& text);

}  // namespace gputwin::cli
