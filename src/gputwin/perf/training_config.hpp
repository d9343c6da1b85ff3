// How a transformer is trained: batch, parallel split and the memory-saving choices. Memory and step time are
// computed from a model, this configuration and the hardware.
//
//   TrainingConfig config;
//   config.sequence = 8192; config.global_batch = 1024; config.micro_batch = 1;
//   config.tp = 8; config.pp = 8; config.dp = 0;   // 0: the GPUs left over (gpus / (tp pp cp))
//   config.recompute = Recompute::selective;
//   std::vector<std::string> problems = check_training_config(model, config, 4096);  // empty when valid
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/perf/model.hpp"

namespace gputwin {

enum class Recompute { none, selective, full };
enum class Attention {
  flash,
  unfused
};  // unfused: the a s^2 scores are written to memory (pre-2022 kernels)

[[nodiscard]] std::string_view recompute_name(Recompute recompute);
[[nodiscard]] std::optional<Recompute> recompute_from_name(std::string_view name);

struct TrainingConfig {
  int sequence = 2048;     // s, tokens per sequence
  int global_batch = 1;    // B, sequences per step
  int micro_batch = 1;     // b, sequences per micro-batch
  int tp = 1;              // tensor-parallel size t
  int pp = 1;              // pipeline-parallel size p
  int dp = 0;              // data-parallel size d; 0 = gpus / (t p c)
  int cp = 1;              // context-parallel size c (the sequence split over c GPUs)
  int virtual_stages = 1;  // v, model chunks per pipeline rank (interleaved 1F1B)
  int zero = 1;  // 0 = replicated optimizer; 1 = sharded optimizer (Megatron's distributed optimizer);
                 // 2 = + sharded gradients; 3 = + sharded weights (FSDP full shard)
  Recompute recompute = Recompute::selective;
  bool sequence_parallel = true;  // with t > 1, norms and dropout split over the tensor-parallel group
  Attention attention = Attention::flash;
  std::string precision = "bf16";     // the GEMM precision (gemm-efficiency.yaml: bf16, fp8, mxfp8, nvfp4)
  bool overlap_data_parallel = true;  // gradient reduction overlaps the backward pass (Megatron
                                      // --overlap-grad-reduce); off in the 2021-2022 papers' runs
  double gradient_bytes = 4;  // bytes per gradient element: 4 = fp32 main gradients (Megatron), 2 = fp16
                              // gradients (the ZeRO paper's accounting)

  // Step-time model choices (perf/training.cpp; branch step-model).
  int ep = 1;  // expert-parallel size (MoE), folded inside data parallelism as Megatron does; the same field
               // as branch memory-search adds: keep one when merging
  double expert_load_imbalance = 1.0;  // tokens on the busiest GPU's experts / the balanced share (1 = force-
                                       // balanced, as NVIDIA's MoE tables footnote)
  bool tp_comm_overlap = false;  // tensor-parallel collectives overlapped with the GEMMs they feed (Megatron
                                 // --tp-comm-overlap with userbuffers, torchtitan async TP)

  [[nodiscard]] int model_parallel() const { return tp * pp * cp; }
  [[nodiscard]] int gpus() const { return model_parallel() * dp; }
  [[nodiscard]] int micro_batches() const { return global_batch / (micro_batch * dp); }  // m per pipeline
  // Layers on the most loaded pipeline rank: ceil(l / (p v)) per model chunk, v chunks (uneven splits put the
  // remainder on fewer ranks, as Megatron's uneven pipeline options and Llama 3's 126 layers on 16 stages
  // do).
  [[nodiscard]] int layers_per_stage(const TransformerModel& model) const {
    const int chunks = pp * virtual_stages;
    return (model.layers + chunks - 1) / chunks * virtual_stages;
  }
};

// Fills dp from the GPU count when it is 0. Returns what is wrong (empty when the split is possible): tensor
// parallelism must divide the heads (and kv heads), pipeline stages x virtual stages must not exceed the
// layers, GPUs must be the product t p c d, the global batch divisible by b d.
[[nodiscard]] std::vector<std::string> check_training_config(const TransformerModel& model,
                                                             TrainingConfig& config, int gpus);

}  // namespace gputwin
