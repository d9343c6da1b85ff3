#include "gputwin/perf/inference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/roofline.hpp"

namespace gputwin {

Result<InferenceConstants> load_inference_constants(const std::string& path) {
  return result_of<InferenceConstants>([&] {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"kv_cache_free_memory_fraction", "prefill_chunk_tokens", "gemm_efficiency_max",
                      "gemm_half_saturation_tokens", "memory_efficiency", "runtime_reserved_memory",
                      "host_overhead_per_sequence_step_us"});
    const auto value = [&](std::string_view key) {
      const YamlField field = root.child(key);
      field.expect_keys({"value", "confidence", "source", "note"});
      return field.child("value");
    };
    InferenceConstants constants;
    constants.kv_cache_free_memory_fraction = value("kv_cache_free_memory_fraction").positive_number();
    constants.prefill_chunk_tokens = value("prefill_chunk_tokens").positive_number();
    constants.gemm_efficiency_max = value("gemm_efficiency_max").positive_number();
    constants.gemm_half_saturation_tokens = value("gemm_half_saturation_tokens").number();
    constants.memory_efficiency = value("memory_efficiency").positive_number();
    constants.runtime_reserved_bytes = value("runtime_reserved_memory").quantity<ByteSize>().base();
    constants.host_seconds_per_sequence_step =
        value("host_overhead_per_sequence_step_us").number() * 1e-6;  // given in us
    return constants;
  });
}

double expected_experts_hit(int experts, int top_k, double tokens) {
  if (experts <= 0 || tokens <= 0) return 0;
  const double miss_one = 1.0 - static_cast<double>(top_k) / experts;  // a token leaves a given expert alone
  return experts * (1.0 - std::pow(miss_one, tokens));
}

namespace {

constexpr double kActivationBytes =
    2;  // activations exchanged between ranks stay 16-bit, even with FP8 GEMMs

// The weights of one routed expert as model.cpp counts them (matrices and any biases): parameters() less
// active_parameters() is (experts - top_k) of them on every MoE layer.
double routed_expert_parameters(const TransformerModel& model) {
  if (!model.is_moe()) return 0;
  const int idle = model.moe.experts - model.moe.experts_per_token;
  if (idle <= 0 || model.moe_layer_count() == 0) return model.expert_matrix_parameters();
  return (model.parameters() - model.active_parameters()) /
         (static_cast<double>(idle) * model.moe_layer_count());
}

// The matrix FLOPs per token of the routed experts a token goes through (top_k on every MoE layer).
double routed_expert_flops_per_token(const TransformerModel& model) {
  return 2.0 * model.moe.experts_per_token * model.expert_matrix_parameters() * model.moe_layer_count();
}

// The matrix FLOPs per token other than the routed experts': attention and dense or shared MLP matrices, the
// router, the output layer (the same figure, bit for bit, whether kept or recomputed).
double other_matrix_flops_per_token(const TransformerModel& model) {
  return model.forward_matrix_flops_per_token() - routed_expert_flops_per_token(model) +
         model.output_layer_flops_per_token();
}

class ServingModel {
 public:
  ServingModel(const PerfHardware& hardware, const CollectiveModel& collectives,
               const InferenceConstants& constants, const InferenceSetup& setup, const Roofline& roofline,
               const IterationFigures* figures = nullptr)
      : hardware_(hardware),
        collectives_(collectives),
        constants_(constants),
        setup_(setup),
        roofline_(roofline),
        figures_(figures) {}

