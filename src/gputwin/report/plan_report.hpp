// Renders a designed Cluster: the terminal summary, the JSON document (schema in docs/plan-json.md) and the
// bill of materials as CSV.
//
//   std::cout << plan_text(cluster);             // prominent warnings (boundary-step) come first
//   std::cout << cost_summary(cluster.costs);    // marked INCOMPLETE when parts have no price
//   std::cout << plan_json(cluster).dump(2);
//   std::ofstream("bom.csv") << bom_csv(cluster);
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

inline constexpr const char* kPlanSchema = "gputwin.plan/1";

[[nodiscard]] nlohmann::ordered_json plan_json(const Cluster& cluster);
// The cost headline, money as money: "capex $10.7M; TCO over 5 years $18.4M; $0.383 per GPU-hour", or, when
// parts have no price, the partial capex marked INCOMPLETE with the parts it leaves out and no per-hour cost.
[[nodiscard]] std::string cost_summary(const Costs& costs);
// The parts without a price, comma-separated ("dgx-b200, mma4z00-ns").
[[nodiscard]] std::string missing_prices(const Costs& costs);
[[nodiscard]] std::string plan_text(const Cluster& cluster);
[[nodiscard]] std::string bom_csv(const Cluster& cluster);

}  // namespace gputwin
