// Renders a designed Cluster: the terminal summary, the JSON document (schema in docs/plan-json.md) and the
// bill of materials as CSV.
//
//   std::cout << plan_text(cluster);             // prominent warnings (boundary-step) come first
//   std::cout << cost_summary(cluster.costs);    // marked INCOMPLETE when parts have no price
//   std::cout << plan_json(cluster).dump(2);
//   std::ofstream("bom.csv") << bom_csv(cluster);
//   Result<PlanSummary> plan = read_plan_json(text, "plan.json");   // a plan --json document read back
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/report/buy_vs_rent_report.hpp"

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

// What a gputwin.plan/1 document holds for a program that compares or prices designs: the stable contract of
// docs/plan-json.md (totals, switches and links per fabric, BOM parts and counts) plus the costs, the
// warnings and, for a spec sized for a workload, the answer and the candidates' comparison (not the counts
// tried). Racks, cables, transceivers and ports are not read.
struct PlanFabricSummary {
  std::string role;  // "compute", "storage", "inband", "oob"
  std::string topology;
  std::string switch_part;
  int tiers = 0;
  long leaf_switches = 0;
  long spine_switches = 0;
  long core_switches = 0;
  long node_leaf_links = 0;
  long leaf_spine_links = 0;
  long spine_core_links = 0;
};
struct PlanBomLine {
  std::string part;
  std::string category;
  long count = 0;
  std::optional<double> unit_price_usd;  // empty when the part has no price
};
struct PlanWarningSummary {
  std::string code;
  std::string message;
  bool prominent = false;
};
// `workload_fit` of a spec sized for its workload: the answer and, when the spec chose among systems
// (`nodes.choose`), every candidate's row of the comparison.
struct PlanCandidateSummary {
  std::string system;
  std::string accelerator;
  bool chosen = false;
  bool sized = false;  // false: the candidate has no answer, and `lost` says why
  long gpus = 0;
  long racks = 0;
  double days = 0;
  double mfu = 0;
  double it_power_kw = 0;
  std::optional<double> tco_usd;  // empty when the design is not priced completely
  std::string lost;               // empty for the chosen one
};
// `workload_fit.power_budget` of a spec planned within a facility power budget: each platform and cap
// compared (the fields a program compares designs by) and the chosen cap.
struct PlanBudgetCandidate {
  std::string system;
  double cap_w = 0;
  bool fits = false;
  bool chosen = false;
  long nodes = 0;  // 0 when not even one node fits the budget
  double facility_kw = 0;
  double tokens_per_second = 0;  // when it fits
  std::string lost;              // empty for the chosen one
};
struct PlanBudgetSummary {
  double budget_kw = 0;
  std::optional<double> cap_w;  // the chosen design's cap when below the default limit
  bool meets_days = true;
  std::vector<PlanBudgetCandidate> candidates;
};
struct PlanWorkloadSummary {
  std::string model;
  std::string system;
  long gpus = 0;
  long nodes = 0;
  std::optional<long> racks;  // set when the count is racks of a rack-scale system
  double days = 0;
  double days_allowed = 0;  // 0 when none was given (a power-budget plan)
  double mfu = 0;
  std::string choice_rule;  // empty without candidates
  std::vector<PlanCandidateSummary> candidates;
  std::optional<PlanBudgetSummary> power_budget;  // when planned within facility.power_budget
};
// One node type of the design and how many devices are of it.
struct PlanNodeTypeSummary {
  std::string system;
  std::string role;  // "compute" or "server"
  long count = 0;
  long gpus_per_node = 0;
  std::string accelerator;  // empty for CPU-only servers
};
// `storage`: the storage appliances sized for the spec's `storage:` section (docs/plan-json.md).
struct PlanStorageRequirement {
  std::string need;          // checkpoint_write, dataset_read, capacity, tier_read, tier_write
  double amount = 0;         // GB/s, or TB for capacity
  double per_appliance = 0;  // same unit
  long appliances = 0;
};
struct PlanStorageSummary {
  std::string appliance;
  long appliances = 0;
  double read_gb_per_s = 0;
  std::optional<double> write_gb_per_s;  // empty when the appliance publishes no write rate
  std::optional<double> capacity_tb;     // empty when it publishes no usable capacity
  std::string binding;                   // the need that set the count
  std::vector<PlanStorageRequirement> requirements;
};
struct PlanSummary {
  std::string name;
  std::string node_system;                      // the first compute node type (documents before node_types)
  std::vector<PlanNodeTypeSummary> node_types;  // empty when read from a document that has none
  long gpus = 0;
  long nodes = 0;
  long racks = 0;
  double it_power_kw_max = 0;
  double it_power_kw_typical = 0;
  double facility_power_kw = 0;
  std::vector<PlanFabricSummary> fabrics;  // by role name (a JSON object has no order once read)
  std::vector<PlanBomLine> bom;
  bool priced = false;
  bool costs_complete = false;
  double capex_usd = 0;
  double tco_usd = 0;
  std::optional<double> cost_per_gpu_hour_usd;  // empty when not priced or incomplete
  std::vector<std::string> unpriced_parts;
  std::vector<PlanWarningSummary> warnings;
  std::optional<PlanWorkloadSummary> workload_fit;  // when the spec was sized for a workload
  std::optional<PlanStorageSummary> storage;        // when the spec has a `storage:` section
  std::optional<BuyVsRentSummary> buy_vs_rent;      // `plan --rent PRICES`
};

// Reads a gputwin.plan/1 document back; throws InputFailure naming the field (JSON pointer) when the schema
// is another or a field is missing or of the wrong type.
[[nodiscard]] PlanSummary plan_summary_from_json(const JsonField& root);
// The same from a document's text; `source` names it in errors (malformed JSON: line and column).
[[nodiscard]] Result<PlanSummary> read_plan_json(std::string_view text, const std::string& source);

}  // namespace gputwin
