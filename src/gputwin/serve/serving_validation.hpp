// `perf serve`'s simulation against published serving results: MLPerf Inference v4.1 LLM rows (Server under
// p99 TTFT/TPOT limits, Offline on the same systems). Each row's system is deployed as its harness configured
// it (data/reference/serving-mlperf-v4.1.yaml), its scenario's load is generated (Offline: every request at
// once; Server: Poisson at the row's target QPS) and simulated on the perf model, with the engine
// generation's efficiency (data/perf/serving-engine-generations.yaml) as an explicit parameter. The files are
// read by serve/serving_references.hpp; this is the harness.
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
#include "gputwin/serve/serving_references.hpp"

namespace gputwin {

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
  // Server requests over the instances: the deployment's dealing, else the engine generation's.
  Dealing dealing = Dealing::round_robin;
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

// The iteration a row's instance runs at saturation, its time split into the perf model's terms: every
// sequence slot decoding at the mean context (input mean + half the output mean) with the prefill tokens that
// keep the slots full (slots x input mean / output mean, within the token budget): what sets Offline
// throughput. `output_tokens_per_s_per_gpu` is that iteration's decode tokens over its time (with the
// engine's efficiency) per GPU of the instance.
struct SaturatedIteration {
  int decode_sequences = 0;
  double prefill_tokens = 0;
  double context_tokens = 0;  // of a decoding sequence, mean
  double kv_capacity_tokens = 0;  // of the instance, at the deployment's KV-cache share of free memory
  StepTime time;              // the perf model's terms, before the engine's efficiency
  double efficiency = 1;
  double output_tokens_per_s_per_gpu = 0;
};
[[nodiscard]] Result<SaturatedIteration> saturated_iteration(const ServingValidationInputs& inputs,
                                                             const MlperfResults& results,
                                                             const ServingCheck& check);

// A Server row at its published target QPS as the simulated engine runs it, beside what the published
// figures imply (issue 16: the simulated engine held about 4x fewer sequences than the real one at the same
// tokens/s). Per instance: the mean iteration, its terms, the sequences it carries; the perf model's
// iteration as a line t(n) = a + b n over the row's sequence slots (n decoding sequences at the mean context
// with the n x input mean / output mean prompt tokens that keep them full, the engine's efficiency applied);
// and the published point: an iteration of TPOT p50 carrying tokens/s per instance x TPOT p50 sequences
// (Little's law: tokens/s = sequences / iteration).
struct ServerLoad {
  double sequences = 0;       // simulated: mean output tokens per iteration (the decoding batch)
  double prefill_tokens = 0;  // simulated: mean prompt tokens per iteration
  double iteration_ms = 0;    // simulated: mean iteration as the engine ran it
  double compute_ms = 0, memory_ms = 0, communication_ms = 0, host_ms = 0;  // its terms (bound one only)
  double model_a_ms = 0, model_b_ms = 0;  // the perf model's t(n) = a + b n (b per sequence)
  double published_iteration_ms = 0;      // TPOT p50
  double published_sequences = 0;         // published tokens/s per instance x TPOT p50
  // The simulated run's latencies (LoadGen's definitions: TTFT from issue, queueing included; TPOT per
  // request, first token excluded), to set TTFT against the iteration (TPOT p50) as the published ones.
  double ttft_p50_ms = 0, ttft_p99_ms = 0, tpot_p50_ms = 0, tpot_p99_ms = 0;
  // What produces the simulated tails: over the requests at or above the simulated TTFT p99, the mean share
  // of their TTFT spent waiting to be admitted (the rest is their prompt's iterations) and the share of them
  // preempted at least once; over those at or above the TPOT p99, the mean share of their decode time in
  // iterations that also computed prompt tokens (chunked prefill interleaving) and the share preempted; and
  // that prefill share over every finished request, for contrast.
  double ttft_tail_queue_share = 0, ttft_tail_preempted_share = 0;
  double tpot_tail_prefill_share = 0, tpot_tail_preempted_share = 0, tpot_all_prefill_share = 0;
};
[[nodiscard]] Result<ServerLoad> server_load(const ServingValidationInputs& inputs,
                                             const MlperfResults& results, const ServingCheck& check);

// Issue 16's utilisation diagnostic (not a headline figure): is the tail error the queueing and batching
// model's, or the capacity model's carried into the tails? Near saturation the queue and the batch grow like
// rho / (1 - rho), so a Server row simulated at its published QPS on a model whose capacity differs from the
// real system's runs at another utilisation. The Offline row of the same submitter, system and benchmark in
// the same set is each system's published capacity; nullptr when there is none.
[[nodiscard]] const ServingCheck* offline_partner(const std::vector<ServingCheck>& checks,
                                                  const ServingCheck& server);
// The QPS at which the simulated deployment runs at the utilisation the real system ran its published Server
// QPS: that QPS x the simulated Offline tokens/s / the published Offline tokens/s (`offline`: the same
// system's Offline row, simulated). Published rows only, no fitted factor; 0 when `offline` has no figure.
[[nodiscard]] double utilisation_matched_qps(const ServingCheck& server, const ServingCheck& offline);

// MLPerf LoadGen's early stopping of a Server run, from its source (loadgen/results.cc EarlyStopping, the
// Server case; loadgen/early_stopping.cc): with `over` of `queries` over a latency limit, the run passes when
// some h >= 1 with h + over <= queries has odds(h, over) < 1 - confidence, odds being the chance of `over`
// or fewer over the limit in h + over queries each over it with probability 1 - percentile. The odds fall as
// h grows, so this is: P(Binomial(queries, 1 - percentile) <= over) < 1 - confidence, with over < queries.
// With token latencies LoadGen applies it to TTFT and to TPOT, each against its own limit, besides the plain
// p99 of each (results.cc PerfConstraintsMet).
[[nodiscard]] bool mlperf_early_stopping_passes(long long queries, long long over, double percentile,
                                                double confidence);

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

// One row of an engine's published rate-vs-latency table (serving_references.hpp EngineTable) simulated: the
// table's deployment on the perf model, `concurrency` closed-loop clients sending the table's fixed lengths
// (closed_loop_latency), the engine's limits from the table, the engine efficiency given (1 = the perf
// model's timing; no generation is fitted on these tables).
struct EngineTableCheck {
  std::string table;  // id
  std::string engine_version;
  std::string set;  // fit | evaluation, the table's
  EngineTableRow published;
  double efficiency = 1;
  double ttft_ms = 0, itl_ms = 0, output_tokens_per_s = 0;  // the table's statistic (mean or p50)
  [[nodiscard]] double throughput_error_percent() const;
  [[nodiscard]] double ttft_error_percent() const;
  [[nodiscard]] double itl_error_percent() const;
};

[[nodiscard]] Result<std::vector<EngineTableCheck>> run_engine_table_checks(
    const ServingValidationInputs& inputs, const EngineTables& tables, double efficiency = 1);

struct EngineTableErrors {
  int rows = 0;
  double throughput_mean = 0, throughput_worst = 0;  // |error| percent
  double ttft_mean = 0, ttft_worst = 0;
  double itl_mean = 0, itl_worst = 0;
  int throughput_within_15 = 0, ttft_within_25 = 0, itl_within_25 = 0;
};

// Over the checks of one set ("fit" or "evaluation").
[[nodiscard]] EngineTableErrors engine_table_errors(const std::vector<EngineTableCheck>& checks,
                                                    const std::string& set);

}  // namespace gputwin