  // Every expert is resident: the non-expert weights split over TP (each attention group keeps a copy), the
  // routed experts over all ep x tp GPUs.
  [[nodiscard]] double weight_bytes_per_gpu() const { return weight_bytes_with_experts(model().moe.experts); }
  // The weights a step with `tokens` tokens in the replica reads: the experts they are expected to hit.
  [[nodiscard]] double weight_bytes_read_per_gpu(double tokens) const {
    if (!model().is_moe()) return weight_bytes_per_gpu();
    return weight_bytes_with_experts(
        expected_experts_hit(model().moe.experts, model().moe.experts_per_token, tokens));
  }
  [[nodiscard]] double kv_bytes_per_token_per_gpu() const {
    return kv_cache_per_gpu(model(), 1, 1, setup_.kv_bytes_per_element, setup_.tp).base() * stage_share();
  }
  // Tokens the KV cache of one attention group holds.
  [[nodiscard]] double kv_capacity_tokens_per_group() const {
    return std::max(
        0.0, constants_.kv_cache_free_memory_fraction * free_bytes_per_gpu() / kv_bytes_per_token_per_gpu());
  }
  // Memory short per GPU for the weights, the runtime's reserve and one sequence's KV cache (0 when it fits).
  [[nodiscard]] double missing_bytes_per_gpu() const {
    const double one_sequence = (setup_.input_tokens + setup_.output_tokens) * kv_bytes_per_token_per_gpu() /
                                constants_.kv_cache_free_memory_fraction;
    return std::max(0.0, one_sequence - free_bytes_per_gpu());
  }

  // Prefill of `prompts` prompts, in engine iterations of at most prefill_chunk_tokens tokens per attention
  // group; the groups share the prompts and run their iterations in step (the all-to-alls join them).
  [[nodiscard]] StepTime prefill(int prompts) const {
    const int groups = std::min(setup_.ep, prompts);
    const double group_tokens = std::ceil(static_cast<double>(prompts) / groups) * setup_.input_tokens;
    const double chunks = std::max(1.0, std::ceil(group_tokens / constants_.prefill_chunk_tokens));
    const double chunk_tokens = group_tokens / chunks;
    const double causal_context =
        setup_.input_tokens / 2.0;  // each token attends to half the prompt on average
    const StepTime one = step(chunk_tokens, groups * chunk_tokens, causal_context);
    StepTime time;
    time.compute_s = chunks * one.compute_s;
    time.memory_s = chunks * one.memory_s;
    time.communication_s = chunks * one.communication_s;
    return time;
  }

  // One decode iteration of `sequences` sequences whose caches hold `context` tokens each.
  [[nodiscard]] StepTime decode(int sequences, double context) const {
    const double group_sequences =
        std::ceil(static_cast<double>(sequences) / setup_.ep);  // the busiest group
    StepTime time = step(group_sequences, sequences, context);
    time.memory_s += group_sequences * context * kv_bytes_per_token_all_stages() / memory_bandwidth();
    time.host_s = group_sequences * constants_.host_seconds_per_sequence_step;
    return time;
  }

  // A mixed iteration: `tokens` tokens of the replica at `mean_context`, of which `decode_sequences` decode
  // and read `decode_context` cached tokens in all; the attention groups share the work evenly.
  [[nodiscard]] StepTime mixed(double tokens, double mean_context, int decode_sequences,
                               double decode_context) const {
    const double groups = setup_.ep;
    StepTime time = step(std::ceil(tokens / groups), tokens, mean_context);
    time.memory_s += decode_context / groups * kv_bytes_per_token_all_stages() / memory_bandwidth();
    time.host_s = std::ceil(decode_sequences / groups) * constants_.host_seconds_per_sequence_step;
    return time;
  }

 private:
  [[nodiscard]] const TransformerModel& model() const { return setup_.model; }
  [[nodiscard]] int replica_gpus() const { return setup_.tp * setup_.ep; }  // of one pipeline stage
  // The KV cache a TP rank reads per cached token when a batch passes every pipeline stage.
  [[nodiscard]] double kv_bytes_per_token_all_stages() const {
    return kv_bytes_per_token_per_gpu() / stage_share();
  }
  // The share of the layers (their weights and KV cache) on the busiest pipeline stage's GPUs.
  [[nodiscard]] double stage_share() const {
    if (setup_.pp <= 1) return 1.0;
    const int layers = model().layers;
    return static_cast<double>((layers + setup_.pp - 1) / setup_.pp) / layers;
  }
  [[nodiscard]] double memory_bandwidth() const {
    return roofline_.memory_bytes_per_s * constants_.memory_efficiency;
  }
  [[nodiscard]] double free_bytes_per_gpu() const {
    return hardware_.accelerator.memory.base() - weight_bytes_per_gpu() - constants_.runtime_reserved_bytes;
  }

