#include "gputwin/plan/workload_fit.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/plan/power_budget.hpp"

namespace gputwin {
namespace {

[[noreturn]] void fail_at(const ClusterSpec& spec, const std::string& field, const std::string& message) {
  throw InputFailure(InputError{spec.where(field), field, message});
}

// The failures every workload answer is run under, and its deadline counts (as perf size's).
constexpr const char* kGoodputProfile = "llama3-table5";
constexpr int kGoodputSeeds = 10;

FailureRates bundled_failure_rates() {
  auto rates = load_failure_rates(bundled_data_dir() + "/reliability/failure-rates.yaml");
  if (!rates.ok()) throw InputFailure(rates.errors().front());
  return std::move(rates).value();
}

// The answer under the bundled failure rates (plan/sizing_goodput); empty when they do not apply.
std::optional<SizingGoodput> answer_goodput(const ClusterSpec& spec, const Catalog& catalog,
                                            const WorkloadFit& fit, const FailureRates& rates) {
  SizingRow row;
  row.accelerator = catalog.get<System>(spec.node_system).accelerator;
  row.system = spec.node_system;
  row.gpus = fit.answer.gpus;
  row.days = fit.answer.days;
  const auto goodput = goodput_of_sizing({row}, catalog, rates, kGoodputProfile, kGoodputSeeds);
  if (goodput.empty()) return std::nullopt;
  return goodput.front();
}

// Sizes one spec that names one system; throws InputFailure located at the spec field that forbids it. A
// count is in time when its time-to-train under failures is (the rule of perf size: count_failures).
WorkloadFit fit_one(ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs,
                    const TimeToTrain& time_to_train) {
  const WorkloadSetup setup = workload_setup(spec, catalog, inputs);
  WorkloadFit fit;
  fit.target = setup.target;
  fit.model = setup.model;
  fit.system = spec.rack_system.empty() ? spec.node_system : spec.rack_system;
  fit.counts_racks = !spec.rack_system.empty();
  const System& system = catalog.get<System>(spec.node_system);
  const int gpus_per_count = system.accelerators * nodes_per_count(spec, catalog);
  const auto search = smallest_node_count(inputs.max_gpus / gpus_per_count, fit.target.days, [&](int count) {
    SizingTrial trial = time_count(spec, catalog, inputs, setup, count);
    count_failures(trial, system, fit.target.days, time_to_train);
    return trial;
  });
  fit.trials = search.trials;
  fit.unit_nodes = search.unit_nodes;
  if (!search.answer) {
    const SizingTrial& largest = search.trials.back();
    fail_at(spec, "nodes.workload.days",
            largest.estimate ? "no design up to " + std::to_string(largest.gpus) + " GPUs trains " +
                                   fit.model.name + " within the days (" + std::to_string(largest.gpus) +
                                   " GPUs take " + std::to_string(static_cast<int>(largest.deadline_days())) +
                                   (largest.wall_days ? " days with failures)" : " days)")
                             : fit.model.name + " fits in memory on no design up to " +
                                   std::to_string(largest.gpus) + " GPUs");
  }
  fit.answer = *search.answer;
  spec.node_count = fit.answer.nodes;
  if (fit.counts_racks) spec.rack_system_count = fit.answer.racks;
  return fit;
}

// Fields whose failure means the candidate cannot meet the workload (it loses); any other failure (a design
// the spec's fabric cannot build) is the spec's error.
bool is_a_loss(const InputError& error) {
  return error.field == "nodes.workload.days" || error.field == "nodes.workload.precision" ||
         error.field == "nodes.workload.memory_reserve";
}

CandidateFit describe(const ClusterSpec& candidate, const Catalog& catalog, const WorkloadFit& fit) {
  CandidateFit row;
  row.system = fit.system;
  row.accelerator = catalog.get<System>(candidate.node_system).accelerator;
  row.sized = true;
  row.gpus = fit.answer.gpus;
  row.nodes = fit.answer.nodes;
  row.days = fit.answer.days;
  row.mfu = fit.answer.estimate->mfu;
  const auto cluster = design_cluster(candidate, catalog);
  if (!cluster.ok()) throw InputFailure(cluster.errors().front());
  const Cluster& design = cluster.value();
  row.racks = static_cast<int>(design.racks.size());
  row.it_power_kw = in_kilowatts(design.power.it_max);
  if (design.costs.complete()) row.tco_usd = in_usd(design.costs.total);
  return row;
}

// Chooses among the sized candidates and says why each other one lost; returns the chosen index.
std::size_t choose(std::vector<CandidateFit>& rows, std::string& rule, bool priced) {
  bool all_priced = true;
  for (const CandidateFit& row : rows) all_priced = all_priced && (!row.sized || row.tco_usd.has_value());
  rule = all_priced ? "the cheapest TCO (every candidate's design is priced completely)"
         : priced   ? "the fewest GPUs (not every candidate's design is priced completely, so cost "
                      "does not decide), then the fewest days"
                    : "the fewest GPUs (no price list, so cost does not decide), then the fewest days";
  const auto better = [&](const CandidateFit& a, const CandidateFit& b) {
    if (all_priced && *a.tco_usd != *b.tco_usd) return *a.tco_usd < *b.tco_usd;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.days < b.days;
  };
  std::size_t best = rows.size();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].sized && (best == rows.size() || better(rows[i], rows[best]))) best = i;
  }
  const CandidateFit& won = rows[best];
  rows[best].chosen = true;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CandidateFit& row = rows[i];
    if (i == best) continue;
    if (!row.sized) {
      row.lost = row.note;
    } else if (all_priced && *row.tco_usd != *won.tco_usd) {
      row.lost = fmt::format("TCO {}, {} more than {}", format_money(usd(*row.tco_usd)),
                             format_money(usd(*row.tco_usd - *won.tco_usd)), won.system);
    } else if (row.gpus != won.gpus) {
      row.lost = fmt::format("{} GPUs, {} more than {}", row.gpus, row.gpus - won.gpus, won.system);
    } else if (row.days != won.days) {
      row.lost = fmt::format("as many GPUs, {:.1f} days slower than {}", row.days - won.days, won.system);
    } else {
      row.lost = "a tie, listed after " + won.system;
    }
  }
  return best;
}

