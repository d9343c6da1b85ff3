// Memory per GPU of a training run (or of an inference KV cache): model states by ZeRO stage, activations by
// Korthikanti et al.'s Table 2 rules, and the verdict against the accelerator's memory.
//
//   MemoryFootprint m = training_memory(model, config, hw.accelerator.memory);
//   if (!m.fits()) std::cout << "OOM by " << in_gigabytes(m.total() - m.capacity) << " GB\n";
//   double per_layer = activation_bytes_per_layer(model, config);  // bytes, one micro-batch, one GPU
//   Result<MemoryReserve> reserve = load_memory_reserve(bundled_data_dir() + "/perf/memory.yaml");
//   config.memory_reserve = reserve.value().per_gpu(hw.accelerator.memory);  // what training_memory adds
//
// Conventions (each a published rule):
//   model states per parameter: 2 bytes of bf16 weights + gradient_bytes + 12 bytes of fp32 Adam state
//   (master copy, momentum, variance): 18 with fp32 main gradients (Megatron), 16 with fp16 gradients (ZeRO).
//   ZeRO-1 (Megatron's distributed optimizer) shards the 12 over d x c; ZeRO-2 also the gradients; ZeRO-3 /
//   FSDP also the weights. Activations: Korthikanti Table 2 generalised to grouped-query attention and gated
//   MLPs (see activation_bytes_per_layer). Every pipeline rank r is counted and the most loaded one reported:
//   its own layers (layers_on_rank: Llama 3's lighter first and last stages), the micro-batches it holds in
//   flight (1F1B: min(p - r, m); Megatron's interleaved schedule: min(m v, 2 (p - r - 1) + (v - 1) p + 1)
//   model chunks of l_r / v layers, which for rank 0 is Megatron's penalty 1 + (p - 1) / (p v)), the
//   embedding on the first rank, the output layer and one micro-batch of logits on the last. Plus the
//   per-GPU reserve (CUDA context, NCCL buffers, fragmentation) the config carries. ZeRO-3 / FSDP adds the
//   whole blocks it holds at once (config.fsdp_blocks, memory.yaml: PyTorch FSDP2 keeps two all-gather
//   outputs alive in forward and one block's unsharded gradient before its reduce-scatter), a block being
//   the largest transformer block's parameters on the GPU (largest_block_parameters_per_gpu).
#pragma once

#include <string>

#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/training_config.hpp"

namespace gputwin {

struct MemoryFootprint {
  ByteSize weights;
  ByteSize gradients;
  ByteSize optimizer_states;
  ByteSize activations;
  ByteSize output_logits;  // last pipeline stage: one micro-batch of logits (bf16 + fp32 for the loss)
  ByteSize kv_cache;
  ByteSize reserve;   // CUDA context, communication buffers, allocator fragmentation (not the model's)
  ByteSize capacity;  // the accelerator's memory
  double parameters_per_gpu = 0;
  int pipeline_rank = 0;  // the most loaded pipeline rank, whose figures these are
  // Of weights and gradients, ZeRO-3's whole blocks (TrainingConfig::fsdp_blocks): the gathered bf16 weights
  // of the blocks alive at once and the unsharded gradient before its reduce-scatter. Zero below ZeRO-3.
  ByteSize gathered_weights;
  ByteSize unsharded_gradients;

  [[nodiscard]] ByteSize total() const {
    return weights + gradients + optimizer_states + activations + output_logits + kv_cache + reserve;
  }
  [[nodiscard]] bool fits() const { return total() <= capacity; }
  [[nodiscard]] ByteSize margin() const { return capacity - total(); }  // negative when it does not fit
};

// Parameters held by the most loaded GPU: its pipeline stage's layers split over t, plus the embedding or
// output layer of a first or last stage.
[[nodiscard]] double parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config);
// Of parameters_per_gpu, the routed experts' (over ep x expert tp): Megatron reduces their gradients over the
// expert-data-parallel group, not the data-parallel one. Zero for a dense model.
[[nodiscard]] double expert_parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config);
// Parameters on pipeline rank `rank` (its layers, the embedding on rank 0, the output layer on the last),
// over t.
[[nodiscard]] double parameters_on_rank(const TransformerModel& model, const TrainingConfig& config,
                                        int rank);

