#include "gputwin/perf/training_config.hpp"

namespace gputwin {

std::string_view recompute_name(Recompute recompute) {
  switch (recompute) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "none";
}

std::optional<Recompute> recompute_from_name(std::string_view name) {
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
    if (recompute_name(r) == name) return r;
  }
  return std::nullopt;
}

std::vector<std::string> check_training_config(const TransformerModel& model, TrainingConfig& config,
                                               int gpus) {
  std::vector<std::string> problems;
  auto require = [&](bool holds, const std::string& problem) {
    if (!holds) problems.push_back(problem);
  };
  const auto text = [](int value) { return std::to_string(value); };
  for (auto [value, name] : {std::pair{config.tp, "tensor-parallel size"},
                             {config.pp, "pipeline-parallel size"},
                             {config.cp, "context-parallel size"},
                             {config.virtual_stages, "virtual stages"},
                             {config.micro_batch, "micro-batch"},
                             {config.global_batch, "global batch"},
                             {config.sequence, "sequence length"}}) {
    require(value >= 1, std::string(name) + " must be at least 1, got " + text(value));
  }
  require(config.dp >= 0, "data-parallel size must be at least 1, got " + text(config.dp));
  require(config.zero >= 0 && config.zero <= 3, "ZeRO stage must be 0, 1, 2 or 3, got " + text(config.zero));
  if (!problems.empty()) return problems;
  require(model.heads % config.tp == 0, "tensor-parallel size " + text(config.tp) + " does not divide the " +
                                            text(model.heads) + " attention heads");
  require(config.tp <= model.kv_heads || config.tp % model.kv_heads == 0,
          "tensor-parallel size " + text(config.tp) + " neither divides nor is a multiple of the " +
              text(model.kv_heads) + " kv heads");
  require(config.pp * config.virtual_stages <= model.layers,
          "pipeline stages x virtual stages (" + text(config.pp) + " x " + text(config.virtual_stages) +
              ") exceed the " + text(model.layers) + " layers");
  require(config.sequence % config.cp == 0, "context-parallel size " + text(config.cp) +
                                                " does not divide the sequence length " +
                                                text(config.sequence));
  if (config.dp == 0) {
    require(gpus % config.model_parallel() == 0,
            text(gpus) + " GPUs are not divisible by tp x pp x cp = " + text(config.model_parallel()));
    config.dp = std::max(1, gpus / config.model_parallel());
  } else if (gpus > 0) {
    require(config.gpus() == gpus,
            "tp x pp x cp x dp = " + text(config.gpus()) + " but the job has " + text(gpus) + " GPUs");
  }
  require(config.global_batch % (config.micro_batch * config.dp) == 0,
          "global batch " + text(config.global_batch) +
              " is not divisible by micro-batch x dp = " + text(config.micro_batch * config.dp));
  require(config.virtual_stages == 1 || config.micro_batches() % config.pp == 0,
          "the interleaved schedule needs micro-batches per pipeline (" + text(config.micro_batches()) +
              ") to be a multiple of pp (" + text(config.pp) + ")");
  return problems;
}

}  // namespace gputwin