  [[nodiscard]] double weight_bytes_with_experts(double experts_per_layer) const {
    const TransformerModel& m = model();
    const double expert = routed_expert_parameters(m);
    const double non_expert =
        m.parameters() - static_cast<double>(m.moe.experts) * m.moe_layer_count() * expert;
    const double experts = experts_per_layer * m.moe_layer_count() * expert;
    return (non_expert / setup_.tp + experts / replica_gpus()) * bytes_per_element(setup_.precision) *
           stage_share();
  }

  // Weights, matrix FLOPs and communication of one engine iteration: `group_tokens` tokens in the busiest
  // attention group, `replica_tokens` in the replica (they meet at the experts), attention over `context`
  // tokens.
  [[nodiscard]] StepTime step(double group_tokens, double replica_tokens, double context) const {
    const double peak = roofline_.peak_flops;
    StepTime time;
    const double other_flops =
        figures_ == nullptr ? other_matrix_flops_per_token(model()) : figures_->other_matrix_flops_per_token;
    time.compute_s = group_tokens * (other_flops + model().attention_score_flops_per_token(context)) /
                     setup_.tp / (peak * constants_.gemm_efficiency(group_tokens));
    if (model().is_moe()) time.compute_s += routed_expert_compute_s(replica_tokens);
    time.memory_s = weight_memory_s(replica_tokens);
    time.communication_s = communication_s(group_tokens);
    return time;
  }

  // The routed experts' GEMMs of `replica_tokens` tokens (they meet at the experts: each hit expert's GEMM
  // has the rows routed to it).
  [[nodiscard]] double routed_expert_compute_s(double replica_tokens) const {
    const auto compute = [&] {
      const double hit =
          expected_experts_hit(model().moe.experts, model().moe.experts_per_token, replica_tokens);
      const double rows_per_expert = replica_tokens * model().moe.experts_per_token / hit;
      return replica_tokens * routed_expert_flops_per_token(model()) / replica_gpus() /
             (roofline_.peak_flops * constants_.gemm_efficiency(rows_per_expert));
    };
    return figures_ == nullptr ? compute() : figures_->routed_expert_compute.seconds(replica_tokens, compute);
  }

  // The weights `replica_tokens` tokens read from HBM. With PP, each stage reads its share of the weights and
  // the stages run one after the other.
  [[nodiscard]] double weight_memory_s(double replica_tokens) const {
    const auto compute = [&] {
      return weight_bytes_read_per_gpu(replica_tokens) / stage_share() / memory_bandwidth();
    };
    return figures_ == nullptr ? compute() : figures_->weight_memory.seconds(replica_tokens, compute);
  }

  [[nodiscard]] double communication_s(double group_tokens) const {
    const auto compute = [&] {
      return layer_communication(group_tokens) + (setup_.pp - 1) * stage_send_s(group_tokens);
    };
    return figures_ == nullptr ? compute() : figures_->communication.seconds(group_tokens, compute);
  }

  // Megatron-style TP: an all-reduce of the activations after attention and one after the MLP of each layer.
  // With expert parallelism the MoE layers' MLP all-reduce becomes an all-to-all dispatch of each token to
  // its top_k experts and the combine back, over the replica's ep x tp GPUs.
  [[nodiscard]] double layer_communication(double group_tokens) const {
    const double all_reduce = tp_all_reduce_s(group_tokens);
    if (setup_.ep <= 1) return 2.0 * model().layers * all_reduce;
    const double moe_layers = model().moe_layer_count();
    return (model().layers + (model().layers - moe_layers)) * all_reduce +
           2.0 * moe_layers * all_to_all_s(group_tokens);
  }

  [[nodiscard]] double tp_all_reduce_s(double tokens) const {
    if (setup_.tp <= 1) return 0;
    // Consecutive GPUs: on NVLink up to the scale-up domain, across the trays of an NVL72 too.
    const CollectiveGroup group = consecutive_group(hardware_, setup_.tp);
    const ByteSize bytes = ByteSize::from_base(tokens * model().hidden * kActivationBytes);
    return estimate_collective(hardware_, collectives_, CollectiveOp::all_reduce, bytes, group).time_us *
           1e-6;
  }

