// Buy or rent as people and programs read it: the text block `plan --rent` prints, the `buy_vs_rent` object
// of `plan --rent --json` (gputwin.plan/1, docs/plan-json.md) and its reader.
//
//   std::cout << buy_vs_rent_text(answer);
//   document["buy_vs_rent"] = buy_vs_rent_json(answer);
//   BuyVsRentSummary back = buy_vs_rent_from_json(root.child("buy_vs_rent"));
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/json_input.hpp"
#include "gputwin/plan/buy_vs_rent.hpp"

namespace gputwin {

// A price tier's name as text and the report print it ("on_demand" -> "on-demand").
[[nodiscard]] std::string rent_tier_label(const std::string& tier);
[[nodiscard]] std::string buy_vs_rent_text(const BuyVsRent& answer);
[[nodiscard]] nlohmann::ordered_json buy_vs_rent_json(const BuyVsRent& answer);

struct BuyVsRentTierSummary {
  std::string tier;
  double per_gpu_hour_usd = 0;
  double break_even_utilization = 0;
  double rent_over_life_usd = 0;
  std::optional<double> workload_rent_usd;
};
struct BuyVsRentSummary {
  std::string accelerator;
  long gpus = 0;
  double tco_usd = 0;
  double own_per_gpu_hour_usd = 0;
  std::optional<double> workload_own_usd;
  std::vector<BuyVsRentTierSummary> tiers;
};

// Throws InputFailure naming the field (JSON pointer) that is missing or of the wrong type.
[[nodiscard]] BuyVsRentSummary buy_vs_rent_from_json(const JsonField& object);

}  // namespace gputwin
