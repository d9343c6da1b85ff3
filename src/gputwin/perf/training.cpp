#include "gputwin/perf/training.hpp"

#include <algorithm>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

// Bytes of one 16-bit activation or activation gradient element.
constexpr double kActivationBytes = 2;
// bf16 weights, as memory.hpp counts them; fp32 Adam state (master weights, momentum, variance).
constexpr double kWeightBytes = 2;
constexpr double kOptimizerStateBytes = 12;

// Multiply-adds of one layer's weight matrices per token (their parameter count, norms and biases aside).
double layer_matrix_parameters(const TransformerModel& m) {
  const double h = m.hidden;
  const double kv_width = static_cast<double>(m.kv_heads) * m.head_dim();
  return 2 * h * h + 2 * h * kv_width + (m.gated_mlp ? 3.0 : 2.0) * h * m.ffn_hidden;
}

// Forward FLOPs per token of one layer: matrices (2 per multiply-add) and, separately, attention scores and
// values over the s x s square (2 s h each).
double layer_matrix_flops_per_token(const TransformerModel& m) {
  return 2 * layer_matrix_parameters(m);
}
double attention_flops_per_token(const TransformerModel& m, double sequence) {
  return 4 * sequence * m.hidden;
}

struct Groups {
  CollectiveGroup tensor, context, data, pipeline;
};

// Megatron's rank order fills a node with tensor-parallel ranks first, then context, then data parallel; the
// pipeline's neighbours sit on other nodes unless one node holds several stages.
Groups groups_of(const PerfHardware& hw, const TrainingConfig& c) {
  const int node = std::max(1, hw.gpus_per_node);
  Groups g;
  g.tensor = {c.tp, std::min(c.tp, node)};
  const int context_per_node = std::clamp(node / c.tp, 1, c.cp);
  g.context = {c.cp, context_per_node};
  const int data_per_node = std::clamp(node / (c.tp * c.cp), 1, std::max(1, c.dp));
  g.data = {c.dp * c.cp, std::min(c.dp * c.cp, data_per_node * context_per_node)};
  const bool stage_pairs_share_node = c.tp * c.cp * c.dp * 2 <= node;
  g.pipeline = {2, stage_pairs_share_node ? 2 : 1};
  return g;
}

struct Context {
  const PerfHardware& hw;
  const CollectiveModel& collectives;
  const TrainingCalibration& calibration;
  const TransformerModel& model;
  const TrainingConfig& config;
  Groups groups;
  double peak = 0;              // FLOP/s
  double memory_bandwidth = 0;  // B/s

  [[nodiscard]] double collective_s(CollectiveOp op, double bytes, CollectiveGroup group) const {
    if (group.ranks <= 1 || bytes <= 0) return 0;
    return estimate_collective(hw, collectives, op, ByteSize::from_base(bytes), group).time_us * 1e-6;
  }
  [[nodiscard]] double matrix_s(double flops) const {
    const double width = static_cast<double>(model.hidden);
    return flops / (peak * calibration.gemm_efficiency(width));
  }
  [[nodiscard]] double elementwise_s(double activation_bytes) const {
    return calibration.elementwise_traffic * activation_bytes / memory_bandwidth;
  }
};

// Per layer and micro-batch on one GPU: the pieces a forward pass costs, so recomputation can repeat some.
struct LayerPass {
  double matrices = 0;           // s
  double attention = 0;          // s, scores and values
  double elementwise = 0;        // s, all stored activations written / read once
  double score_elementwise = 0;  // s, the part of `elementwise` that is the a s^2 scores (unfused attention)
  double tensor_comm = 0;        // s, two all-reduces (or all-gather + reduce-scatter pairs)
  double context_comm = 0;       // s, key and value all-gather over the context-parallel group
};

