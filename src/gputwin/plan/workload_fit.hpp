// "Enough GPUs for this workload": the node count of a spec that asks for a workload (nodes.workload) instead
// of a count, found on the spec's own design before `plan` designs it.
//
//   Result<WorkloadFit> fit = fit_workload(spec, catalog, presets, collectives, calibration);
//   if (fit.ok()) spec.node_count = fit.value().answer.nodes;   // fit_workload has set it already
//
// Each count tried is designed in full (the spec's fabric, oversubscription and tiers) and timed with the
// fastest split that fits in memory (search_training); smallest_node_count, the search `perf size` uses,
// picks the count, bisecting in the design's purchase unit (a scalable unit of a rail-optimized fabric, the
// nodes of one leaf otherwise). A rack-scale system (gb200-nvl72) is counted in whole racks, never cutting
// its scale-up domain. A count is in time when its time-to-train under failures (the goodput model's work
// days / ETTR: plan/sizing_goodput's time_to_train_under_failures, the rule perf size uses) is within the
// days. A workload no design up to `max_gpus` trains in time, an unknown model or a precision
// the GPU lacks is an error located at the spec field.
//
// A spec listing candidates (`nodes.choose`) has each sized so on the spec's own fabric and facility; the
// chosen one replaces the spec: the cheapest TCO when every candidate's design is priced completely, else the
// fewest GPUs (then the fewest days, then the listed order). `candidates` holds the comparison and why each
// other candidate lost.
//
// A spec with facility.power_budget is sized to the budget instead (plan/power_budget.hpp): the platform, GPU
// power cap and count that train the workload fastest within it; `budget` holds the comparison.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/precision_recipe.hpp"
#include "gputwin/perf/training.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/plan/power_budget.hpp"
#include "gputwin/plan/sizing_goodput.hpp"
#include "gputwin/plan/workload_trial.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

// One candidate of `nodes.choose`, sized on the spec's design (the answer's design gives racks, power, cost).
struct CandidateFit {
  std::string system;  // as listed: a system or a rack-scale system id
  std::string accelerator;
  bool sized = false;  // false: no count up to the maximum trains it in time (or it lacks the precision)
  std::string note;    // why it has no answer, when it has none
  int gpus = 0;
  int nodes = 0;
  int racks = 0;  // every rack of the answer's design (compute, network, management)
  double days = 0;
  double mfu = 0;
  double it_power_kw = 0;         // the answer's design at maximum load
  std::optional<double> tco_usd;  // the design's TCO when its prices are complete
  bool chosen = false;
  std::string lost;  // why it lost to the chosen one (empty for the chosen)
};

struct WorkloadFit {
  TransformerModel model;
  WorkloadTarget target;      // as written, with the global batch resolved
  std::string system;         // the system sized: a node system, or the rack-scale system counted in racks
  bool counts_racks = false;  // the count is racks of a rack-scale system (trials hold their racks)
  SizingTrial answer;         // the smallest count in time, with its split
  std::vector<SizingTrial> trials;
  int unit_nodes = 1;  // the design's purchase step the count was bisected in (racks when counts_racks)
  std::vector<CandidateFit> candidates;  // `nodes.choose` in the listed order; empty for one system
  std::string choice_rule;               // how the candidate was chosen, for the output
  // The answer under failures (plan/sizing_goodput: the bundled llama3-table5 rates, assumed checkpoint
  // defaults, the spares that cover repairs 99 % of the time); empty when the answer has no GPU system.
  std::optional<SizingGoodput> goodput;
  // facility.power_budget: every platform and cap compared and the chosen one (plan/power_budget); `answer`
  // is the chosen design's count and `trials` the counts timed for it.
  std::optional<PowerBudgetPlan> budget;

  // The largest count tried below the answer (not in time), or none when the answer is one node.
  [[nodiscard]] const SizingTrial* next_smaller_trial() const {
    const SizingTrial* below = nullptr;
    for (const SizingTrial& trial : trials) {
      if (trial.nodes < answer.nodes && (below == nullptr || trial.nodes > below->nodes)) below = &trial;
    }
    return below;
  }
};

// Sizes `spec` (which must ask for a workload) and sets its node count.
[[nodiscard]] Result<WorkloadFit> fit_workload(ClusterSpec& spec, const Catalog& catalog,
                                               const WorkloadFitInputs& inputs);

}  // namespace gputwin
