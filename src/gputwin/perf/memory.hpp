// Memory per GPU of a training run (or of an inference KV cache): model states by ZeRO stage, activations by
// Korthikanti et al.'s Table 2 rules, and the verdict against the accelerator's memory.
//
//   MemoryFootprint m = training_memory(model, config, hw.accelerator.memory);
//   if (!m.fits()) std::cout << "OOM by " << in_gigabytes(m.total() - m.capacity) << " GB\n";
//   double per_layer = activation_bytes_per_layer(model, config);  // bytes, one micro-batch, one GPU
//
// Conventions (each a published rule):
//   model states per parameter: 2 bytes of bf16 weights + gradient_bytes + 12 bytes of fp32 Adam state
//   (master copy, momentum, variance): 18 with fp32 main gradients (Megatron), 16 with fp16 gradients (ZeRO).
//   ZeRO-1 (Megatron's distributed optimizer) shards the 12 over d x c; ZeRO-2 also the gradients; ZeRO-3 /
//   FSDP also the weights. Activations: Korthikanti Table 2 generalised to grouped-query attention and gated
//   MLPs (see activation_bytes_per_layer); the first pipeline stage holds min(p, m) micro-batches (1F1B) with
//   the interleaving penalty 1 + (p - 1) / (p v) of Megatron's estimator.
#pragma once

#include "gputwin/core/units.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/training_config.hpp"

namespace gputwin {

struct MemoryFootprint {
  ByteSize weights;
  ByteSize gradients;
  ByteSize optimizer_states;
  ByteSize activations;
  ByteSize kv_cache;
  ByteSize capacity;  // the accelerator's memory
  double parameters_per_gpu = 0;

  [[nodiscard]] ByteSize total() const {
    return weights + gradients + optimizer_states + activations + kv_cache;
  }
  [[nodiscard]] bool fits() const { return total() <= capacity; }
  [[nodiscard]] ByteSize margin() const { return capacity - total(); }  // negative when it does not fit
};

// Parameters held by the most loaded GPU: its pipeline stage's layers split over t, plus the embedding or
// output layer of a first or last stage.
[[nodiscard]] double parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config);

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
// with kv_heads / heads and the MLP part with ffn / h, doubled for a gated MLP (gate, up, activation,
// product); flash attention never stores the 5 a s / h scores; sequence parallelism splits the 10 too;
// context parallelism divides s.
[[nodiscard]] double activation_bytes_per_layer(const TransformerModel& model, const TrainingConfig& config);

[[nodiscard]] MemoryFootprint training_memory(const TransformerModel& model, const TrainingConfig& config,
                                              ByteSize capacity);

// KV cache of `sequences` sequences of `tokens` each on one GPU of a tensor-parallel group of `tp` (the kv
// heads split over t; replicated when t exceeds them; a latent-attention (MLA) cache is whole on every rank).
[[nodiscard]] ByteSize kv_cache_per_gpu(const TransformerModel& model, double tokens, int sequences,
                                        double bytes_per_element, int tp);

}  // namespace gputwin