// Sizes every candidate of `nodes.choose` and replaces `spec` with the chosen one, sized.
WorkloadFit fit_candidates(ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs,
                           const TimeToTrain& time_to_train) {
  checked_model(spec, inputs);
  std::vector<ClusterSpec> candidates = spec.candidates;
  std::vector<CandidateFit> rows;
  std::vector<std::optional<WorkloadFit>> fits;
  for (ClusterSpec& candidate : candidates) {
    const std::string id = candidate.rack_system.empty() ? candidate.node_system : candidate.rack_system;
    try {
      WorkloadFit fit = fit_one(candidate, catalog, inputs, time_to_train);
      rows.push_back(describe(candidate, catalog, fit));
      fits.push_back(std::move(fit));
    } catch (const InputFailure& failure) {
      InputError error = failure.error();
      if (!is_a_loss(error)) {
        error.message = "for candidate '" + id + "' (" + candidate.system_field + "): " + error.message;
        throw InputFailure(error);
      }
      CandidateFit row;
      row.system = id;
      row.accelerator = catalog.get<System>(candidate.node_system).accelerator;
      row.note = error.message;
      rows.push_back(row);
      fits.emplace_back();
    }
  }
  const bool any = std::any_of(rows.begin(), rows.end(), [](const CandidateFit& row) { return row.sized; });
  if (!any) {
    std::string reasons;
    for (const CandidateFit& row : rows)
      reasons += (reasons.empty() ? "" : "; ") + row.system + ": " + row.note;
    fail_at(spec, "nodes.workload.days", "no candidate meets the workload (" + reasons + ")");
  }
  std::string rule;
  const std::size_t best = choose(rows, rule, spec.cost.has_prices);
  WorkloadFit fit = std::move(*fits[best]);
  fit.candidates = std::move(rows);
  fit.choice_rule = std::move(rule);
  spec = std::move(candidates[best]);
  return fit;
}

// Sizes `spec` to its facility power budget and replaces it with the chosen platform, sized.
// The budget picks the fastest design; whether it meets the days is the deadline rule's (count_failures).
WorkloadFit fit_budget(ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs,
                       const TimeToTrain& time_to_train) {
  checked_model(spec, inputs);
  BudgetFit budget = fit_power_budget(spec, catalog, inputs);
  WorkloadFit fit;
  fit.model = budget.setup.model;
  fit.target = budget.setup.target;
  fit.system = budget.spec.rack_system.empty() ? budget.spec.node_system : budget.spec.rack_system;
  fit.counts_racks = !budget.spec.rack_system.empty();
  fit.answer = budget.answer;
  fit.trials = std::move(budget.trials);
  fit.unit_nodes = budget.answer.unit_nodes;
  fit.budget = std::move(budget.plan);
  spec = std::move(budget.spec);
  if (fit.target.days > 0) {
    count_failures(fit.answer, catalog.get<System>(spec.node_system), fit.target.days, time_to_train);
    fit.budget->meets_days = fit.answer.in_time(fit.target.days);
  }
  return fit;
}

// `storage.checkpoint.size: workload`: a checkpoint holds the weights and the optimizer state, unsharded
// (memory.hpp's model-state bytes per parameter less the gradients, which a checkpoint does not keep).
void size_checkpoint(ClusterSpec& spec, const TransformerModel& model) {
  if (!spec.storage_system.checkpoint_from_workload) return;
  const ModelStateBytes bytes = model_state_bytes(0, 0.0, 1);
  spec.storage_system.checkpoint_size =
      ByteSize::from_base(model.parameters() * (bytes.weights + bytes.optimizer));
}

}  // namespace

Result<WorkloadFit> fit_workload(ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs) {
  if (!spec.workload) {
    return InputError{spec.where("nodes"), "nodes", "the spec asks for no workload"};
  }
  return result_of<WorkloadFit>([&] {
    if (spec.storage_system.checkpoint_from_workload) {
      const TransformerModel& model = checked_model(spec, inputs);
      size_checkpoint(spec, model);
      for (ClusterSpec& candidate : spec.candidates) size_checkpoint(candidate, model);
    }
    checked_recipe(spec, inputs);  // an unknown recipe is the spec's error, not a candidate's loss
    const FailureRates rates = bundled_failure_rates();
    const TimeToTrain time_to_train = time_to_train_under_failures(rates, kGoodputProfile, kGoodputSeeds);
    WorkloadFit fit = spec.facility.power_budget ? fit_budget(spec, catalog, inputs, time_to_train)
                      : spec.candidates.empty()  ? fit_one(spec, catalog, inputs, time_to_train)
                                                 : fit_candidates(spec, catalog, inputs, time_to_train);
    fit.goodput = answer_goodput(spec, catalog, fit, rates);
    return fit;
  });
}

}  // namespace gputwin
