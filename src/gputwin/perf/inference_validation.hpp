// The inference model against published serving throughput (data/reference/inference-trtllm.yaml): one row per
// configuration and sequence lengths, with the model's prediction and its error. Used by the tests, the
// validation bench and the calibration search.
//
//   auto rows = validate_inference(catalog, presets, collectives, constants, path_of_reference_file);
//   for (const auto& row : rows.value()) row.error_percent;
//   // A search over constants reads the file once and re-predicts:
//   auto cases = load_inference_cases(path_of_reference_file);
//   auto rows = predict_inference(catalog, presets, collectives, trial_constants, cases.value());
#pragma once

#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/inference.hpp"

namespace gputwin {

struct InferenceCheck {
  std::string configuration;  // e.g. llama33_70b_h100_tp2
  std::string model;
  std::string system;
  int tp = 1;
  std::string precision;  // weights, GEMMs and the KV cache
  int input_tokens = 0;
  int output_tokens = 0;
  double published_tokens_per_s = 0;
  double predicted_tokens_per_s = 0;
  int sequences = 0;  // the max-load batch the model found
  [[nodiscard]] double error_percent() const {
    return 100.0 * (predicted_tokens_per_s - published_tokens_per_s) / published_tokens_per_s;
  }
};

// The published rows, with no prediction yet.
[[nodiscard]] Result<std::vector<InferenceCheck>> load_inference_cases(const std::string& reference_path);
// Each case's max-load prediction; fails naming the configuration when its model or system is unknown.
[[nodiscard]] Result<std::vector<InferenceCheck>> predict_inference(const Catalog& catalog,
                                                                    const std::vector<TransformerModel>& presets,
                                                                    const CollectiveModel& collectives,
                                                                    const InferenceConstants& constants,
                                                                    std::vector<InferenceCheck> cases);
// Both: load, then predict.
[[nodiscard]] Result<std::vector<InferenceCheck>> validate_inference(const Catalog& catalog,
                                                                     const std::vector<TransformerModel>& presets,
                                                                     const CollectiveModel& collectives,
                                                                     const InferenceConstants& constants,
                                                                     const std::string& reference_path);

}  // namespace gputwin
