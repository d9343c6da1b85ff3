// What `perf train` and `perf size` both read: the model presets, the collective cost model and the training
// model's fitted constants (bundled data), and how a model is chosen by name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/training.hpp"

namespace gputwin::cli {

struct TrainingInputs {
  std::vector<TransformerModel> presets;
  CollectiveModel collectives;
  TrainingCalibration calibration;
};

// Prints the errors and returns empty when a data file does not load.
std::optional<TrainingInputs> load_training_inputs();

// The preset of that name, or empty after printing "unknown model 'x'; known: ..." prefixed with `command`.
const TransformerModel* preset_or_complain(const TrainingInputs& inputs, const std::string& name,
                                           const std::string& command);

}  // namespace gputwin::cli
