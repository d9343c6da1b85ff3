#include "gputwin/perf/memory.hpp"

#include <algorithm>

namespace gputwin {
namespace {

// One layer's weights as model.cpp counts them (all taken as split over t: the norms and the few biases that
// Megatron replicates are under 0.1 % of a layer).
double layer_parameters(const TransformerModel& m) {
  TransformerModel one_layer = m;
  one_layer.layers = 1;
  one_layer.vocab = 0;
  one_layer.position_embeddings = 0;
  return one_layer.parameters() - (m.biases ? 2.0 : 1.0) * m.hidden;  // minus the final norm
}

double embedding_parameters(const TransformerModel& m) {
  return static_cast<double>(m.vocab) * m.hidden + static_cast<double>(m.position_embeddings) * m.hidden;
}

// In-flight micro-batches whose activations the first stage holds (1F1B warm-up of p, fewer when m < p),
// times Megatron's interleaving penalty.
double stages_in_flight(const TrainingConfig& config) {
  const double p = config.pp;
  const double in_flight = std::min<double>(p, std::max(1, config.micro_batches()));
  const double interleave_penalty = config.virtual_stages > 1 ? 1 + (p - 1) / (p * config.virtual_stages) : 1;
  return in_flight * interleave_penalty;
}

}  // namespace

double parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config) {
  const double layers_per_stage = config.layers_per_stage(model);
  const double stage_layers = layers_per_stage * layer_parameters(model);
  const double input_embedding = embedding_parameters(model);
  const double output_layer = static_cast<double>(model.vocab) * model.hidden;
  // With one stage both ends sit together (once when tied); otherwise the larger end stage is the worst.
  const double ends = config.pp == 1 ? input_embedding + (model.tied_embeddings ? 0 : output_layer)
                                     : std::max(input_embedding, output_layer);
  return (stage_layers + ends) / config.tp;
}

ModelStateBytes model_state_bytes(int zero_stage, double gradient_bytes, int shards) {
  // bf16 weights; fp32 master weights, Adam momentum and variance (4 + 4 + 4).
  constexpr double kWeightBytes = 2;
  constexpr double kOptimizerBytes = 12;
  const double d = std::max(1, shards);
  ModelStateBytes bytes;
  bytes.weights = zero_stage >= 3 ? kWeightBytes / d : kWeightBytes;
  bytes.gradients = zero_stage >= 2 ? gradient_bytes / d : gradient_bytes;
  bytes.optimizer = zero_stage >= 1 ? kOptimizerBytes / d : kOptimizerBytes;
  return bytes;
}

double activation_bytes_per_layer(const TransformerModel& model, const TrainingConfig& config) {
  const double s = static_cast<double>(config.sequence) / config.cp;
  const double b = config.micro_batch, h = model.hidden, a = model.heads, t = config.tp;
  const double sbh = s * b * h;
  const bool sp = config.sequence_parallel && config.tp > 1;
  if (config.recompute == Recompute::full) return 2 * sbh / (sp ? t : 1);  // each layer's input only
  const double unsplit = 10;
  const double kv_share = static_cast<double>(model.kv_heads) / model.heads;
  const double mlp = (model.gated_mlp ? 8.0 : 4.0) * model.ffn_hidden / h;
  const double split = 4 + 4 * kv_share + mlp;
  const bool scores_stored = config.attention == Attention::unfused && config.recompute == Recompute::none;
  const double scores = scores_stored ? 5 * a * s / h : 0;
  return sbh * ((sp ? unsplit / t : unsplit) + (split + scores) / t);
}

MemoryFootprint training_memory(const TransformerModel& model, const TrainingConfig& config,
                                ByteSize capacity) {
  MemoryFootprint m;
  m.capacity = capacity;
  m.parameters_per_gpu = parameters_per_gpu(model, config);
  const auto bytes = model_state_bytes(config.zero, config.gradient_bytes, config.dp * config.cp);
  m.weights = ByteSize::from_base(bytes.weights * m.parameters_per_gpu);
  m.gradients = ByteSize::from_base(bytes.gradients * m.parameters_per_gpu);
  m.optimizer_states = ByteSize::from_base(bytes.optimizer * m.parameters_per_gpu);
  const double layers_per_stage = config.layers_per_stage(model);
  double activations =
      activation_bytes_per_layer(model, config) * layers_per_stage * stages_in_flight(config);
  if (config.recompute == Recompute::full) {
    // Recomputing a layer materialises its full activations once more, for one micro-batch.
    TrainingConfig stored = config;
    stored.recompute = Recompute::none;
    activations += activation_bytes_per_layer(model, stored);
  }
  m.activations = ByteSize::from_base(activations);
  return m;
}

ByteSize kv_cache_per_gpu(const TransformerModel& model, double tokens, int sequences,
                          double bytes_per_element, int tp) {
  // Latent attention caches one latent per token that every head's up-projection reads: each TP rank keeps
  // all of it (vLLM and SGLang replicate the MLA cache across TP ranks), so TP does not divide it.
  const double kv_split = model.is_latent_attention() ? 1.0 : std::min(tp, std::max(1, model.kv_heads));
  return ByteSize::from_base(model.kv_cache_bytes_per_token(bytes_per_element) * tokens * sequences /
                             kv_split);
}

}  // namespace gputwin
