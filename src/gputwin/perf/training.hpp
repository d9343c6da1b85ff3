// Step time of transformer training on a cluster, with the terms that make it, tokens/s, MFU and HFU, and the
// memory per GPU.
//
//   Result<TrainingCalibration> calibration = load_training_calibration(bundled_data_dir() +
//   "/perf/training-model.yaml");   // also reads gemm-efficiency.yaml next to it
//   TrainingEstimate e = estimate_training(hw, collectives, calibration.value(), model, config);
//   e.step_time_s, e.tokens_per_second, e.mfu, e.hfu, e.memory.fits(), e.terms (for --explain)
//
// The model, per pipeline stage and micro-batch, on the most loaded GPU (the last stage: its layers plus the
// output layer):
//   compute     = every weight GEMM of every layer with its real per-GPU shape (tokens x (q+2kv)/t x h, ...),
//                 forward, dgrad and wgrad, timed by the GEMM model (gemm_model.hpp: datasheet peak and
//                 bandwidth, one fitted fraction per architecture); flash attention by sequence length
//                 (causal half + diagonal tiles, backward 2.5x forward, bf16); the output layer in bf16; for
//                 FP8 / MXFP8 / NVFP4 the casts of every quantised operand at memory bandwidth; elementwise
//                 traffic (elementwise_traffic x the layer's stored-activation bytes, Korthikanti Table 2) at
//                 memory bandwidth;
//   tensor / context parallel communication: NCCL collectives (collectives.hpp) on the group's GPUs; tensor
//                 parallel, when tp_comm_overlap, each collective hidden only behind the GEMM its
//                 framework pairs it with (tp_overlap.hpp: Transformer Engine's userbuffers for Megatron,
//                 PyTorch's fused ops for torchtitan's async TP), context parallel (ring attention) behind
//                 the attention kernels;
//   pipeline: (m + (p - 1)/v) stage times (bubble (p - 1)/(v m)), plus one send and one receive per
//   micro-batch and model chunk;
//   data parallel: gradient reduce-scatter (or all-reduce) and weight all-gather after the last backward
//   pass, exposed (overlap_data_parallel hides it behind the last micro-batch's backward pass; FSDP / ZeRO-3
//   re-gathers per micro-batch are prefetched behind that micro-batch's compute); optimizer: the Adam update
//   reads and writes the sharded fp32 state once, at memory bandwidth.
// The GEMM model's per-architecture fractions are the only fitted numbers (data/perf/gemm-efficiency.yaml,
// fitted on the fit set by fit_gemm_calibration in training_runs.hpp).
//
// FLOP convention (stated with every MFU): model FLOPs = 3 x forward FLOPs of every GEMM (2 per multiply-add)
// plus the attention scores and values over the whole s x s square (4 s h per token and layer) plus the
// output layer, with no recomputation: for a GPT shape exactly 72 B s l h^2 (1 + s/(6h) + V/(12 h l))
// (Korthikanti et al.); for grouped-query attention and gated MLPs the same rule over their own matrices. HFU
// adds the recomputed forward work (full: every layer's forward; selective: the attention scores and values).
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/gemm_model.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/pytorch_eager.hpp"
#include "gputwin/perf/training_config.hpp"

