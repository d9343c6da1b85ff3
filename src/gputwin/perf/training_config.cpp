#include "gputwin/perf/training_config.hpp"

#include <algorithm>

#include "gputwin/perf/pytorch_eager.hpp"

namespace gputwin {

std::string_view recompute_name(Recompute recompute) {
  switch (recompute) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
    case Recompute::op_sac:
      return "op-sac";
  }
  return "none";
}

std::optional<Recompute> recompute_from_name(std::string_view name) {
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full, Recompute::op_sac}) {
    if (recompute_name(r) == name) return r;
  }
  return std::nullopt;
}

namespace {

// Megatron's rules for num_layers_in_first/last_pipeline_stage (megatron/training/arguments.py and
// get_transformer_layer_offset): at least two pipeline ranks; the given ranks' layers leave the middle ranks
// a whole number each; with v > 1 every rank's layers split evenly over its v model chunks.
void check_given_split(const TransformerModel& model, const TrainingConfig& c,
                       std::vector<std::string>& problems) {
  const auto text = [](int value) { return std::to_string(value); };
  if (c.pp < 2) {
    problems.push_back("first / last pipeline stage layers need at least 2 pipeline stages, got pp " +
                       text(c.pp));
    return;
  }
  const int given = (c.first_stage_layers > 0 ? 1 : 0) + (c.last_stage_layers > 0 ? 1 : 0);
  const int middle_ranks = c.pp - given;
  const int middle_layers = model.layers - c.first_stage_layers - c.last_stage_layers;
  if (middle_layers < 0 || (middle_ranks == 0 && middle_layers != 0) ||
      (middle_ranks > 0 && (middle_layers <= 0 || middle_layers % middle_ranks != 0))) {
    problems.push_back("first / last pipeline stage layers " + text(c.first_stage_layers) + " / " +
                       text(c.last_stage_layers) + " leave " + text(middle_layers) + " of the " +
                       text(model.layers) + " layers, not a whole number for each of the " +
                       text(middle_ranks) + " middle stages");
    return;
  }
  const int per_middle = middle_ranks > 0 ? middle_layers / middle_ranks : 0;
  for (const int layers : {c.first_stage_layers, c.last_stage_layers, per_middle}) {
    if (layers > 0 && layers % c.virtual_stages != 0) {
      problems.push_back("a pipeline stage of " + text(layers) + " layers does not split over " +
                         text(c.virtual_stages) + " virtual stages");
      return;
    }
  }
}

}  // namespace

std::vector<std::string> check_training_config(const TransformerModel& model, TrainingConfig& config,
                                               int gpus) {
  std::vector<std::string> problems;
  // The message is built only when the requirement fails (the search checks thousands of splits).
  auto require = [&](bool holds, auto&& problem) {
    if (!holds) problems.push_back(problem());
  };
  const auto text = [](int value) { return std::to_string(value); };
  for (auto [value, name] : {std::pair{config.tp, "tensor-parallel size"},
                             {config.pp, "pipeline-parallel size"},
                             {config.cp, "context-parallel size"},
                             {config.virtual_stages, "virtual stages"},
                             {config.micro_batch, "micro-batch"},
                             {config.global_batch, "global batch"},
                             {config.sequence, "sequence length"}}) {
    require(value >= 1, [&] { return std::string(name) + " must be at least 1, got " + text(value); });
  }
  require(config.dp >= 0, [&] { return "data-parallel size must be at least 1, got " + text(config.dp); });
  require(config.ep >= 1, [&] { return "expert-parallel size must be at least 1, got " + text(config.ep); });
  require(config.expert_load_imbalance >= 1, [&] {
    return "expert load imbalance must be at least 1 (1 = balanced routing), got " +
           std::to_string(config.expert_load_imbalance);
  });
  require(config.zero >= 0 && config.zero <= 3,
          [&] { return "ZeRO stage must be 0, 1, 2 or 3, got " + text(config.zero); });
  if (!problems.empty()) return problems;
  require(model.heads % config.tp == 0, [&] {
    return "tensor-parallel size " + text(config.tp) + " does not divide the " + text(model.heads) +
           " attention heads";
  });
  require(config.tp <= model.kv_heads || config.tp % model.kv_heads == 0, [&] {
    return "tensor-parallel size " + text(config.tp) + " neither divides nor is a multiple of the " +
           text(model.kv_heads) + " kv heads";
  });
  require(config.first_stage_layers >= 0 && config.last_stage_layers >= 0, [&] {
    return "first / last pipeline stage layers must not be negative, got " + text(config.first_stage_layers) +
           " / " + text(config.last_stage_layers);
  });
  require(config.ep == 1 || (model.is_moe() && model.moe.experts % config.ep == 0), [&] {
    return "expert-parallel size " + text(config.ep) + " does not divide the " + text(model.moe.experts) +
           " routed experts";
  });
  if (!config.compiled) {
    if (std::string why = eager_block_mismatch(model); !why.empty()) problems.push_back(std::move(why));
  }
  if (!problems.empty()) return problems;
  if (config.first_stage_layers > 0 || config.last_stage_layers > 0)
    check_given_split(model, config, problems);
  // With lighter ends the embedding and the loss each take a layer's place (a chunk may hold only them).
  const LayerSplit split = layer_split(model, config);
  const int places = model.layers + (split == LayerSplit::ends_lighter   ? 2
                                     : split == LayerSplit::last_lighter ? 1
                                                                         : 0);
  require(config.pp * config.virtual_stages <= places, [&] {
    return "pipeline stages x virtual stages (" + text(config.pp) + " x " + text(config.virtual_stages) +
           ") exceed the " + text(model.layers) + " layers";
  });
  require(config.sequence % config.cp == 0, [&] {
    return "context-parallel size " + text(config.cp) + " does not divide the sequence length " +
           text(config.sequence);
  });
  if (gpus > 0 && config.model_parallel() > gpus) {
    problems.push_back("tp x pp x cp = " + text(config.model_parallel()) + " exceeds the job's " +
                       text(gpus) + " GPUs");
    return problems;
  }
  if (config.dp == 0) config.dp = std::max(1, gpus / config.model_parallel());
  if (gpus > 0) {
    require(config.gpus() <= gpus, [&] {
      return "tp x pp x cp x dp = " + text(config.gpus()) + " but the job has " + text(gpus) + " GPUs";
    });
    config.idle_gpus = std::max(0, gpus - config.gpus());
  }
  // Megatron carves ep out of d x c; with MoE parallel folding (Megatron Core 0.10+, expert tensor-parallel
  // size 1) out of t x c x d, as Megatron-Bridge's Qwen3-235B H100 run does (ep 32 on t 2, d c 16).
  require((config.dp * config.cp) % config.ep == 0 || (config.tp * config.dp * config.cp) % config.ep == 0,
          [&] {
            return "expert-parallel size " + text(config.ep) +
                   " divides neither dp x cp = " + text(config.dp * config.cp) +
                   " nor tp x dp x cp = " + text(config.tp * config.dp * config.cp);
          });
  require(config.global_batch % (config.micro_batch * config.dp) == 0, [&] {
    return "global batch " + text(config.global_batch) +
           " is not divisible by micro-batch x dp = " + text(config.micro_batch * config.dp);
  });
  require(config.virtual_stages == 1 || config.micro_batches() % config.pp == 0, [&] {
    return "the interleaved schedule needs micro-batches per pipeline (" + text(config.micro_batches()) +
           ") to be a multiple of pp (" + text(config.pp) + ")";
  });
  return problems;
}

