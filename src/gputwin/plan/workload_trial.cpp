#include "gputwin/plan/workload_trial.hpp"

#include <algorithm>
#include <string>

#include "gputwin/design/design.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/training_search.hpp"

namespace gputwin {
namespace {

[[noreturn]] void fail_at(const ClusterSpec& spec, const std::string& field, const std::string& message) {
  throw InputFailure(InputError{spec.where(field), field, message});
}

// The workload's precision recipe applied (its GEMM precision and the layers it keeps in bf16).
TrainingConfig base_config(const ClusterSpec& spec, const WorkloadTarget& target,
                           const WorkloadFitInputs& inputs) {
  TrainingConfig base;
  base.sequence = target.sequence;
  base.global_batch = target.global_batch;
  base.precision = target.precision;
  if (inputs.recipes != nullptr) apply_recipe(*checked_recipe(spec, inputs), base);
  return base;
}

}  // namespace

const PrecisionRecipe* checked_recipe(const ClusterSpec& spec, const WorkloadFitInputs& inputs) {
  if (inputs.recipes == nullptr) return nullptr;
  const PrecisionRecipe* recipe = find_recipe(*inputs.recipes, spec.workload->precision);
  if (recipe == nullptr) {
    fail_at(spec, "nodes.workload.precision",
            "unknown precision recipe '" + spec.workload->precision +
                "'; known: " + recipe_names(*inputs.recipes) + " (data/perf/precision-recipes.yaml)");
  }
  return recipe;
}

const TransformerModel& checked_model(const ClusterSpec& spec, const WorkloadFitInputs& inputs) {
  const TransformerModel* model = find_model(*inputs.presets, spec.workload->model);
  if (model == nullptr) {
    fail_at(spec, "nodes.workload.model",
            "unknown model '" + spec.workload->model + "'; known: " + model_names(*inputs.presets));
  }
  return *model;
}

WorkloadSetup workload_setup(const ClusterSpec& spec, const Catalog& catalog,
                             const WorkloadFitInputs& inputs) {
  WorkloadSetup setup;
  setup.target = *spec.workload;
  setup.model = checked_model(spec, inputs);
  const System& system = catalog.get<System>(spec.node_system);
  if (setup.target.global_batch == 0) setup.target.global_batch = default_global_batch(setup.target.sequence);
  setup.base = base_config(spec, setup.target, inputs);
  // The rate the recipe's GEMMs run at (mxfp8 at fp8's, nvfp4 and mxfp4 at fp4's).
  const GemmPrecision* gemm = inputs.calibration->gemm.precision(setup.base.precision);
  const std::string peak_key = gemm != nullptr ? gemm->peak_key : setup.base.precision;
  const auto& rates = catalog.get<Accelerator>(system.accelerator).dense_compute;
  const auto rate = rates.find(peak_key);
  if (rate == rates.end() || !rate->second) {
    fail_at(spec, "nodes.workload.precision",
            "'" + system.accelerator + "' has no dense " + peak_key + " rate in the catalog");
  }
  const ByteSize gpu_memory = catalog.get<Accelerator>(system.accelerator).memory;
  setup.base.memory_reserve = setup.target.memory_reserve.value_or(inputs.memory_reserve.per_gpu(gpu_memory));
  setup.base.fsdp_blocks = inputs.memory_reserve.fsdp_blocks;
  if (setup.base.memory_reserve.base() >= gpu_memory.base()) {
    fail_at(spec, "nodes.workload.memory_reserve", "the reserve leaves nothing of the GPU's memory");
  }
  return setup;
}

int nodes_per_count(const ClusterSpec& spec, const Catalog& catalog) {
  return spec.rack_system.empty() ? 1 : catalog.get<RackSystem>(spec.rack_system).compute_trays;
}

int purchase_unit(const Cluster& cluster, const ClusterSpec& spec, const Catalog& catalog) {
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  if (compute == nullptr) return 1;
  int nodes = 0;
  if (compute->topology == "rail_optimized") {
    nodes = compute->nodes_per_scalable_unit;
  } else {
    const NodeType* type = cluster.sole_node_type();
    if (type != nullptr && type->nics.contains(NetworkRole::compute))
      nodes = compute->leaf_downlinks / type->nics.at(NetworkRole::compute).ports;
  }
  return std::max(1, nodes / nodes_per_count(spec, catalog));
}

ClusterSpec with_count(const ClusterSpec& spec, const Catalog& catalog, int count) {
  ClusterSpec sized = spec;
  if (!spec.rack_system.empty()) sized.rack_system_count = count;
  sized.node_count = count * nodes_per_count(spec, catalog);
  return sized;
}

Cluster design_count(const ClusterSpec& spec, const Catalog& catalog, int count) {
  const ClusterSpec sized = with_count(spec, catalog, count);
  auto cluster = design_cluster(sized, catalog);
  if (!cluster.ok()) {
    const InputError& first = cluster.errors().front();
    const std::string what = spec.rack_system.empty()
                                 ? std::to_string(count) + " nodes"
                                 : std::to_string(count) + " racks of " + spec.rack_system;
    throw InputFailure(
        InputError{first.where, first.field, "designing " + what + " for the workload: " + first.message});
  }
  return std::move(cluster).value();
}

SizingTrial time_design(const Cluster& cluster, const ClusterSpec& spec, const Catalog& catalog,
                        const WorkloadFitInputs& inputs, const WorkloadSetup& setup, int count,
                        const PowerOperatingPoint* point) {
  auto hardware = perf_hardware(cluster, catalog);
  if (!hardware.ok()) throw InputFailure(hardware.errors().front());
  const PerfHardware timed = point == nullptr ? hardware.value() : capped_hardware(hardware.value(), *point);
  SizingTrial trial;
  trial.nodes = count * nodes_per_count(spec, catalog);
  trial.racks = spec.rack_system.empty() ? 0 : count;
  trial.gpus = cluster.gpus;
  trial.unit_nodes = purchase_unit(cluster, spec, catalog);
  trial.estimate = search_training(timed, *inputs.collectives, *inputs.calibration, setup.model, setup.base,
                                   trial.gpus, fastest_only())
                       .best;
  if (trial.estimate && point != nullptr) trial.estimate = at_datasheet_peak(*trial.estimate, *point);
  if (trial.estimate) trial.days = training_days(setup.target.tokens, *trial.estimate);
  return trial;
}

SizingTrial time_count(const ClusterSpec& spec, const Catalog& catalog, const WorkloadFitInputs& inputs,
                       const WorkloadSetup& setup, int count, const PowerOperatingPoint* point) {
  return time_design(design_count(spec, catalog, count), spec, catalog, inputs, setup, count, point);
}

}  // namespace gputwin
