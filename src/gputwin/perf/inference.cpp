#include "gputwin/perf/inference.hpp"

#include <algorithm>
#include <cmath>

#include "gputwin/core/yaml_input.hpp"
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
    constants.host_seconds_per_sequence_step = value("host_overhead_per_sequence_step_us").number() * 1e-6;  // given in us
    return constants;
  });
}

namespace {

constexpr double kActivationBytes = 2;  // activations exchanged between TP ranks stay 16-bit, even with FP8 GEMMs

// Parameters that take part in a matrix multiply per token: all but the input embedding lookup (which, with tied
// embeddings, is the output layer's matrix and so is counted once, as a matmul).
double matmul_parameters(const TransformerModel& model) {
  const double embedding = static_cast<double>(model.vocab) * model.hidden;
  return model.tied_embeddings ? model.parameters() : model.parameters() - embedding;
}

// The per-token FLOPs of attention over `context` earlier tokens: Q K^T and scores x V, 2 FLOPs per multiply-add.
double attention_flops_per_token(const TransformerModel& model, double context) {
  return 4.0 * model.layers * context * model.hidden;
}

class ServingModel {
 public:
  ServingModel(const PerfHardware& hardware, const CollectiveModel& collectives, const InferenceConstants& constants,
               const InferenceSetup& setup, const Roofline& roofline)
      : hardware_(hardware), collectives_(collectives), constants_(constants), setup_(setup), roofline_(roofline) {}

  [[nodiscard]] double weight_bytes_per_gpu() const {
    return setup_.model.parameters() * bytes_per_element(setup_.precision) / setup_.tp;
  }
  // KV heads are split over the TP ranks; with more ranks than KV heads each rank keeps a copy of one head.
  [[nodiscard]] double kv_bytes_per_token_per_gpu() const {
    const int split = std::min(setup_.tp, std::max(1, setup_.model.kv_heads));
    return setup_.model.kv_cache_bytes_per_token(setup_.kv_bytes_per_element) / split;
  }
  [[nodiscard]] double kv_capacity_tokens() const {
    const double free =
        hardware_.accelerator.memory.base() - weight_bytes_per_gpu() - constants_.runtime_reserved_bytes;
    return std::max(0.0, constants_.kv_cache_free_memory_fraction * free / kv_bytes_per_token_per_gpu());
  }

  // Prefill of `prompts` prompts, in engine iterations of at most prefill_chunk_tokens tokens.
  [[nodiscard]] StepTime prefill(int prompts) const {
    const double tokens = static_cast<double>(prompts) * setup_.input_tokens;
    const double chunks = std::max(1.0, std::ceil(tokens / constants_.prefill_chunk_tokens));
    const double chunk_tokens = tokens / chunks;
    const double causal_context = setup_.input_tokens / 2.0;  // each token attends to half the prompt on average
    StepTime time;
    const double flops =
        tokens * (2 * matmul_parameters(setup_.model) + attention_flops_per_token(setup_.model, causal_context));
    time.compute_s = flops / setup_.tp / (roofline_.peak_flops * constants_.gemm_efficiency(chunk_tokens));
    time.memory_s = chunks * weight_bytes_per_gpu() / memory_bandwidth();
    time.communication_s = chunks * layer_all_reduces(chunk_tokens);
    return time;
  }

  // One decode iteration of `sequences` sequences whose caches hold `context` tokens each.
  [[nodiscard]] StepTime decode(int sequences, double context) const {
    const auto count = static_cast<double>(sequences);
    StepTime time;
    const double flops =
        count * (2 * matmul_parameters(setup_.model) + attention_flops_per_token(setup_.model, context));
    time.compute_s = flops / setup_.tp / (roofline_.peak_flops * constants_.gemm_efficiency(count));
    time.memory_s = (weight_bytes_per_gpu() + count * context * kv_bytes_per_token_per_gpu()) / memory_bandwidth();
    time.communication_s = layer_all_reduces(count);
    time.host_s = count * constants_.host_seconds_per_sequence_step;
    return time;
  }

 private:
  [[nodiscard]] double memory_bandwidth() const { return roofline_.memory_bytes_per_s * constants_.memory_efficiency; }

  // Megatron-style TP: two all-reduces of the activations per layer (after attention and after the MLP).
  [[nodiscard]] double layer_all_reduces(double tokens) const {
    if (setup_.tp <= 1) return 0;
    const CollectiveGroup group{setup_.tp, std::min(setup_.tp, hardware_.gpus_per_node)};
    const ByteSize bytes = ByteSize::from_base(tokens * setup_.model.hidden * kActivationBytes);
    const CollectiveEstimate all_reduce =
        estimate_collective(hardware_, collectives_, CollectiveOp::all_reduce, bytes, group);
    return 2.0 * setup_.model.layers * all_reduce.time_us * 1e-6;
  }

  const PerfHardware& hardware_;
  const CollectiveModel& collectives_;
  const InferenceConstants& constants_;
  const InferenceSetup& setup_;
  const Roofline& roofline_;
};

// The message names the flag's meaning itself (TP, lengths); no field prefix.
InputError setup_error(const std::string& message) {
  InputError error;
  error.message = "perf infer: " + message;
  return error;
}

}  // namespace

Result<InferenceEstimate> estimate_inference(const PerfHardware& hardware, const CollectiveModel& collectives,
                                             const InferenceConstants& constants, const InferenceSetup& setup,
                                             int sequences) {
  if (setup.tp < 1) return setup_error("the tensor-parallel size must be at least 1");
  if (setup.model.heads % setup.tp != 0) {
    return setup_error("TP " + std::to_string(setup.tp) + " does not divide the model's " +
                                 std::to_string(setup.model.heads) + " attention heads");
  }
  if (setup.tp > hardware.gpus()) {
    return setup_error("TP " + std::to_string(setup.tp) + " is more than the cluster's " +
                                 std::to_string(hardware.gpus()) + " GPUs");
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
  estimate.kv_capacity_tokens = serving.kv_capacity_tokens();
  estimate.max_sequences =
      static_cast<int>(estimate.kv_capacity_tokens / (setup.input_tokens + setup.output_tokens));
  estimate.sequences = sequences > 0 ? sequences : estimate.max_sequences;
  estimate.fits = estimate.max_sequences >= 1 && estimate.sequences <= estimate.max_sequences;
  if (estimate.sequences < 1) return estimate;  // the weights alone do not leave room for one sequence

  const double mean_context = setup.input_tokens + setup.output_tokens / 2.0;
  estimate.prefill = serving.prefill(estimate.sequences);
  estimate.decode = serving.decode(estimate.sequences, mean_context);
  estimate.tpot_s = estimate.decode.seconds();
  estimate.ttft_s = serving.prefill(1).seconds() + estimate.tpot_s;
  const double cycle = estimate.prefill.seconds() + setup.output_tokens * estimate.decode.seconds();
  estimate.output_tokens_per_s = estimate.sequences * static_cast<double>(setup.output_tokens) / cycle;
  estimate.output_tokens_per_s_per_gpu = estimate.output_tokens_per_s / setup.tp;
  return estimate;
}

}  // namespace gputwin