LayerPass forward_pass(const Context& x) {
  const TrainingConfig& c = x.config;
  const TransformerModel& m = x.model;
  const double tokens = static_cast<double>(c.micro_batch) * c.sequence / c.cp;
  LayerPass pass;
  pass.matrices = x.matrix_s(tokens * layer_matrix_flops_per_token(m) / c.tp);
  // Flash attention skips the causal mask's upper half; unfused kernels compute the whole square.
  const double causal_share = c.attention == Attention::flash ? 0.5 : 1.0;
  pass.attention = x.matrix_s(causal_share * tokens * attention_flops_per_token(m, c.sequence) / c.tp);
  TrainingConfig stored = c;
  stored.recompute = Recompute::none;
  const double activations = activation_bytes_per_layer(m, stored);
  pass.elementwise = x.elementwise_s(activations);
  if (c.attention == Attention::unfused) {
    const double s = static_cast<double>(c.sequence) / c.cp;
    const double scores = 5.0 * m.heads * s * s * c.micro_batch / c.tp;  // Korthikanti's 5 a s^2 b
    pass.score_elementwise = x.elementwise_s(scores);
  }
  const double layer_output_bytes = tokens * m.hidden * kActivationBytes;
  if (c.sequence_parallel && c.tp > 1) {
    pass.tensor_comm =
        2 * (x.collective_s(CollectiveOp::all_gather, layer_output_bytes, x.groups.tensor) +
             x.collective_s(CollectiveOp::reduce_scatter, layer_output_bytes, x.groups.tensor));
  } else {
    pass.tensor_comm = 2 * x.collective_s(CollectiveOp::all_reduce, layer_output_bytes, x.groups.tensor);
  }
  if (c.cp > 1) {
    const double kv_bytes = 2.0 * tokens * c.cp * m.kv_heads * m.head_dim() * kActivationBytes / c.tp;
    pass.context_comm = x.collective_s(CollectiveOp::all_gather, kv_bytes, x.groups.context);
  }
  return pass;
}

struct StageTimes {
  double compute = 0, recompute = 0, tensor_comm = 0, context_comm = 0, pipeline_comm = 0;
  double backward = 0;  // the backward share of compute + recompute + communication (for DP overlap)
  [[nodiscard]] double total() const {
    return compute + recompute + tensor_comm + context_comm + pipeline_comm;
  }
};

// One micro-batch through the most loaded stage (the last: its layers and the output layer), forward and
// backward (twice the forward work), with the recomputation the config asks for.
StageTimes stage_times(const Context& x) {
  const TrainingConfig& c = x.config;
  const LayerPass f = forward_pass(x);
  const double layers = c.layers_per_stage(x.model);
  StageTimes t;
  const double forward_compute = f.matrices + f.attention + f.elementwise;
  t.compute = layers * 3 * forward_compute;
  t.tensor_comm =
      layers * 2 * f.tensor_comm;  // the backward pass runs the forward's collectives on gradients
  t.context_comm = layers * 2 * std::max(0.0, f.context_comm - f.attention);  // overlapped with attention
  if (c.recompute == Recompute::full) {
    t.recompute = layers * forward_compute;
    t.tensor_comm += layers * f.tensor_comm;
  } else if (c.recompute == Recompute::selective) {
    t.recompute = layers * (f.attention + f.score_elementwise);
  }
  const double tokens = static_cast<double>(c.micro_batch) * c.sequence / c.cp;
  t.compute += x.matrix_s(3 * tokens * 2.0 * x.model.hidden * x.model.vocab / c.tp);  // output layer
  if (c.pp > 1) {
    const double boundary_bytes = tokens * x.model.hidden * kActivationBytes / c.tp;  // scatter-gather over t
    const double one_way = x.collective_s(CollectiveOp::sendrecv, boundary_bytes, x.groups.pipeline);
    t.pipeline_comm = 2 * c.virtual_stages * one_way;
  }
  t.backward = t.total() - layers * (forward_compute + f.tensor_comm);
  return t;
}

// Gradient reduction and, with a sharded optimizer, the weight all-gather, once per step.
double data_parallel_s(const Context& x, double parameters) {
  const TrainingConfig& c = x.config;
  const CollectiveGroup group = x.groups.data;
  if (group.ranks <= 1) return 0;
  const double gradient_bytes = parameters * c.gradient_bytes;
  const double weight_bytes = parameters * kWeightBytes;
  double seconds = 0;
  if (c.zero == 0) {
    seconds = x.collective_s(CollectiveOp::all_reduce, gradient_bytes, group);
  } else {
    seconds = x.collective_s(CollectiveOp::reduce_scatter, gradient_bytes, group) +
              x.collective_s(CollectiveOp::all_gather, weight_bytes, group);
  }
  if (c.zero == 3) {
    // Weights gathered again for the forward and the backward pass of every micro-batch (ZeRO-3: 1.5x traffic
    // per pass, here per micro-batch as FSDP does without caching).
    seconds += 2.0 * c.micro_batches() * x.collective_s(CollectiveOp::all_gather, weight_bytes, group);
  }
  return seconds;
}

// Adam reads and writes the fp32 state (12 bytes each way), reads the gradient and writes the bf16 weights.
double optimizer_s(const Context& x, double parameters) {
  const TrainingConfig& c = x.config;
  const double shards = c.zero >= 1 ? static_cast<double>(c.dp) * c.cp : 1.0;
  const double bytes = parameters / shards * (2 * kOptimizerStateBytes + c.gradient_bytes + kWeightBytes);
  return bytes / x.memory_bandwidth;
}

