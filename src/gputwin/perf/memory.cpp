#include "gputwin/perf/memory.hpp"

#include <algorithm>

#include "gputwin/core/yaml_input.hpp"

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

// Bytes per logit element on the last stage: the bf16 logits and the fp32 copy the vocabulary-parallel cross
// entropy computes the softmax in (Megatron Core's vocab_parallel_cross_entropy upcasts to fp32).
constexpr double kLogitBytes = 2 + 4;

bool trains_with_dropout(const TransformerModel& m) {
  return !m.gated_mlp;
}

MemoryReserve read_reserve(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"cuda_context", "nccl_buffers", "fragmentation", "source", "notes"});
  MemoryReserve reserve;
  const YamlField context = root.child("cuda_context");
  context.expect_keys({"size", "source"});
  reserve.cuda_context = context.child("size").quantity<ByteSize>();
  const YamlField nccl = root.child("nccl_buffers");
  nccl.expect_keys({"buffer_size", "channels", "peers", "communicators", "source"});
  reserve.nccl_buffers = ByteSize::from_base(
      nccl.child("buffer_size").positive_quantity<ByteSize>().base() *
      static_cast<double>(nccl.child("channels").positive_integer() * nccl.child("peers").positive_integer() *
                          nccl.child("communicators").positive_integer()));
  const YamlField fragmentation = root.child("fragmentation");
  fragmentation.expect_keys({"share_of_memory", "source"});
  reserve.fragmentation_share = fragmentation.child("share_of_memory").number();
  if (reserve.fragmentation_share < 0 || reserve.fragmentation_share >= 1) {
    fragmentation.child("share_of_memory").fail("must be a share of the GPU's memory in [0, 1)");
  }
  reserve.source = root.child("source").text_or_list();
  return reserve;
}

}  // namespace

Result<MemoryReserve> load_memory_reserve(const std::string& path) {
  return result_of<MemoryReserve>([&] { return read_reserve(path); });
}

namespace {

double rank_parameters(const TransformerModel& model, const TrainingConfig& config, int rank,
                       double parameters_per_layer) {
  const double stage_layers = layers_on_rank(model, config, rank) * parameters_per_layer;
  const double input_embedding = embedding_parameters(model);
  const double output_layer = static_cast<double>(model.vocab) * model.hidden;
  double ends = 0;
  if (config.pp == 1) {
    ends = input_embedding + (model.tied_embeddings ? 0 : output_layer);  // both ends, once when tied
  } else if (rank == 0) {
    ends = input_embedding;
  } else if (rank == config.pp - 1) {
    ends = output_layer;  // tied embeddings are still held (and synchronised) by both end stages
  }
  return (stage_layers + ends) / config.tp;
}

}  // namespace

double parameters_on_rank(const TransformerModel& model, const TrainingConfig& config, int rank) {
  return rank_parameters(model, config, rank, layer_parameters(model));
}

double parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config) {
  const double parameters_per_layer = layer_parameters(model);
  double most = 0;
  for (int rank = 0; rank < config.pp; ++rank) {
    most = std::max(most, rank_parameters(model, config, rank, parameters_per_layer));
  }
  return most;
}

double activation_layers_in_flight(const TransformerModel& model, const TrainingConfig& config, int rank) {
  const double layers = layers_on_rank(model, config, rank);
  const int p = config.pp, v = config.virtual_stages;
  const int m = std::max(1, config.micro_batches());
  if (v == 1) return layers * std::min(p - rank, m);
  // Megatron's interleaved schedule: warm-up forward passes of (p - r - 1) 2 + (v - 1) p model chunks, one
  // more in the steady state, each chunk l_r / v layers; no more than the m v chunk passes there are.
  const int chunks = std::min(m * v, 2 * (p - rank - 1) + (v - 1) * p + 1);
  return layers / v * chunks;
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
  const double unsplit = trains_with_dropout(model) ? 10 : 8;              // two sbh dropout masks of 1 byte
  const double kv_share = static_cast<double>(model.kv_heads) / model.heads;
  const double mlp = (model.gated_mlp ? 6.0 : 4.0) * model.ffn_hidden / h;
  const double split = 4 + 4 * kv_share + mlp;
  const bool scores_stored = config.attention == Attention::unfused && config.recompute == Recompute::none;
  const double scores = scores_stored ? 5 * a * s / h : 0;
  return sbh * ((sp ? unsplit / t : unsplit) + (split + scores) / t);
}

MemoryFootprint training_memory(const TransformerModel& model, const TrainingConfig& config,
                                ByteSize capacity) {
  const auto bytes = model_state_bytes(config.zero, config.gradient_bytes, config.dp * config.cp);
  const double per_layer = activation_bytes_per_layer(model, config);
  double recompute_peak = 0;
  if (config.recompute == Recompute::full) {
    // Recomputing a layer materialises its full activations once more, for one micro-batch.
    TrainingConfig stored = config;
    stored.recompute = Recompute::none;
    recompute_peak = activation_bytes_per_layer(model, stored);
  }
  const double logits = static_cast<double>(config.sequence) / config.cp * config.micro_batch * model.vocab /
                        config.tp * kLogitBytes;
  // The ranks' totals first (cheap: the search asks for thousands of splits), the footprint of the worst.
  const double parameters_per_layer = layer_parameters(model);
  const auto parameters_on = [&](int rank) {
    return rank_parameters(model, config, rank, parameters_per_layer);
  };
  const auto state_bytes_on = [&](int rank) { return bytes.total() * parameters_on(rank); };
  const auto activation_bytes_on = [&](int rank) {
    return per_layer * activation_layers_in_flight(model, config, rank) + recompute_peak +
           (rank == config.pp - 1 ? logits : 0);
  };
  int worst_rank = 0;
  double worst_total = -1;
  for (int rank = 0; rank < config.pp; ++rank) {
    const double total = state_bytes_on(rank) + activation_bytes_on(rank);
    if (total > worst_total) {
      worst_total = total;
      worst_rank = rank;
    }
  }
  MemoryFootprint worst;
  worst.capacity = capacity;
  worst.reserve = config.memory_reserve;
  worst.pipeline_rank = worst_rank;
  worst.parameters_per_gpu = parameters_on(worst_rank);
  worst.weights = ByteSize::from_base(bytes.weights * worst.parameters_per_gpu);
  worst.gradients = ByteSize::from_base(bytes.gradients * worst.parameters_per_gpu);
  worst.optimizer_states = ByteSize::from_base(bytes.optimizer * worst.parameters_per_gpu);
  worst.output_logits = ByteSize::from_base(worst_rank == config.pp - 1 ? logits : 0);
  worst.activations = ByteSize::from_base(per_layer * activation_layers_in_flight(model, config, worst_rank) +
                                          recompute_peak);
  return worst;
}

ByteSize kv_cache_per_gpu(const TransformerModel& model, double tokens, int sequences,
                          double bytes_per_element, int tp) {
  const double kv_split = std::min(tp, model.kv_heads);
  return ByteSize::from_base(model.kv_cache_bytes_per_token(bytes_per_element) * tokens * sequences /
                             kv_split);
}

}  // namespace gputwin
