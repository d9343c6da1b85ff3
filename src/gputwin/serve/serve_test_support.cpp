#include "gputwin/serve/serve_test_support.hpp"

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"

namespace gputwin::testing {

CapacityInputs capacity_inputs_for(const std::string& model_name, int input_tokens) {
  const std::string data = bundled_data_dir() + "/perf/";
  const auto presets = load_model_presets(data + "models.yaml").value();
  return CapacityInputs{bundled_catalog(),
                        load_collective_model(data + "nccl-cost-model.yaml").value(),
                        load_inference_constants(data + "inference.yaml").value(),
                        load_serving_engine_defaults(data + "serving-engine.yaml").value(),
                        *find_model(presets, model_name),
                        "fp8",
                        1.0,
                        input_tokens,
                        128,
                        {},
                        {},
                        4};
}

LatencyTargets latency_targets(double ttft_s, double tpot_s) {
  LatencyTargets targets;
  targets.ttft_s = ttft_s;
  targets.tpot_s = tpot_s;
  return targets;
}

}  // namespace gputwin::testing
