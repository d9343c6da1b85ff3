#include "gputwin/plan/workload_fit.hpp"

#include <algorithm>

#include "gputwin/design/design.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/training_search.hpp"

namespace gputwin {
namespace {

[[noreturn]] void fail_at(const ClusterSpec& spec, const std::string& field, const std::string& message) {
  throw InputFailure(InputError{spec.where(field), field, message});
}

TrainingConfig base_config(const WorkloadTarget& target) {
  TrainingConfig base;
  base.sequence = target.sequence;
  base.global_batch = target.global_batch;
  base.precision = target.precision;
  return base;
}

// The nodes one purchase step adds on this design: a scalable unit of a rail-optimized fabric, or the nodes
// one leaf serves.
int unit_nodes(const Cluster& cluster, const Catalog& catalog) {
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  if (compute == nullptr) return 1;
  if (compute->topology == "rail_optimized") return std::max(1, compute->nodes_per_scalable_unit);
  const int ports = catalog.get<System>(cluster.node_system).nics.at(NetworkRole::compute).ports;
  return std::max(1, compute->leaf_downlinks / ports);
}

// The spec designed with `nodes` nodes and timed with its fastest fitting split.
SizingTrial try_nodes(const ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs,
                      const TransformerModel& model, const TrainingConfig& base, int nodes) {
  ClusterSpec sized = spec;
  sized.node_count = nodes;
  const int gpus = nodes * catalog.get<System>(spec.node_system).accelerators;
  const auto cluster = design_cluster(sized, catalog);
  if (!cluster.ok()) {
    const InputError& first = cluster.errors().front();
    throw InputFailure(
        InputError{first.where, first.field,
                   "designing " + std::to_string(nodes) + " nodes for the workload: " + first.message});
  }
  const auto hardware = perf_hardware(cluster.value(), catalog);
  if (!hardware.ok()) throw InputFailure(hardware.errors().front());
  SizingTrial trial;
  trial.nodes = nodes;
  trial.gpus = gpus;
  trial.unit_nodes = unit_nodes(cluster.value(), catalog);
  trial.estimate = search_training(hardware.value(), *inputs.collectives, *inputs.calibration, model, base,
                                   gpus, fastest_only())
                       .best;
  if (trial.estimate) trial.days = training_days(spec.workload->tokens, *trial.estimate);
  return trial;
}

WorkloadFit fit(ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs) {
  WorkloadFit fit;
  fit.target = *spec.workload;
  const TransformerModel* model = find_model(*inputs.presets, fit.target.model);
  if (model == nullptr) {
    fail_at(spec, "nodes.workload.model",
            "unknown model '" + fit.target.model + "'; known: " + model_names(*inputs.presets));
  }
  fit.model = *model;
  const System& system = catalog.get<System>(spec.node_system);
  const auto& rates = catalog.get<Accelerator>(system.accelerator).dense_compute;
  const auto rate = rates.find(fit.target.precision);
  if (rate == rates.end() || !rate->second) {
    fail_at(spec, "nodes.workload.precision",
            "'" + system.accelerator + "' has no dense " + fit.target.precision + " rate in the catalog");
  }
  if (fit.target.global_batch == 0) fit.target.global_batch = default_global_batch(fit.target.sequence);
  TrainingConfig base = base_config(fit.target);
  const ByteSize gpu_memory = catalog.get<Accelerator>(system.accelerator).memory;
  base.memory_reserve = fit.target.memory_reserve.value_or(inputs.memory_reserve.per_gpu(gpu_memory));
  if (base.memory_reserve.base() >= gpu_memory.base()) {
    fail_at(spec, "nodes.workload.memory_reserve", "the reserve leaves nothing of the GPU's memory");
  }
  const auto search = smallest_node_count(
      inputs.max_gpus / system.accelerators, fit.target.days,
      [&](int nodes) { return try_nodes(spec, catalog, inputs, fit.model, base, nodes); });
  fit.trials = search.trials;
  fit.unit_nodes = search.unit_nodes;
  if (!search.answer) {
    const SizingTrial& largest = search.trials.back();
    fail_at(spec, "nodes.workload.days",
            largest.estimate ? "no design up to " + std::to_string(largest.gpus) + " GPUs trains " +
                                   fit.model.name + " within the days (" + std::to_string(largest.gpus) +
                                   " GPUs take " + std::to_string(static_cast<int>(largest.days)) + " days)"
                             : fit.model.name + " fits in memory on no design up to " +
                                   std::to_string(largest.gpus) + " GPUs");
  }
  fit.answer = *search.answer;
  spec.node_count = fit.answer.nodes;
  return fit;
}

}  // namespace

Result<WorkloadFit> fit_workload(ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs) {
  if (!spec.workload) {
    return InputError{spec.where("nodes"), "nodes", "the spec asks for no workload"};
  }
  return result_of<WorkloadFit>([&] { return fit(spec, catalog, inputs); });
}

}  // namespace gputwin
