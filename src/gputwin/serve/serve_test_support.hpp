// Shared helpers for the serving tests (serve/ and the folders above it): the capacity search's inputs read
// from the bundled data for one model preset.
//
//   CapacityInputs inputs = testing::capacity_inputs_for("mixtral-8x7b");
//   auto candidates = candidates_for(inputs, "dgx-h100");
#pragma once

#include <string>

#include "gputwin/serve/capacity_search.hpp"

namespace gputwin::testing {

// The bundled catalog, NCCL cost model, inference constants and engine defaults with FP8 weights and an 8-bit
// KV cache; `input_tokens` only sizes the "does one sequence fit" check (the requests carry their own
// lengths).
[[nodiscard]] CapacityInputs capacity_inputs_for(const std::string& model_name, int input_tokens = 1024);

[[nodiscard]] LatencyTargets latency_targets(double ttft_s, double tpot_s);

}  // namespace gputwin::testing
