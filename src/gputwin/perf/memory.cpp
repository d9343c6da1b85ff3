#include "gputwin/perf/memory.hpp"

#include <algorithm>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

// One transformer layer's parameters, on average over the layers: the part tensor parallelism splits and
// the routed experts (expert parallelism splits those; zero for a dense model). For a dense model this is
// model.cpp's count of one layer; for MoE models the dense layers and the shared experts are averaged in. All
// of it is taken as split over t (the norms and the few biases Megatron replicates are under 0.1 %).
struct LayerParameters {
  double dense = 0;
  double experts = 0;
};

double embedding_parameters(const TransformerModel& m);

LayerParameters layer_parameters(const TransformerModel& m) {
  const double output_layer = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * m.hidden;
  const double final_norm = (m.norm_bias() ? 2.0 : 1.0) * m.hidden;
  const double all_layers = m.parameters() - embedding_parameters(m) - output_layer - final_norm;
  const double experts =
      m.is_moe() ? static_cast<double>(m.moe_layer_count()) * m.moe.experts * m.expert_matrix_parameters()
                 : 0;
  return {(all_layers - experts) / m.layers, experts / m.layers};
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
  root.expect_keys({"cuda_context", "nccl_buffers", "fragmentation", "fsdp", "source", "notes"});
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
  const YamlField fsdp = root.child("fsdp");
  fsdp.expect_keys({"unit", "gathered_blocks_alive", "unsharded_gradient_blocks", "source"});
  reserve.fsdp_blocks.gathered_weights = fsdp.child("gathered_blocks_alive").positive_integer();
  reserve.fsdp_blocks.unsharded_gradients = fsdp.child("unsharded_gradient_blocks").positive_integer();
  return reserve;
}

}  // namespace

Result<MemoryReserve> load_memory_reserve(const std::string& path) {
  return result_of<MemoryReserve>([&] { return read_reserve(path); });
}

namespace {

// A rank's parameters per GPU: the dense part over t; the routed experts over ep x t (Megatron's expert
// tensor parallel size defaults to t).
LayerParameters rank_parameters(const TransformerModel& model, const TrainingConfig& config, int rank,
                                const LayerParameters& per_layer) {
  const double layers = layers_on_rank(model, config, rank);
  const double stage_layers = layers * per_layer.dense;
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
  return {(stage_layers + ends) / config.tp, layers * per_layer.experts / (config.ep * config.expert_tp())};
}

double total(const LayerParameters& p) {
  return p.dense + p.experts;
}

}  // namespace

double parameters_on_rank(const TransformerModel& model, const TrainingConfig& config, int rank) {
  return total(rank_parameters(model, config, rank, layer_parameters(model)));
}

double parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config) {
  const LayerParameters per_layer = layer_parameters(model);
  double most = 0;
  for (int rank = 0; rank < config.pp; ++rank) {
    most = std::max(most, total(rank_parameters(model, config, rank, per_layer)));
  }
  return most;
}

double expert_parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config) {
  const LayerParameters per_layer = layer_parameters(model);
  double most = 0, experts = 0;
  for (int rank = 0; rank < config.pp; ++rank) {
    const LayerParameters p = rank_parameters(model, config, rank, per_layer);
    if (total(p) > most) {
      most = total(p);
      experts = p.experts;
    }
  }
  return experts;
}

