// LLM serving on a tensor-parallel group: how many sequences fit in the KV cache, how long prefill and a
// decode step take (compute- or bandwidth-bound, plus tensor-parallel all-reduces), and the resulting TTFT,
// TPOT and output tokens per second, at a given number of concurrent sequences or at the most that fit (max
// load).
//
//   InferenceSetup setup{model, /*tp=*/2, "fp8", /*kv_bytes=*/1, /*input=*/128, /*output=*/128, /*ep=*/1};
//   InferenceEstimate e = estimate_inference(hw, collectives, constants, setup, /*sequences=*/0);  // max
//   load e.sequences, e.decode.seconds, e.tpot_s, e.ttft_s, e.output_tokens_per_s
//
// The model (docs/perf-inference.md): the weights a step touches and the KV cache of every running sequence
// stream from HBM once per decode step; a step also does the model's active matrix FLOPs per token plus
// attention scores; GEMM efficiency grows with the tokens in a GEMM; prompts are prefilled in chunks;
// throughput at a steady state of S sequences = S x output tokens / (prefill of S prompts + output tokens x
// decode step at the mean context).
// Mixture of experts: all experts are resident, but a step reads only the experts its tokens hit, E (1 - (1 -
// k/E)^B) per MoE layer for B tokens under uniform routing (expected_experts_hit). With --ep N the replica is
// N attention groups of TP GPUs (data-parallel attention, each group its own sequences and KV cache) and the
// routed experts are split over all N x TP GPUs, as vLLM's --data-parallel-size N --tensor-parallel-size TP
// --enable-expert-parallel; tokens reach their experts by an all-to-all dispatch and combine per MoE layer.
// Latent attention (MLA): the cache holds the compressed latent, replicated on every TP rank.
// Pipeline parallelism (pp > 1, as vLLM's --pipeline-parallel-size across nodes): each stage holds the layers
// of the busiest stage (ceil(layers / pp)), their weights and KV cache; one batch's time is the sum of the
// stages' (the whole model's work, as without PP) plus pp - 1 sends of its activations to the next stage.
// Overlapping several batches in the pipeline is the caller's (serve/capacity_search runs pp engines).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/roofline.hpp"

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

// Expected distinct experts that `tokens` tokens hit when each picks `top_k` of `experts` uniformly at
// random: experts x (1 - (1 - top_k / experts)^tokens). 1 token: top_k; many: all of them.
[[nodiscard]] double expected_experts_hit(int experts, int top_k, double tokens);

struct InferenceSetup {
  TransformerModel model;
  int tp = 1;                       // tensor-parallel GPUs of one attention group
  std::string precision = "fp8";    // weights and GEMMs: fp8 | bf16 | fp16
  double kv_bytes_per_element = 1;  // KV cache element size (1 for an FP8 cache)
  int input_tokens = 128;
  int output_tokens = 128;
  int ep = 1;  // MoE: attention groups of tp GPUs per replica; experts split over ep x tp GPUs when > 1
  int pp = 1;  // pipeline stages, each tp GPUs holding its share of the layers (their weights and KV cache)
};

struct StepTime {
  double compute_s = 0;
  double memory_s = 0;
  double communication_s = 0;  // tensor-parallel all-reduces and expert all-to-alls, not overlapped
  double host_s = 0;
  [[nodiscard]] double seconds() const {
    return (compute_s > memory_s ? compute_s : memory_s) + communication_s + host_s;
  }
  [[nodiscard]] bool compute_bound() const { return compute_s >= memory_s; }
};

struct InferenceEstimate {
  double weight_bytes_per_gpu = 0;  // resident: every expert, split over the replica's GPUs
  double kv_bytes_per_token_per_gpu = 0;
  double kv_capacity_tokens = 0;  // per replica, after weights and the runtime's reserve
  int max_sequences = 0;          // concurrent sequences of input + output tokens that fit
  bool fits = false;              // the weights fit and the KV cache holds `sequences`
  bool weights_fit = false;       // the weights fit with room for at least one sequence
  double missing_bytes_per_gpu =
      0;              // when they do not: memory short per GPU for weights, reserve, 1 sequence
  int sequences = 0;  // concurrent sequences this estimate is for
  StepTime prefill;   // all `sequences` prompts
  StepTime decode;    // one step of all sequences at the mean context
  double decode_weight_bytes_read_per_gpu = 0;  // weights one decode step streams (hit experts only)
  double ttft_s = 0;               // one prompt's prefill plus one decode step of the running batch
  double tpot_s = 0;               // decode step time
  double output_tokens_per_s = 0;  // per replica (the ep x tp GPUs)
  double output_tokens_per_s_per_gpu = 0;
};

