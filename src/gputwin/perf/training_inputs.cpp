#include "gputwin/perf/training_inputs.hpp"

#include <utility>

#include "gputwin/core/data_dir.hpp"

namespace gputwin {

Result<TrainingInputs> load_training_inputs(const std::string& perf_data_dir) {
  const std::string data = (perf_data_dir.empty() ? bundled_data_dir() + "/perf" : perf_data_dir) + "/";
  auto presets = load_model_presets(data + "models.yaml");
  auto collectives = load_collective_model(data + "nccl-cost-model.yaml");
  auto calibration = load_training_calibration(data + "training-model.yaml");
  auto reserve = load_memory_reserve(data + "memory.yaml");
  auto recipes = load_precision_recipes(data + "precision-recipes.yaml");
  if (!presets.ok() || !collectives.ok() || !calibration.ok() || !reserve.ok() || !recipes.ok()) {
    InputErrors errors;
    for (const InputErrors* each :
         {presets.ok() ? nullptr : &presets.errors(), collectives.ok() ? nullptr : &collectives.errors(),
          calibration.ok() ? nullptr : &calibration.errors(), reserve.ok() ? nullptr : &reserve.errors(),
          recipes.ok() ? nullptr : &recipes.errors()}) {
      if (each != nullptr) errors.insert(errors.end(), each->begin(), each->end());
    }
    return errors;
  }
  return TrainingInputs{std::move(presets).value(), std::move(collectives).value(),
                        std::move(calibration).value(), std::move(reserve).value(),
                        std::move(recipes).value()};
}

}  // namespace gputwin
