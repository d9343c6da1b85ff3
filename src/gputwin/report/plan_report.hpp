// Renders a designed Cluster: the terminal summary, the JSON document (schema in docs/plan-json.md) and the
// bill of materials as CSV.
//
//   std::cout << plan_text(cluster);
//   std::cout << plan_json(cluster).dump(2);
//   std::ofstream("bom.csv") << bom_csv(cluster);
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

inline constexpr const char* kPlanSchema = "gputwin.plan/1";

[[nodiscard]] nlohmann::ordered_json plan_json(const Cluster& cluster);
[[nodiscard]] std::string plan_text(const Cluster& cluster);
[[nodiscard]] std::string bom_csv(const Cluster& cluster);

}  // namespace gputwin
