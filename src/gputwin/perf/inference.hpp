// LLM serving on a tensor-parallel group: how many sequences fit in the KV cache, how long prefill and a
// decode step take (compute- or bandwidth-bound, plus tensor-parallel all-reduces), and the resulting TTFT,
// TPOT and output tokens per second, at a given number of concurrent sequences or at the most that fit (max
// load).
//
//   InferenceSetup setup{model, /*tp=*/2, "fp8", /*kv_bytes=*/1, /*input=*/128, /*output=*/128};
//   InferenceEstimate e = estimate_inference(hw, collectives, constants, setup, /*sequences=*/0);  // max
//   load e.sequences, e.decode.seconds, e.tpot_s, e.ttft_s, e.output_tokens_per_s
//
// The model (docs/perf-inference.md): weights and the KV cache of every running sequence stream from HBM
// once per decode step; a step also does 2 x (matmul parameters) FLOPs per sequence plus attention; GEMM
// efficiency grows with the tokens in a GEMM; prompts are prefilled in chunks; throughput at a steady state
// of S sequences = S x output tokens / (prefill of S prompts + output tokens x decode step at the mean
// context).
#pragma once

#include <string>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/model.hpp"

namespace gputwin {

// Constants of the inference model, each from data/perf/inference.yaml with its source.
struct InferenceConstants {
  double kv_cache_free_memory_fraction = 0.9;
  double prefill_chunk_tokens = 8192;
  double gemm_efficiency_max = 0.6;
  double gemm_half_saturation_tokens = 128;
  double memory_efficiency = 0.85;
  double runtime_reserved_bytes = 12e9;
  double host_seconds_per_sequence_step = 8e-6;

  // Achieved share of peak for a GEMM with `tokens` rows.
  [[nodiscard]] double gemm_efficiency(double tokens) const {
    return gemm_efficiency_max * tokens / (tokens + gemm_half_saturation_tokens);
  }
};

[[nodiscard]] Result<InferenceConstants> load_inference_constants(const std::string& path);

struct InferenceSetup {
  TransformerModel model;
  int tp = 1;                       // tensor-parallel GPUs serving one model replica
  std::string precision = "fp8";    // weights and GEMMs: fp8 | bf16 | fp16
  double kv_bytes_per_element = 1;  // KV cache element size (1 for an FP8 cache)
  int input_tokens = 128;
  int output_tokens = 128;
};

struct StepTime {
  double compute_s = 0;
  double memory_s = 0;
  double communication_s = 0;  // tensor-parallel all-reduces, not overlapped
  double host_s = 0;
  [[nodiscard]] double seconds() const {
    return (compute_s > memory_s ? compute_s : memory_s) + communication_s + host_s;
  }
  [[nodiscard]] bool compute_bound() const { return compute_s >= memory_s; }
};

struct InferenceEstimate {
  double weight_bytes_per_gpu = 0;
  double kv_bytes_per_token_per_gpu = 0;
  double kv_capacity_tokens = 0;   // per replica, after weights and the runtime's reserve
  int max_sequences = 0;           // concurrent sequences of input + output tokens that fit
  bool fits = false;               // the weights fit with room for at least one sequence
  int sequences = 0;               // concurrent sequences this estimate is for
  StepTime prefill;                // all `sequences` prompts
  StepTime decode;                 // one step of all sequences at the mean context
  double ttft_s = 0;               // one prompt's prefill plus one decode step of the running batch
  double tpot_s = 0;               // decode step time
  double output_tokens_per_s = 0;  // per replica (the tp GPUs)
  double output_tokens_per_s_per_gpu = 0;
};

// `sequences` = 0 means max load: as many as the KV cache holds.
[[nodiscard]] Result<InferenceEstimate> estimate_inference(const PerfHardware& hardware,
                                                           const CollectiveModel& collectives,
                                                           const InferenceConstants& constants,
                                                           const InferenceSetup& setup, int sequences);

}  // namespace gputwin