double largest_block_parameters_per_gpu(const TransformerModel& model, const TrainingConfig& config) {
  // What layer_parameters averages, taken apart by block kind: norms and biases (the remainder) on every
  // block; a dense block's MLP or a MoE block's shared experts, router and routed experts.
  const double attention = model.attention_matrix_parameters();
  const double routed = model.is_moe() ? model.moe.experts * model.expert_matrix_parameters() : 0.0;
  const double moe_rest = model.shared_expert_matrix_parameters() + model.router_parameters();
  const LayerParameters average = layer_parameters(model);
  const double all_layers = (average.dense + average.experts) * model.layers;
  const double remainder = (all_layers - model.layers * attention -
                            model.dense_layer_count() * model.dense_mlp_matrix_parameters() -
                            model.moe_layer_count() * (moe_rest + routed)) /
                           model.layers;
  double largest = 0;
  if (model.dense_layer_count() > 0) {
    largest = (attention + model.dense_mlp_matrix_parameters() + remainder) / config.tp;
  }
  if (model.moe_layer_count() > 0) {
    largest = std::max(
        largest, (attention + moe_rest + remainder) / config.tp + routed / (config.ep * config.expert_tp()));
  }
  return largest;
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
  // The MLP width a token passes through, averaged over the layers: dense layers ffn; MoE layers top-k routed
  // experts and the shared experts (each GPU stores its own tokens' share after dispatch, balanced routing).
  const double moe_width =
      model.is_moe() ? static_cast<double>(model.moe.experts_per_token) * model.moe.expert_ffn_hidden +
                           static_cast<double>(model.moe.shared_experts) * model.moe.shared_expert_ffn_hidden
                     : 0.0;
  const double ffn = (static_cast<double>(model.dense_layer_count()) * model.ffn_hidden +
                      model.moe_layer_count() * moe_width) /
                     model.layers;
  const double mlp = (model.gated_mlp ? 6.0 : 4.0) * ffn / h;
  const double split = 4 + 4 * kv_share + mlp;
  const bool scores_stored = config.attention == Attention::unfused && config.recompute == Recompute::none;
  const double scores = scores_stored ? 5 * a * s / h : 0;
  return sbh * ((sp ? unsplit / t : unsplit) + (split + scores) / t);
}

MemoryFootprint training_memory(const TransformerModel& model, const TrainingConfig& config,
                                ByteSize capacity) {
  // Routed experts' states shard over the expert data-parallel group, t c d / (ep etp) (d c / ep by default).
  const auto bytes = model_state_bytes(config.zero, config.gradient_bytes, config.dp * config.cp);
  const auto expert_bytes =
      model_state_bytes(config.zero, config.gradient_bytes,
                        std::max(1, config.tp * config.dp * config.cp / (config.ep * config.expert_tp())));
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
  const LayerParameters parameters_per_layer = layer_parameters(model);
  const auto parameters_on = [&](int rank) {
    return rank_parameters(model, config, rank, parameters_per_layer);
  };
  const auto state_bytes_on = [&](int rank) {
    const LayerParameters p = parameters_on(rank);
    return bytes.total() * p.dense + expert_bytes.total() * p.experts;
  };
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
  const LayerParameters held = parameters_on(worst_rank);
  worst.parameters_per_gpu = total(held);
  worst.weights = ByteSize::from_base(bytes.weights * held.dense + expert_bytes.weights * held.experts);
  worst.gradients = ByteSize::from_base(bytes.gradients * held.dense + expert_bytes.gradients * held.experts);
  worst.optimizer_states =
      ByteSize::from_base(bytes.optimizer * held.dense + expert_bytes.optimizer * held.experts);
  worst.output_logits = ByteSize::from_base(worst_rank == config.pp - 1 ? logits : 0);
  worst.activations = ByteSize::from_base(per_layer * activation_layers_in_flight(model, config, worst_rank) +
                                          recompute_peak);
  if (config.zero >= 3) {
    // FSDP's whole blocks come on top of the sharded states on every rank alike (weights bf16, gradients in
    // the reduce-scatter's element size), so the worst rank stays the worst.
    constexpr double kGatheredWeightBytes = 2;
    const double block = largest_block_parameters_per_gpu(model, config);
    worst.gathered_weights =
        ByteSize::from_base(config.fsdp_blocks.gathered_weights * kGatheredWeightBytes * block);
    worst.unsharded_gradients =
        ByteSize::from_base(config.fsdp_blocks.unsharded_gradients * config.gradient_bytes * block);
    worst.weights = worst.weights + worst.gathered_weights;
    worst.gradients = worst.gradients + worst.unsharded_gradients;
  }
  return worst;
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