// Parameters of the largest transformer block on one GPU (its dense part over t, its routed experts over ep
// x expert tp): what FSDP gathers whole when it runs that block (ZeRO-3's unit, one block: torchtitan wraps
// each TransformerBlock in its own fully_shard).
[[nodiscard]] double largest_block_parameters_per_gpu(const TransformerModel& model,
                                                      const TrainingConfig& config);

// Micro-batch activations (in layers' worth of one micro-batch) that pipeline rank `rank` holds at its peak.
[[nodiscard]] double activation_layers_in_flight(const TransformerModel& model, const TrainingConfig& config,
                                                 int rank);

// The per-GPU memory a training process cannot give the model (data/perf/memory.yaml, each part with its
// source): the CUDA context, NCCL's communication buffers, and the caching allocator's fragmentation as a
// share of the GPU's memory.
struct MemoryReserve {
  ByteSize cuda_context;
  ByteSize nccl_buffers;           // NCCL_BUFFSIZE x channels x peers x communicators (the file's factors)
  double fragmentation_share = 0;  // of the accelerator's memory
  std::string source;
  // Not a reserve, but in the same file: the whole blocks FSDP (ZeRO-3) holds at once (memory.yaml fsdp);
  // callers copy it into TrainingConfig::fsdp_blocks beside the reserve.
  FsdpLiveBlocks fsdp_blocks;

  [[nodiscard]] ByteSize per_gpu(ByteSize capacity) const {
    return cuda_context + nccl_buffers + ByteSize::from_base(fragmentation_share * capacity.base());
  }
};
[[nodiscard]] Result<MemoryReserve> load_memory_reserve(const std::string& path);

// Model-state bytes per parameter for a ZeRO stage, `shards` = GPUs sharing the optimizer (d x c).
struct ModelStateBytes {
  double weights = 0, gradients = 0, optimizer = 0;
  [[nodiscard]] double total() const { return weights + gradients + optimizer; }
};
[[nodiscard]] ModelStateBytes model_state_bytes(int zero_stage, double gradient_bytes, int shards);

// Stored activations of one transformer layer for one micro-batch on one GPU, in bytes (16-bit activations).
// Korthikanti Table 2 for a GPT layer: s b h (34 + 5 a s / h) without parallelism, whose 34 splits into 10
// bytes per s b h that tensor parallelism does not split (layer and MLP inputs, dropout masks, norm inputs)
// and 24 that it does (Q, K, V, attention output, 2 x 4h MLP tensors). Generalised: the K and V part scales
// with kv_heads / heads and the MLP part with ffn / h; a gated MLP stores 3 ffn-wide tensors (the fused
// SwiGLU's input, gate and up together, and its output, the down projection's input: Megatron Core's
// fused_bias_swiglu saves its input for the backward pass) instead of 2; flash attention never stores the
// 5 a s / h scores; sequence parallelism splits the 10 too; context parallelism divides s. Models that train
// without dropout (gated-MLP, Llama-style shapes: their config.json sets no dropout) store no dropout masks:
// 8 unsplit instead of 10.
[[nodiscard]] double activation_bytes_per_layer(const TransformerModel& model, const TrainingConfig& config);

[[nodiscard]] MemoryFootprint training_memory(const TransformerModel& model, const TrainingConfig& config,
                                              ByteSize capacity);

// KV cache of `sequences` sequences of `tokens` each on one GPU of a tensor-parallel group of `tp` (the kv
// heads split over t; replicated when t exceeds them; a latent-attention (MLA) cache is whole on every rank).
[[nodiscard]] ByteSize kv_cache_per_gpu(const TransformerModel& model, double tokens, int sequences,
                                        double bytes_per_element, int tp);

}  // namespace gputwin