TimeTerm term(std::string name, double seconds, std::string rule) {
  return TimeTerm{std::move(name), seconds, std::move(rule)};
}

TrainingCalibration read_calibration(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys(
      {"gemm_efficiency_max", "gemm_half_width", "elementwise_traffic", "source", "fit", "notes"});
  TrainingCalibration calibration;
  calibration.gemm_efficiency_max = root.child("gemm_efficiency_max").positive_number();
  if (calibration.gemm_efficiency_max > 1)
    root.child("gemm_efficiency_max").fail("must be a fraction of peak (0..1]");
  calibration.gemm_half_width = root.child("gemm_half_width").number();
  if (calibration.gemm_half_width < 0) root.child("gemm_half_width").fail("must not be negative");
  calibration.elementwise_traffic = root.child("elementwise_traffic").number();
  calibration.source = root.child("source").text_or_list();
  return calibration;
}

}  // namespace

Result<TrainingCalibration> load_training_calibration(const std::string& path) {
  return result_of<TrainingCalibration>([&] { return read_calibration(path); });
}

double training_flops_per_step(const TransformerModel& model, const TrainingConfig& config,
                               bool with_recompute) {
  const double tokens = static_cast<double>(config.global_batch) * config.sequence;
  const double matrices = layer_matrix_flops_per_token(model);
  const double attention = attention_flops_per_token(model, config.sequence);
  const double forward_layers = tokens * model.layers * (matrices + attention);
  const double output_layer = tokens * 2.0 * model.hidden * model.vocab;
  double flops = 3 * (forward_layers + output_layer);
  if (with_recompute && config.recompute == Recompute::full) flops += forward_layers;
  if (with_recompute && config.recompute == Recompute::selective) flops += tokens * model.layers * attention;
  return flops;
}

TrainingEstimate estimate_training(const PerfHardware& hardware, const CollectiveModel& collectives,
                                   const TrainingCalibration& calibration, const TransformerModel& model,
                                   const TrainingConfig& config) {
  Context x{hardware, collectives, calibration, model, config, groups_of(hardware, config)};
  const auto peak = hardware.accelerator.dense_compute.at(config.precision);
  x.peak = peak ? peak->base() : 0;
  x.memory_bandwidth = in_gigabytes_per_second(hardware.accelerator.memory_bandwidth) * 1e9;  // bytes/s

  TrainingEstimate e;
  e.config = config;
  e.peak_flops_per_gpu = x.peak;
  e.memory = training_memory(model, config, hardware.accelerator.memory);
  const StageTimes stage = stage_times(x);
  const double m = config.micro_batches();
  const double bubble_stages = static_cast<double>(config.pp - 1) / config.virtual_stages;
  const double steady = m / (m + bubble_stages);  // share of the pipeline time that is not bubble
  const double pipeline_s = (m + bubble_stages) * stage.total();
  const double dp_total = data_parallel_s(x, e.memory.parameters_per_gpu);
  const double dp_exposed =
      config.overlap_data_parallel ? std::max(0.0, dp_total - stage.backward) : dp_total;

  e.terms = {
      term("compute", m * stage.compute,
           "stage FLOPs / (peak x efficiency(h)) + elementwise traffic / memory bandwidth"),
      term("recompute", m * stage.recompute,
           std::string("recompute = ") + std::string(recompute_name(config.recompute))),
      term("tensor-parallel communication", m * stage.tensor_comm,
           "NCCL collectives on the tensor-parallel group"),
      term("context-parallel communication", m * stage.context_comm,
           "key/value all-gather not hidden by attention"),
      term("pipeline communication", m * stage.pipeline_comm,
           "send + receive per micro-batch and model chunk"),
      term("pipeline bubble", pipeline_s * (1 - steady), "(p - 1) / (v m) of the pipeline time"),
      term("data-parallel communication", dp_exposed,
           config.zero == 0 ? "gradient all-reduce" : "gradient reduce-scatter + weight all-gather"),
      term("optimizer", optimizer_s(x, e.memory.parameters_per_gpu),
           "Adam state read and written at memory bandwidth"),
  };
  for (const auto& t : e.terms) e.step_time_s += t.seconds;
  const double gpus = config.gpus();
  e.tokens_per_second = static_cast<double>(config.global_batch) * config.sequence / e.step_time_s;
  e.model_flops_per_step = training_flops_per_step(model, config, false);
  e.hardware_flops_per_step = training_flops_per_step(model, config, true);
  e.mfu = e.model_flops_per_step / (e.step_time_s * gpus * x.peak);
  e.hfu = e.hardware_flops_per_step / (e.step_time_s * gpus * x.peak);
  return e;
}

}  // namespace gputwin
