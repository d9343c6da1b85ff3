// The files `perf serve`'s checks read: the published MLPerf Inference v4.1 rows (with their systems and the
// Server scenario's latency limits), the plan that deploys them (data/reference/serving-mlperf-v4.1.yaml: fit
// and evaluation sets, exclusions, benchmarks, deployments, run parameters) and the serving engine
// generations with their fitted efficiencies (data/perf/serving-engine-generations.yaml). Errors name file,
// line and field.
//
//   Result<MlperfResults> results = load_mlperf_results("../shared/data/serving-mlperf-inference-v4.1.yaml");
//   Result<ServingCheckPlan> plan = load_serving_check_plan("data/reference/serving-mlperf-v4.1.yaml");
//   Result<std::vector<EngineGeneration>> engines =
//       load_engine_generations("data/perf/serving-engine-generations.yaml");
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/serve/serving.hpp"

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
  Dealing dealing = Dealing::round_robin;  // how the harness deals Server requests over the instances
};

[[nodiscard]] Result<std::vector<EngineGeneration>> load_engine_generations(const std::string& path);

// A serving engine's own published rate-vs-latency table (data/reference/serving-engine-tables.yaml): one
// engine version's benchmark of one deployment at fixed lengths, swept over closed-loop concurrency.
struct EngineTableRow {
  int concurrency = 1;
  double ttft_ms = 0;
  double itl_ms = 0;
  double output_tokens_per_s = 0;  // of the whole deployment
  int line = 0;
};

struct EngineTable {
  std::string id;
  std::string engine;
  std::string engine_version;  // explicit: the table is this version's
  std::string set;             // fit | evaluation, by source
  std::string source;
  std::string model;   // a preset of data/perf/models.yaml
  std::string system;  // a catalog system
  int tp = 1;
  std::string precision = "fp8";
  double kv_bytes_per_element = 1;
  int input_tokens = 0;
  int output_tokens = 0;
  std::string statistic;  // what the latency columns are (mean, p50, ...)
  int max_batched_tokens = 8192;
  int max_sequences = 256;
  int block_tokens = 16;
  SchedulerPolicy scheduler = SchedulerPolicy::vllm_v1;  // whose admission the simulated engine follows
  int rounds_per_client = 4;
  std::vector<EngineTableRow> rows;
  int line = 0;
};

struct EngineTables {
  std::string path;
  std::vector<EngineTable> tables;
};

[[nodiscard]] Result<EngineTables> load_engine_tables(const std::string& path);

struct ServingBenchmark {
  std::string id;
  std::string model;
  std::string precision = "fp8";
  double kv_bytes_per_element = 1;
  int input_max_tokens = 1024;
  // 0: inputs uniform on 1..input_max_tokens. Else uniform on 1..min(input_max_tokens, 2 x mean - 1): a
  // stated distribution whose mean is fitted on the fit set (bench/serving_validation --calibrate).
  int input_mean_tokens = 0;
  int output_mean_tokens = 256;
  // The inputs' mean tokens as drawn (uniform on 1..span).
  [[nodiscard]] int input_span_tokens() const;
  [[nodiscard]] double input_mean() const { return (input_span_tokens() + 1) / 2.0; }
};

struct ServingDeployment {
  std::string benchmark;
  std::string accelerator_contains;
  std::string system_contains;  // a piece of the row's system name too, or empty (any system)
  std::string system;           // a catalog system, or empty
  std::string accelerator;  // a catalog accelerator when no system is catalogued
  int tp = 1;
  int server_sequences = 0;  // 0 = the engine generation's max_sequences
  int offline_sequences = 0;
  // The harness's kvcache_free_gpu_mem_frac per scenario (0 = the inference constants' default).
  double server_kv_free_fraction = 0;
  double offline_kv_free_fraction = 0;
  std::optional<Dealing> dealing;  // the harness's dealing where it differs from the engine generation's
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
  // LoadGen's early stopping of a Server run (loadgen/results.cc, EarlyStopping; early_stopping.cc): a run
  // with t of its n queries over a latency limit is valid only when, were each query over the limit with
  // probability 1 - percentile, t or fewer of n would happen with probability below 1 - confidence.
  double early_stopping_percentile = 0.99;
  double early_stopping_confidence = 0.99;
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
// The plan's benchmark of that id; null when it has none.
[[nodiscard]] const ServingBenchmark* benchmark_of(const ServingCheckPlan& plan, const std::string& id);

}  // namespace gputwin
