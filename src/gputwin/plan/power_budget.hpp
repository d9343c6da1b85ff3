// "The most training in 20 MW": a spec that gives facility.power_budget instead of a node count. For every
// platform the spec allows (nodes.system, or each of nodes.choose) and every GPU power cap its power model
// supports, the most nodes (or racks) whose whole design fits the budget, timed with the fastest split on the
// GPU as the cap leaves it; the design with the highest training throughput wins.
//
//   BudgetFit fit = fit_power_budget(spec, catalog, inputs);   // throws InputFailure located at the field
//   fit.plan.candidates            // every platform and cap compared, and why each lost
//   Catalog capped = capped_catalog(catalog, *inputs.power, fit.spec, *fit.plan.cap);   // to design it
//
// The budget is facility power: the design's IT power at maximum load (every GPU at its cap, every other
// part at its maximum) times its blended PUE (design/power_and_cost: each rack's heat at the PUE of what
// removes it), which is what a site is sold. Caps: the default limit (the catalog TDP) and, for a GPU with a
// published settable range (data/power/power-model.yaml min_limit, max_limit), every budget_cap_step_w below
// it down to min_limit; other GPUs run at their default limit only. Counts: doubling from one, then bisection
// to the largest count whose facility power fits; that count and the largest whole purchase unit below it are
// timed, and the faster is the candidate's (as in workload sizing, more nodes are assumed never slower).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/plan/workload_trial.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

// One platform at one GPU power cap, sized to the budget.
struct BudgetCandidate {
  std::string system;  // as listed: a system or a rack-scale system id
  std::string accelerator;
  Power cap;            // per GPU: the default limit or below it
  bool capped = false;  // cap below the default limit
  bool fits = false;    // a count fits the budget and the workload fits in memory on it
  std::string note;     // why it has no design, when it has none
  int nodes = 0;
  int gpus = 0;
  int racks = 0;           // every rack of the design (compute, network, management)
  int rack_systems = 0;    // racks of a rack-scale system (the count), 0 for nodes
  double facility_kw = 0;  // at maximum IT load, the blended PUE
  double it_kw = 0;        // at maximum
  double tokens_per_second = 0;
  double days = 0;
  double mfu = 0;
  bool chosen = false;
  std::string lost;  // why it lost to the chosen one (empty for the chosen)
};

struct PowerBudgetPlan {
  Power budget;                             // facility power
  std::string cap_rule;                     // which caps each accelerator tried, one line
  std::vector<BudgetCandidate> candidates;  // platforms in the listed order, each from its highest cap down
  std::size_t chosen = 0;
  std::optional<Power> cap;  // the chosen design's cap when below the default limit
  bool meets_days = true;    // the chosen design trains within nodes.workload.days (true when none given)
};

struct BudgetFit {
  PowerBudgetPlan plan;
  ClusterSpec spec;  // the chosen platform's spec, sized to its count
  WorkloadSetup setup;
  SizingTrial answer;               // the chosen count, timed
  std::vector<SizingTrial> trials;  // the chosen candidate's timed counts
};

[[nodiscard]] BudgetFit fit_power_budget(const ClusterSpec& spec, const Catalog& catalog,
                                         const WorkloadFitInputs& inputs);

// The catalog with the GPUs of `spec`'s system (and the rack-scale system holding them) under `cap`: maximum
// power less GPUs x (TDP - cap); typical power scaled by the power model's training mix at the cap over at
// the default limit. Throws InputFailure naming the power model's figure when the cap is outside its range.
[[nodiscard]] Catalog capped_catalog(const Catalog& catalog, const PowerModelData& power,
                                     const ClusterSpec& spec, Power cap);

}  // namespace gputwin