  // The activations of a batch handed to the next pipeline stage: each TP rank sends its 1/tp share to its
  // peer (vLLM splits the tensor over the TP ranks), point to point over the link between the stages (the
  // NICs when the stages are in different domains).
  [[nodiscard]] double stage_send_s(double group_tokens) const {
    const CollectiveGroup group = consecutive_group(hardware_, setup_.tp * setup_.pp);
    const ByteSize bytes = ByteSize::from_base(group_tokens * model().hidden * kActivationBytes / setup_.tp);
    return estimate_collective(hardware_, collectives_, CollectiveOp::sendrecv, bytes, group).time_us * 1e-6;
  }

  // Each rank sends its share of the group's tokens (1/tp of them), top_k copies each; nccl-tests' alltoall
  // size is what one rank sends in all.
  [[nodiscard]] double all_to_all_s(double group_tokens) const {
    const CollectiveGroup group = consecutive_group(hardware_, replica_gpus());
    const ByteSize bytes = ByteSize::from_base(group_tokens / setup_.tp * model().moe.experts_per_token *
                                               model().hidden * kActivationBytes);
    return estimate_collective(hardware_, collectives_, CollectiveOp::alltoall, bytes, group).time_us * 1e-6;
  }

  const PerfHardware& hardware_;
  const CollectiveModel& collectives_;
  const InferenceConstants& constants_;
  const InferenceSetup& setup_;
  const Roofline& roofline_;
  const IterationFigures* figures_;
};

// Iterations of up to this many tokens (per attention group, or per replica) keep their figures (three
// caches of 8 bytes per count, 1.5 MB per model): above every engine's default token budget
// (data/perf/serving-engine.yaml). A cache bound, not a model figure: larger iterations are computed each
// time, with the same result.
constexpr std::size_t kCachedGroupTokens = 65536;

// The message names the flag's meaning itself (TP, lengths); no field prefix.
InputError setup_error(const std::string& message) {
  InputError error;
  error.message = "perf infer: " + message;
  return error;
}

}  // namespace

TokenCountCache::TokenCountCache(std::size_t tokens)
    : size_(tokens), seconds_(std::make_unique<std::atomic<double>[]>(tokens)) {
  for (std::size_t k = 0; k < size_; ++k) seconds_[k].store(-1, std::memory_order_relaxed);
}

