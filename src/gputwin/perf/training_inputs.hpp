// The perf data that training, sizing and workload fitting all read: the model presets, the collective cost
// model and the training model's fitted constants (bundled data files, each figure with its source).
//
//   Result<TrainingInputs> inputs = load_training_inputs();            // data/perf/ of the bundled data
//   const TransformerModel* model = find_model(inputs.value().presets, "llama3-70b");
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/precision_recipe.hpp"
#include "gputwin/perf/training.hpp"

namespace gputwin {

struct TrainingInputs {
  std::vector<TransformerModel> presets;
  CollectiveModel collectives;
  TrainingCalibration calibration;
  MemoryReserve
      memory_reserve;  // memory.yaml: the per-GPU reserve (CUDA context, NCCL buffers, fragmentation)
  std::vector<PrecisionRecipe> recipes;  // precision-recipes.yaml: low-precision recipes by name
};

// Reads models.yaml, nccl-cost-model.yaml, training-model.yaml, memory.yaml and precision-recipes.yaml from
// `perf_data_dir` (the bundled data/perf/ when empty); the errors of every file that does not load, in that
// order.
[[nodiscard]] Result<TrainingInputs> load_training_inputs(const std::string& perf_data_dir = "");

}  // namespace gputwin