// `sequences` = 0 means max load: as many as the KV cache holds. When the weights leave no room for one
// sequence the estimate has weights_fit false, sequences 0, missing_bytes_per_gpu set and no times.
[[nodiscard]] Result<InferenceEstimate> estimate_inference(const PerfHardware& hardware,
                                                           const CollectiveModel& collectives,
                                                           const InferenceConstants& constants,
                                                           const InferenceSetup& setup, int sequences);

// One engine iteration of a mixed batch on one replica, for `perf serve`'s engine simulation
// (serve/engine.hpp): `prefill_tokens` new prompt tokens and `decode_sequences` decoding sequences, timed
// with the same physics as estimate_inference (matrix FLOPs and attention over the tokens' contexts, weights
// and the decoding sequences' KV cache from HBM, TP all-reduces and EP all-to-alls, host time per sequence).
// Chunked prefill's reads of the earlier chunks' KV cache are left out (one read per chunk, small beside the
// weights).
// Seconds of an iteration that depend on one whole token count only (the tokens of the busiest attention
// group, or of the replica), kept by an IterationModel as it computes them. The same figure whichever thread
// computed it first (every entry is the same pure function of its key), so results are identical with and
// without the cache.
class TokenCountCache {
 public:
  explicit TokenCountCache(std::size_t tokens);
  // The cached seconds for `tokens`, computed by `compute` the first time; computed every time for a
  // fractional count or one beyond the cache.
  template <class Compute>
  [[nodiscard]] double seconds(double tokens, Compute compute) const {
    const auto key = static_cast<std::size_t>(tokens);
    if (tokens < 0 || static_cast<double>(key) != tokens || key >= size_) return compute();
    std::atomic<double>& entry = seconds_[key];
    double value = entry.load(std::memory_order_relaxed);
    if (value < 0) {
      value = compute();
      entry.store(value, std::memory_order_relaxed);
    }
    return value;
  }

 private:
  std::size_t size_ = 0;
  std::unique_ptr<std::atomic<double>[]> seconds_;  // -1 = not computed yet
};

// What an IterationModel keeps between iterations (a capacity search times millions of them): the model's
// matrix FLOPs per token other than the routed experts' (a sum over its layers, recomputed per iteration
// before), and by token count the iteration's communication (the collective cost model: TP all-reduces, EP
// all-to-alls, PP sends; by the busiest group's tokens), the routed experts' GEMM time and the weights read
// from HBM (both by the replica's tokens, through the expected experts hit). Pure functions of their keys.
struct IterationFigures {
  explicit IterationFigures(std::size_t tokens)
      : communication(tokens), routed_expert_compute(tokens), weight_memory(tokens) {}
  double other_matrix_flops_per_token = 0;
  TokenCountCache communication;
  TokenCountCache routed_expert_compute;
  TokenCountCache weight_memory;
};

class IterationModel {
 public:
  // Checks the setup as estimate_inference does; an error when the weights leave no room for one sequence.
  // `cache_figures` false computes every iteration's figures afresh (to check IterationFigures).
  [[nodiscard]] static Result<IterationModel> make(const PerfHardware& hardware,
                                                   const CollectiveModel& collectives,
                                                   const InferenceConstants& constants,
                                                   const InferenceSetup& setup, bool cache_figures = true);
  [[nodiscard]] double kv_capacity_tokens() const { return kv_capacity_tokens_; }  // of the replica
  [[nodiscard]] const InferenceEstimate& steady_state() const { return steady_; }  // at one sequence
  [[nodiscard]] StepTime iteration(double prefill_tokens, double prefill_context_tokens, int decode_sequences,
                                   double decode_context_tokens) const;

 private:
  IterationModel(PerfHardware hardware, CollectiveModel collectives, InferenceConstants constants,
                 InferenceSetup setup, Roofline roofline)
      : hardware_(std::move(hardware)),
        collectives_(std::move(collectives)),
        constants_(constants),
        setup_(std::move(setup)),
        roofline_(std::move(roofline)) {}
  PerfHardware hardware_;
  CollectiveModel collectives_;
  InferenceConstants constants_;
  InferenceSetup setup_;
  Roofline roofline_;
  double kv_capacity_tokens_ = 0;
  InferenceEstimate steady_;
  std::shared_ptr<const IterationFigures> figures_;  // shared by copies: the same setup
};

}  // namespace gputwin
