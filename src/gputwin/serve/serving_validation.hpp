// `perf serve`'s simulation against published serving results: MLPerf Inference v4.1 LLM rows (Server under
// p99 TTFT/TPOT limits, Offline on the same systems). Each row's system is deployed as its harness configured
// it (data/reference/serving-mlperf-v4.1.yaml), its scenario's load is generated (Offline: every request at
// once; Server: Poisson at the row's target QPS) and simulated on the perf model, with the engine
// generation's efficiency (data/perf/serving-engine-generations.yaml) as an explicit parameter.
//
//   auto plan = load_serving_check_plan("data/reference/serving-mlperf-v4.1.yaml");
//   auto engines = load_engine_generations("data/perf/serving-engine-generations.yaml");
//   auto results = load_mlperf_results("../shared/data/serving-mlperf-inference-v4.1.yaml");
//   ServingValidationInputs inputs{catalog, presets, collectives, constants, engines.value(), plan.value()};
//   auto checks = run_serving_checks(inputs, results.value());          // every row, fit / evaluation /
//   excluded ServingErrors e = serving_errors(checks.value(), CheckSet::evaluation);  // mean and worst
//   errors
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/perf/model.hpp"

namespace gputwin {

// One published row of the results file (numbers as transcribed there).
struct MlperfResult {
  std::string submitter;
  std::string system;
  std::string accelerator;  // the systems list's accelerator text, e.g. "NVIDIA H100-SXM-80GB"
  std::string engine;       // the systems list's software text, e.g. "TensorRT 10.2.0, CUDA 12.4"
  std::string division;     // "closed" unless the systems list says otherwise
  std::string benchmark;    // e.g. "llama2-70b-99"
  std::string scenario;     // "Server" | "Offline" (case as normalised)
  int gpus = 0;
  double tokens_per_s = 0;
  double samples_per_s = 0;
  double target_qps = 0;
  std::optional<double> ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, tpot_p99_ms;
  int line = 0;  // of the row in the results file
  [[nodiscard]] bool server() const { return scenario == "Server"; }
};

struct ServerLimits {
  std::string benchmark;  // a prefix of the rows' benchmark names ("llama2-70b" covers "llama2-70b-99")
  double ttft_p99_ms = 0;
  double tpot_p99_ms = 0;
};

struct MlperfResults {
  std::string path;
  std::vector<MlperfResult> rows;
  std::vector<ServerLimits> limits;
  [[nodiscard]] const ServerLimits* limits_of(const std::string& benchmark) const;
};

[[nodiscard]] Result<MlperfResults> load_mlperf_results(const std::string& path);

// A serving engine generation: its scheduler limits and its fitted efficiency.
struct EngineGeneration {
  std::string id;
  std::vector<std::string> engines;  // pieces of the results' engine text that select it
  double efficiency = 1;             // iteration time = perf model time / efficiency
  int max_batched_tokens = 8192;
  int block_tokens = 16;
  int max_sequences = 1024;
};

[[nodiscard]] Result<std::vector<EngineGeneration>> load_engine_generations(const std::string& path);

struct ServingBenchmark {
  std::string id;
  std::string model;
  std::string precision = "fp8";
  double kv_bytes_per_element = 1;
  int input_max_tokens = 1024;
  int output_mean_tokens = 256;
};

struct ServingDeployment {
  std::string benchmark;
  std::string accelerator_contains;
  std::string system;       // a catalog system, or empty
  std::string accelerator;  // a catalog accelerator when no system is catalogued
  int tp = 1;
  int server_sequences = 0;  // 0 = the engine generation's max_sequences
  int offline_sequences = 0;
  std::string confidence;
};

struct RowExclusion {
  std::string division, accelerator_contains, system_contains;  // every non-empty one must match
  std::string reason;
};

struct ServingRunParameters {
  double server_duration_s = 240;
  int offline_requests_per_sequence = 6;
  std::uint64_t seed = 1;
  double qps_search_low = 0.25;
  double qps_search_high = 2.0;
  int qps_search_steps = 9;
};

struct ServingCheckPlan {
  std::string results_path;  // relative to the repository root
  std::vector<std::string> fit_submitters;
  std::vector<RowExclusion> exclusions;
  std::vector<ServingBenchmark> benchmarks;
  std::vector<ServingDeployment> deployments;
  ServingRunParameters run;
};

[[nodiscard]] Result<ServingCheckPlan> load_serving_check_plan(const std::string& path);

enum class CheckSet { fit, evaluation, excluded };
[[nodiscard]] const char* check_set_name(CheckSet set);

struct ServingCheck {
  MlperfResult published;
  CheckSet set = CheckSet::excluded;
  std::string note;  // why excluded; else the deployment's confidence
  std::string engine;
  int tp = 0;
  int instances = 0;
  int sequences = 0;  // per instance
  double efficiency = 1;
  bool simulated = false;
  // Offline: steady-state output tokens/s. Server: at the highest QPS that meets the p99 limits.
  double predicted_tokens_per_s = 0;
  // Server only.
  double highest_qps = 0;              // meeting both p99 limits (bisected)
  bool limits_hold_at_target = false;  // at the published target QPS
  double ttft_p50_ms = 0, ttft_p99_ms = 0, tpot_p50_ms = 0, tpot_p99_ms = 0;  // at the target QPS
  [[nodiscard]] double error_percent() const;  // predicted vs published tokens/s
};

struct ServingValidationInputs {
  const Catalog& catalog;
  const std::vector<TransformerModel>& presets;
  CollectiveModel collectives;
  InferenceConstants constants;
  std::vector<EngineGeneration> engines;
  ServingCheckPlan plan;
};

// Every row classified and deployed, nothing simulated yet.
[[nodiscard]] std::vector<ServingCheck> plan_serving_checks(const ServingValidationInputs& inputs,
                                                            const MlperfResults& results);
// One planned check simulated: Offline throughput; Server latencies at the target QPS and, when
// `search_qps`, the highest QPS meeting the limits. `efficiency` overrides the engine generation's (0 =
// keep).
[[nodiscard]] Result<ServingCheck> simulate_serving_check(const ServingValidationInputs& inputs,
                                                          const MlperfResults& results, ServingCheck check,
                                                          bool search_qps = true, double efficiency = 0);
// Both, for every row (excluded rows are returned unsimulated).
[[nodiscard]] Result<std::vector<ServingCheck>> run_serving_checks(const ServingValidationInputs& inputs,
                                                                   const MlperfResults& results);

struct ServingErrors {
  int offline_rows = 0, server_rows = 0;
  double offline_mean = 0, offline_worst = 0;        // |error| of tokens/s, percent
  double server_mean = 0, server_worst = 0;          // |error| of tokens/s at the limits, percent
  double throughput_mean = 0, throughput_worst = 0;  // both scenarios together
  double ttft_p99_mean = 0, tpot_p99_mean = 0;       // |error| of the latencies at the target QPS
  double ttft_p50_mean = 0, tpot_p50_mean = 0;
  int server_limits_held = 0;  // rows whose simulation meets both limits at the published QPS
  int ttft_p99_within_25 = 0;  // Server rows whose simulated p99 TTFT is within 25 % of the published one
  int tpot_p99_within_25 = 0;
};

[[nodiscard]] ServingErrors serving_errors(const std::vector<ServingCheck>& checks, CheckSet set);

}  // namespace gputwin
