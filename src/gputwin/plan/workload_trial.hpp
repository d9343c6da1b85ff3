// The steps a workload-sized plan repeats: check what the spec's workload asks for, design the spec at a node
// (or rack) count and time it with the fastest split that fits. plan/workload_fit (the smallest count in
// time) and plan/power_budget (the fastest design within a facility power budget) are both made of them.
//
//   WorkloadSetup setup = workload_setup(spec, catalog, inputs);        // throws InputFailure at the field
//   SizingTrial trial = time_count(spec, catalog, inputs, setup, 32);   // 32 nodes, designed and timed
//   SizingTrial capped = time_count(spec, catalog, inputs, setup, 32, &point);   // on the capped GPU
#pragma once

#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/precision_recipe.hpp"
#include "gputwin/perf/training.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

struct WorkloadFitInputs {
  const std::vector<TransformerModel>* presets = nullptr;
  const CollectiveModel* collectives = nullptr;
  const TrainingCalibration* calibration = nullptr;
  int max_gpus = 131072;
  MemoryReserve memory_reserve;  // memory.yaml's per-GPU reserve, on the spec's accelerator
  // precision-recipes.yaml: what nodes.workload.precision may name (bf16, fp8, fp8-cs, mxfp8, nvfp4, mxfp4);
  // null: only bf16 and fp8, as GEMM precisions with no bf16 layers.
  const std::vector<PrecisionRecipe>* recipes = nullptr;
  // data/power/power-model.yaml: the caps a facility.power_budget plan tries and what they do; null: a
  // spec with a power budget is refused.
  const PowerModelData* power = nullptr;
};

// The workload of a spec, checked against its system: the model preset, the target with its global batch
// resolved, and the training configuration its precision recipe and memory reserve give.
struct WorkloadSetup {
  TransformerModel model;
  WorkloadTarget target;
  TrainingConfig base;
};

// Throws InputFailure located at nodes.workload.model / .precision / .memory_reserve.
const TransformerModel& checked_model(const ClusterSpec& spec, const WorkloadFitInputs& inputs);
const PrecisionRecipe* checked_recipe(const ClusterSpec& spec, const WorkloadFitInputs& inputs);
[[nodiscard]] WorkloadSetup workload_setup(const ClusterSpec& spec, const Catalog& catalog,
                                           const WorkloadFitInputs& inputs);

// Compute trays per rack of a rack-scale spec; 1 for nodes bought one at a time.
[[nodiscard]] int nodes_per_count(const ClusterSpec& spec, const Catalog& catalog);
// `spec` with `count` nodes (or racks of its rack-scale system).
[[nodiscard]] ClusterSpec with_count(const ClusterSpec& spec, const Catalog& catalog, int count);
// What one purchase step adds on this design, in counts (nodes, or racks of a rack-scale system): a scalable
// unit of a rail-optimized fabric, or the nodes one leaf serves.
[[nodiscard]] int purchase_unit(const Cluster& cluster, const ClusterSpec& spec, const Catalog& catalog);
// The design of `spec` at `count`; a design error is rethrown located, saying which count it was.
[[nodiscard]] Cluster design_count(const ClusterSpec& spec, const Catalog& catalog, int count);

// The spec designed with `count` nodes (or racks) and timed with its fastest fitting split, on the GPU as
// `point` leaves it (null: the default limit; MFU stays against the datasheet peak).
[[nodiscard]] SizingTrial time_count(const ClusterSpec& spec, const Catalog& catalog,
                                     const WorkloadFitInputs& inputs, const WorkloadSetup& setup, int count,
                                     const PowerOperatingPoint* point = nullptr);
// The same on a design already made.
[[nodiscard]] SizingTrial time_design(const Cluster& cluster, const ClusterSpec& spec, const Catalog& catalog,
                                      const WorkloadFitInputs& inputs, const WorkloadSetup& setup, int count,
                                      const PowerOperatingPoint* point = nullptr);

}  // namespace gputwin
