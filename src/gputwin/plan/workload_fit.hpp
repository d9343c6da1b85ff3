// "Enough GPUs for this workload": the node count of a spec that asks for a workload (nodes.workload) instead
// of a count, found on the spec's own design before `plan` designs it.
//
//   Result<WorkloadFit> fit = fit_workload(spec, catalog, presets, collectives, calibration);
//   if (fit.ok()) spec.node_count = fit.value().answer.nodes;   // fit_workload has set it already
//
// Each node count tried is designed in full (the spec's fabric, oversubscription and tiers) and timed with
// the fastest split that fits in memory (search_training); smallest_node_count picks the count, bisecting in
// the design's purchase unit (a scalable unit of a rail-optimized fabric, the nodes of one leaf otherwise). A
// workload no design up to `max_gpus` trains in time, an unknown model or a precision the GPU lacks is an
// error located at the spec field.
#pragma once

#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/training.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

struct WorkloadFit {
  TransformerModel model;
  WorkloadTarget target;  // as written, with the global batch resolved
  SizingTrial answer;     // the smallest node count in time, with its split
  std::vector<SizingTrial> trials;
  int unit_nodes = 1;  // the design's purchase step the count was bisected in

  // The largest count tried below the answer (not in time), or none when the answer is one node.
  [[nodiscard]] const SizingTrial* next_smaller_trial() const {
    const SizingTrial* below = nullptr;
    for (const SizingTrial& trial : trials) {
      if (trial.nodes < answer.nodes && (below == nullptr || trial.nodes > below->nodes)) below = &trial;
    }
    return below;
  }
};

struct WorkloadFitInputs {
  const std::vector<TransformerModel>* presets = nullptr;
  const CollectiveModel* collectives = nullptr;
  const TrainingCalibration* calibration = nullptr;
  int max_gpus = 131072;
  MemoryReserve memory_reserve;  // memory.yaml's per-GPU reserve, on the spec's accelerator
};

// Sizes `spec` (which must ask for a workload) and sets its node count.
[[nodiscard]] Result<WorkloadFit> fit_workload(ClusterSpec& spec, const Catalog& catalog,
                                               const WorkloadFitInputs& inputs);

}  // namespace gputwin