namespace gputwin {

// What the step-time model reads besides the hardware: the GEMM model (its per-architecture fractions are the
// fitted numbers) and the elementwise-traffic rule. See data/perf/training-model.yaml and
// gemm-efficiency.yaml.
struct TrainingCalibration {
  GemmModel gemm;
  double elementwise_traffic =
      0;  // bytes moved per stored-activation byte in one forward pass (a rule, not fitted)
  // How Megatron's recipes run the forward reduce-scatters under Transformer Engine's userbuffers
  // (training-model.yaml userbuffers_reduce_scatter, with its source): the GEMM split into this many chunks
  // ("pipeline"; below 1 counts as one), or, in low-precision recipes when set, one chunk per rank ("ring
  // exchange").
  double userbuffers_pipeline_splits = 0;
  bool userbuffers_low_precision_ring_exchange = false;
  // Seconds the GPU waits on the host per MoE layer and pass (forward, backward): Megatron's token
  // dispatchers copy the per-expert token counts to the host and synchronise before the all-to-all and the
  // grouped GEMMs can be launched, so the kernels after that point are issued while the GPU idles. Fitted on
  // the MoE fit rows (fit_gemm_calibration), 0 = none.
  double moe_layer_host_s = 0;
  // The same wait where the recipe captures the MoE router and the dispatcher's preprocessing in CUDA graphs
  // (TrainingConfig::moe_cuda_graphs): the host issues those parts as graph replays, not kernel by kernel.
  // Fitted on the MoE fit rows whose recipes do so, 0 = none.
  double moe_layer_host_graphed_s = 0;
  // Bytes per element of the routed rows x hidden that applying the experts' output bias moves, forward and
  // backward, where the model's linear layers carry biases (Megatron's TEGroupedMLP._apply_bias, eager ops;
  // training-model.yaml moe_expert_output_bias). 0 = not charged.
  double expert_bias_forward_bytes = 0, expert_bias_backward_bytes = 0;
  // PyTorch eager mode's elementwise ops against torch.compile's fused regions (training-model.yaml
  // pytorch_eager_ops): read for configs with compiled false.
  EagerOpTable eager_ops;
  std::string source;  // how the values were obtained
};

// Reads `path` (training-model.yaml) and gemm-efficiency.yaml in the same folder.
[[nodiscard]] Result<TrainingCalibration> load_training_calibration(const std::string& path);

struct TimeTerm {
  std::string name;    // "compute", "tensor-parallel communication", "pipeline bubble", ...
  double seconds = 0;  // its share of one step
  std::string rule;    // how it was computed, for --explain
};

struct TrainingEstimate {
  TrainingConfig config;  // with dp filled in
  double step_time_s = 0;
  std::vector<TimeTerm> terms;  // they add up to step_time_s
  // The "compute" and "recompute" terms split by kind (dense GEMMs, grouped expert GEMMs, attention kernels,
  // elementwise traffic, casts, MoE permute, MoE host wait, output layer): they add up to those two terms.
  std::vector<TimeTerm> compute_parts;
  double tokens_per_second = 0;
  double model_flops_per_step = 0;     // the convention above
  double hardware_flops_per_step = 0;  // + recomputation
  double mfu = 0;                      // model FLOPs / (step time x GPUs x dense peak of config.precision)
  double hfu = 0;
  double peak_flops_per_gpu = 0;
  double attention_s = 0;      // of step_time_s: the attention kernels (forward, backward, recomputed), their
                               // share of the bubble included (for the validation harness's diagnosis)
  std::string attention_rule;  // how attention was timed ("hopper cudnn kernel table" or the rule)
  std::string efficiency_rule;  // the GEMM model row used ("hopper: 0.600 of peak ..."), for --explain
  MemoryFootprint memory;
};

// FLOPs of one training step by the convention above (recompute counted when `with_recompute`).
// Key and value elements per token and layer one GPU holds for its heads: what context parallelism
// exchanges (MLA: the up-projected per-head keys and values, not the latent; see training.cpp).
[[nodiscard]] double context_parallel_kv_elements_per_token(const TransformerModel& model, int tp);

[[nodiscard]] double training_flops_per_step(const TransformerModel& model, const TrainingConfig& config,
                                             bool with_recompute);

// Bytes one GPU hands to the expert-parallel all-to-all in one MoE layer's token dispatch and pass (the
// combine returns as many); 0 for a dense model or ep 1. The flex dispatcher (config.expert_dispatch_dedup)
// sends a token once per destination rank inside an NVLink domain and once per node across nodes
// (training.cpp).
[[nodiscard]] double expert_dispatch_bytes(const PerfHardware& hardware, const TransformerModel& model,
                                           const TrainingConfig& config);

// The config must have passed check_training_config (dp filled in) and name a precision the accelerator has.
// An accelerator whose architecture has no GEMM fraction (gemm-efficiency.yaml: unknown) gets an infinite
// step time and efficiency_rule saying why.
[[nodiscard]] TrainingEstimate estimate_training(const PerfHardware& hardware,
                                                 const CollectiveModel& collectives,
                                                 const TrainingCalibration& calibration,
                                                 const TransformerModel& model, const TrainingConfig& config);

}  // namespace gputwin