Result<InferenceEstimate> estimate_inference(const PerfHardware& hardware, const CollectiveModel& collectives,
                                             const InferenceConstants& constants, const InferenceSetup& setup,
                                             int sequences) {
  if (setup.tp < 1) return setup_error("the tensor-parallel size must be at least 1");
  if (setup.model.heads % setup.tp != 0) {
    return setup_error("TP " + std::to_string(setup.tp) + " does not divide the model's " +
                       std::to_string(setup.model.heads) + " attention heads");
  }
  if (setup.ep < 1) return setup_error("the expert-parallel size must be at least 1");
  if (setup.ep > 1 && !setup.model.is_moe()) {
    return setup_error("EP " + std::to_string(setup.ep) + " needs a mixture-of-experts model; " +
                       setup.model.name + " is dense");
  }
  if (setup.ep > 1 && setup.model.moe.experts % (setup.tp * setup.ep) != 0) {
    return setup_error("EP " + std::to_string(setup.ep) + " x TP " + std::to_string(setup.tp) +
                       " GPUs do not divide the model's " + std::to_string(setup.model.moe.experts) +
                       " experts");
  }
  if (setup.pp < 1 || setup.pp > setup.model.layers)
    return setup_error("the pipeline-parallel size must be 1 to the model's layers");
  if (setup.pp > 1 && setup.ep > 1) return setup_error("PP with EP is not modelled");
  if (setup.tp * setup.ep * setup.pp > hardware.gpus()) {
    return setup_error((setup.ep > 1 ? "EP " + std::to_string(setup.ep) + " x " : std::string()) + "TP " +
                       std::to_string(setup.tp) +
                       (setup.pp > 1 ? " x PP " + std::to_string(setup.pp) : std::string()) +
                       " is more than the cluster's " + std::to_string(hardware.gpus()) + " GPUs");
  }
  if (setup.input_tokens < 1 || setup.output_tokens < 1) {
    return setup_error("input and output lengths must be at least 1 token");
  }
  const auto roofline = roofline_of(hardware.accelerator, setup.precision);
  if (!roofline.ok()) return roofline.errors();
  const ServingModel serving(hardware, collectives, constants, setup, roofline.value());

  InferenceEstimate estimate;
  estimate.weight_bytes_per_gpu = serving.weight_bytes_per_gpu();
  estimate.kv_bytes_per_token_per_gpu = serving.kv_bytes_per_token_per_gpu();
  const double group_capacity = serving.kv_capacity_tokens_per_group();
  estimate.kv_capacity_tokens = setup.ep * group_capacity;
  estimate.max_sequences =
      setup.ep * static_cast<int>(group_capacity / (setup.input_tokens + setup.output_tokens));
  estimate.weights_fit = estimate.max_sequences >= 1;
  if (!estimate.weights_fit) {  // no times for a replica that cannot hold its weights and one sequence
    estimate.missing_bytes_per_gpu = serving.missing_bytes_per_gpu();
    return estimate;
  }
  estimate.sequences = sequences > 0 ? sequences : estimate.max_sequences;
  estimate.fits = estimate.sequences <= estimate.max_sequences;

  const double mean_context = setup.input_tokens + setup.output_tokens / 2.0;
  estimate.prefill = serving.prefill(estimate.sequences);
  estimate.decode = serving.decode(estimate.sequences, mean_context);
  estimate.decode_weight_bytes_read_per_gpu = serving.weight_bytes_read_per_gpu(estimate.sequences);
  estimate.tpot_s = estimate.decode.seconds();
  estimate.ttft_s = serving.prefill(1).seconds() + estimate.tpot_s;
  const double cycle = estimate.prefill.seconds() + setup.output_tokens * estimate.decode.seconds();
  estimate.output_tokens_per_s = estimate.sequences * static_cast<double>(setup.output_tokens) / cycle;
  estimate.output_tokens_per_s_per_gpu = estimate.output_tokens_per_s / (setup.tp * setup.ep * setup.pp);
  return estimate;
}

Result<IterationModel> IterationModel::make(const PerfHardware& hardware, const CollectiveModel& collectives,
                                            const InferenceConstants& constants, const InferenceSetup& setup,
                                            bool cache_figures) {
  auto estimate = estimate_inference(hardware, collectives, constants, setup, 1);
  if (!estimate.ok()) return estimate.errors();
  if (!estimate.value().weights_fit) {
    InputError error;
    error.message = fmt::format(
        "perf serve: the weights of {} do not fit on TP {}{}{}: {:.1f} GB short per GPU", setup.model.name,
        setup.tp, setup.ep > 1 ? fmt::format(" x EP {}", setup.ep) : "",
        setup.pp > 1 ? fmt::format(" x PP {}", setup.pp) : "", estimate.value().missing_bytes_per_gpu / 1e9);
    return error;
  }
  auto roofline = roofline_of(hardware.accelerator, setup.precision);
  if (!roofline.ok()) return roofline.errors();
  IterationModel model(hardware, collectives, constants, setup, roofline.value());
  model.kv_capacity_tokens_ = estimate.value().kv_capacity_tokens;
  model.steady_ = estimate.value();
  if (cache_figures) {
    auto figures = std::make_shared<IterationFigures>(kCachedGroupTokens);
    figures->other_matrix_flops_per_token = other_matrix_flops_per_token(setup.model);
    model.figures_ = std::move(figures);
  }
  return model;
}

StepTime IterationModel::iteration(double prefill_tokens, double prefill_context_tokens, int decode_sequences,
                                   double decode_context_tokens) const {
  const double tokens = prefill_tokens + decode_sequences;
  if (tokens <= 0) return {};
  const double mean_context = (prefill_context_tokens + decode_context_tokens) / tokens;
  const ServingModel serving(hardware_, collectives_, constants_, setup_, roofline_, figures_.get());
  return serving.mixed(tokens, mean_context, decode_sequences, decode_context_tokens);
}

}  // namespace gputwin