LayerSplit layer_split(const TransformerModel& model, int pp, int virtual_stages) {
  const int chunks = pp * virtual_stages;
  if (model.layers % chunks == 0) return LayerSplit::even;
  if (chunks > 1 && (model.layers + 2) % chunks == 0) return LayerSplit::ends_lighter;
  if (chunks > 1 && (model.layers + 1) % chunks == 0) return LayerSplit::last_lighter;
  return LayerSplit::uneven;
}

LayerSplit layer_split(const TransformerModel& model, const TrainingConfig& config) {
  if (config.first_stage_layers > 0 || config.last_stage_layers > 0) return LayerSplit::given;
  return layer_split(model, config.pp, config.virtual_stages);
}

std::string_view layer_split_name(LayerSplit split) {
  switch (split) {
    case LayerSplit::even:
      return "even";
    case LayerSplit::ends_lighter:
      return "first and last stage one layer fewer (embedding and loss counted as layers)";
    case LayerSplit::last_lighter:
      return "last stage one layer fewer (loss counted as a layer)";
    case LayerSplit::given:
      return "first / last stage layers given (Megatron num_layers_in_first/last_pipeline_stage)";
    case LayerSplit::uneven:
      return "uneven";
  }
  return "uneven";
}

int layers_on_rank(const TransformerModel& model, const TrainingConfig& config, int rank) {
  const int p = config.pp, v = config.virtual_stages;
  const bool first = rank == 0, last = rank == p - 1;
  switch (layer_split(model, config)) {
    case LayerSplit::given: {
      if (first && config.first_stage_layers > 0) return config.first_stage_layers;
      if (last && config.last_stage_layers > 0) return config.last_stage_layers;
      const int given = (config.first_stage_layers > 0 ? 1 : 0) + (config.last_stage_layers > 0 ? 1 : 0);
      return (model.layers - config.first_stage_layers - config.last_stage_layers) / (p - given);
    }
    case LayerSplit::even:
      return model.layers / p;
    case LayerSplit::ends_lighter:
      return (model.layers + 2) / (p * v) * v - (first ? 1 : 0) - (last ? 1 : 0);
    case LayerSplit::last_lighter:
      return (model.layers + 1) / (p * v) * v - (last ? 1 : 0);
    case LayerSplit::uneven:
      break;
  }
  // The remainder on the first ranks, chunk by chunk (Megatron's uneven split keeps the last ranks lighter).
  const int chunks = p * v, per_chunk = model.layers / chunks, extra = model.layers % chunks;
  int layers = 0;
  for (int chunk = 0; chunk < v; ++chunk) layers += per_chunk + (chunk * p + rank < extra ? 1 : 0);
  return layers;
}

}  // namespace gputwin
