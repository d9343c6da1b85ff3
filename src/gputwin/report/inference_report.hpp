// The `perf infer` report: an inference setup's memory facts and its estimates by concurrent sequences, as
// text or JSON (schema gputwin.infer/1).
//
//   InferenceReport report{hardware, setup, estimates_by_sequences, max_load};
//   std::cout << inference_text(report);   // or inference_json(report).dump(2)
//   Result<InferenceResult> back = read_inference_json(text, "infer.json");   // perf infer --json read back
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/serve/serve_scenario.hpp"
#include "gputwin/serve/serve_summary.hpp"

namespace gputwin {

inline constexpr const char* kInferenceSchema = "gputwin.infer/1";

struct InferenceReport {
  PerfHardware hardware;
  InferenceSetup setup;
  std::vector<InferenceEstimate> by_sequences;
  InferenceEstimate max_load;
  // The same concurrencies simulated as a benchmark runs them (serve/closed_loop_latency): one entry per
  // by_sequences row, then one for max_load; empty when not simulated.
  std::vector<ServeSummary> under_load;
  std::string under_load_engine;  // whose scheduler and limits the simulation follows
  int under_load_rounds = 0;      // requests each client sends
  // The engine generation applied (perf infer --engine): every time divided by its efficiency; unset = the
  // perf model's own timing (and no engine line or field is written).
  std::optional<EngineChoice> engine;
};

[[nodiscard]] std::string inference_text(const InferenceReport& report);
[[nodiscard]] nlohmann::json inference_json(const InferenceReport& report);
// Why a replica whose weights do not fit gets no estimate, and how much memory per GPU it lacks.
[[nodiscard]] std::string inference_refusal_text(const InferenceReport& report);

// What a gputwin.infer/1 document holds for the HTML report and for comparing setups: the replica, its
// memory facts and, per number of concurrent sequences, latency and throughput. The decode step's terms
// (compute, memory, communication, host ms) are not read.
struct InferencePoint {
  int sequences = 0;
  bool fits = false;  // the KV cache holds them
  double ttft_ms = 0;
  double tpot_ms = 0;
  std::string decode_bound;  // "compute" or "memory"
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  std::optional<LatencyStats> ttft_under_load_ms;  // closed-loop simulation at this concurrency, when run
  std::optional<LatencyStats> tpot_under_load_ms;
};
struct InferenceResult {
  std::string source;  // the file it was read from
  std::string model;
  std::string system;
  std::string accelerator;
  std::string precision;
  int tp = 1;
  int ep = 1;
  int gpus_per_replica = 1;
  int input_tokens = 0;
  int output_tokens = 0;
  double weight_gb_per_gpu = 0;
  double kv_capacity_tokens = 0;
  int max_sequences = 0;
  std::vector<InferencePoint> by_sequences;
  InferencePoint max_load;
};

// Reads a gputwin.infer/1 document back; throws InputFailure naming the field (JSON pointer) when the schema
// is another or a field is missing or of the wrong type.
[[nodiscard]] InferenceResult inference_result_from_json(const JsonField& root, const std::string& source);
[[nodiscard]] Result<InferenceResult> read_inference_json(std::string_view text, const std::string& source);

}  // namespace gputwin
