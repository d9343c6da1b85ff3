#include "gputwin/serve/serving_validation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

namespace gputwin {
namespace {

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

struct Bundle {
  Catalog catalog = Catalog::load({source_path("data/catalog")}).value();
  std::vector<TransformerModel> presets = load_model_presets(source_path("data/perf/models.yaml")).value();
  CollectiveModel collectives = load_collective_model(source_path("data/perf/nccl-cost-model.yaml")).value();
  InferenceConstants constants = load_inference_constants(source_path("data/perf/inference.yaml")).value();
  std::vector<EngineGeneration> engines =
      load_engine_generations(source_path("data/perf/serving-engine-generations.yaml")).value();
  ServingCheckPlan plan =
      load_serving_check_plan(source_path("data/reference/serving-mlperf-v4.1.yaml")).value();
  [[nodiscard]] ServingValidationInputs inputs() const {
    return {catalog, presets, collectives, constants, engines, plan};
  }
};

const Bundle& bundle() {
  static const Bundle b;
  return b;
}

// The shared results, or empty when ../shared is not beside the repository.
std::optional<MlperfResults> shared_results() {
  const std::string path = source_path(bundle().plan.results_path);
  if (!std::filesystem::exists(path)) return std::nullopt;
  return load_mlperf_results(path).value();
}

#define SKIP_WITHOUT_SHARED(results) \
  if (!(results))                    \
  GTEST_SKIP() << bundle().plan.results_path << " is absent (../shared not beside the repository)"

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(ServingValidation, EveryEngineGenerationIsFittedAndEveryDeploymentNamesOne) {
  const Bundle& b = bundle();
  ASSERT_EQ(b.engines.size(), 2u);
  for (const EngineGeneration& engine : b.engines) {
    EXPECT_GT(engine.efficiency, 0.3) << engine.id;
    EXPECT_LT(engine.efficiency, 2.0) << engine.id;
  }
  EXPECT_EQ(b.plan.fit_submitters, (std::vector<std::string>{"NVIDIA", "AMD"}));
  for (const ServingDeployment& d : b.plan.deployments) {
    const bool catalogued = !d.system.empty() ? b.catalog.find<System>(d.system) != nullptr
                                              : b.catalog.find<Accelerator>(d.accelerator) != nullptr;
    EXPECT_TRUE(catalogued) << d.benchmark << " " << d.accelerator_contains;
  }
}

TEST(ServingValidation, AMalformedPlanIsALocatedError) {
  const std::string path =
      write_temp("serving-plan-bad.yaml",
                 "results: x.yaml\n"
                 "split: {fit_submitters: [NVIDIA], reason: r}\n"
                 "excluded: []\n"
                 "benchmarks: []\n"
                 "deployments:\n"
                 "  - {bench: nope, accelerator_contains: H100, system: dgx-h100, tp: 2,\n"
                 "     confidence: read, source: s}\n"
                 "run: {}\n");
  const auto plan = load_serving_check_plan(path);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error_text().find("serving-plan-bad.yaml:6:"), std::string::npos) << plan.error_text();
  EXPECT_NE(plan.error_text().find("no benchmark 'nope'"), std::string::npos) << plan.error_text();
}

TEST(ServingValidation, AResultRowWithoutItsLatenciesIsALocatedError) {
  const std::string path =
      write_temp("serving-results-bad.yaml",
                 "scenario_limits: {rows: []}\n"
                 "systems:\n"
                 "  - {sub: A, system: s, accel: H100-SXM, gpus: 8, engine: TensorRT 10}\n"
                 "rows:\n"
                 "  - {sub: A, system: s, gpus: 8, bench: llama2-70b-99, scenario: Server,\n"
                 "     tok_s: 10, samples_s: 1, target_qps: 1}\n");
  const auto results = load_mlperf_results(path);
  ASSERT_FALSE(results.ok());
  EXPECT_NE(results.error_text().find("serving-results-bad.yaml:5:"), std::string::npos)
      << results.error_text();
  EXPECT_NE(results.error_text().find("ttft_p99_ms"), std::string::npos) << results.error_text();
}

// The Llama 2 input mean is fitted (data/reference/serving-mlperf-v4.1.yaml): inputs are drawn on
// 1..(2 x mean - 1), and a mean whose inputs would pass the longest input is a located error.
TEST(ServingValidation, AFittedInputMeanSetsTheDrawnSpanAndIsBoundedByTheLongestInput) {
  const ServingBenchmark* llama = benchmark_of(bundle().plan, "llama2-70b-99");
  const ServingBenchmark* mixtral = benchmark_of(bundle().plan, "mixtral-8x7b");
  ASSERT_NE(llama, nullptr);
  ASSERT_NE(mixtral, nullptr);
  ASSERT_GT(llama->input_mean_tokens, 0);
  EXPECT_EQ(llama->input_span_tokens(), 2 * llama->input_mean_tokens - 1);
  EXPECT_DOUBLE_EQ(llama->input_mean(), llama->input_mean_tokens);
  EXPECT_EQ(mixtral->input_mean_tokens, 0);  // not fitted: uniform on 1..max
  EXPECT_EQ(mixtral->input_span_tokens(), mixtral->input_max_tokens);
  const std::string path = write_temp(
      "serving-plan-mean.yaml",
      "results: x.yaml\n"
      "split: {fit_submitters: [NVIDIA], reason: r}\n"
      "excluded: []\n"
      "benchmarks:\n"
      "  - {id: b, model: llama2-70b, precision: fp8, kv_bytes_per_element: 1, input_max_tokens: 1024,\n"
      "     input_mean_tokens: 600, input_source: s, output_mean_tokens: 291, output_source: s}\n"
      "deployments: []\n"
      "run: {}\n");
  const auto plan = load_serving_check_plan(path);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error_text().find("serving-plan-mean.yaml:6:"), std::string::npos) << plan.error_text();
  EXPECT_NE(plan.error_text().find("input_mean_tokens 600"), std::string::npos) << plan.error_text();
}

TEST(ServingValidation, TheSplitIsBySubmitterAndEveryExclusionSaysWhy) {
  const auto results = shared_results();
  SKIP_WITHOUT_SHARED(results);
  const auto checks = plan_serving_checks(bundle().inputs(), *results);
  ASSERT_EQ(checks.size(), 107u);
  std::set<std::string> fit_submitters, evaluation_submitters;
  int fit = 0, evaluation = 0, excluded = 0;
  for (const ServingCheck& c : checks) {
    if (c.set == CheckSet::fit) {
      ++fit;
      fit_submitters.insert(c.published.submitter);
    } else if (c.set == CheckSet::evaluation) {
      ++evaluation;
      evaluation_submitters.insert(c.published.submitter);
    } else {
      ++excluded;
      EXPECT_FALSE(c.note.empty()) << c.published.system;
    }
  }
  for (const std::string& s : fit_submitters) EXPECT_EQ(evaluation_submitters.count(s), 0u) << s;
  EXPECT_EQ(fit_submitters, (std::set<std::string>{"NVIDIA", "AMD"}));
  EXPECT_EQ(fit, 16);  // NVIDIA 10 (DGX-H100, H200, H200 Triton), AMD 6
  EXPECT_EQ(evaluation, 64);
  EXPECT_EQ(excluded, 27);  // open 9, GH200 8, Max-Q 4, CTS 4, B200 2
}

// The engine generation is a parameter with an effect: the same Offline row simulated at the fitted vLLM
// efficiency and at 1 (no engine term) differs by the efficiency's factor (steady state is compute-bound, so
// tokens/s scale with it within a few per cent).
TEST(ServingValidation, TheEngineEfficiencyScalesOfflineThroughput) {
  const auto results = shared_results();
  SKIP_WITHOUT_SHARED(results);
  const ServingValidationInputs inputs = bundle().inputs();
  const auto checks = plan_serving_checks(inputs, *results);
  const auto row = std::find_if(checks.begin(), checks.end(), [](const ServingCheck& c) {
    return c.published.system == "1xMI300X_2xEPYC-9374F" && !c.published.server();
  });
  ASSERT_NE(row, checks.end());
  ASSERT_EQ(row->engine, "vllm-0.4-rocm");
  const auto fitted = simulate_serving_check(inputs, *results, *row, false);
  const auto unit = simulate_serving_check(inputs, *results, *row, false, 1.0);
  ASSERT_TRUE(fitted.ok() && unit.ok());
  const double ratio = fitted.value().predicted_tokens_per_s / unit.value().predicted_tokens_per_s;
  EXPECT_NEAR(ratio, row->efficiency, 0.03 * row->efficiency);
  EXPECT_LT(std::abs(fitted.value().error_percent()), 5.0);  // a fit-set row: the fit holds it within 5 %
}

// What sets a row's saturated iteration: Llama 2 70B at 896 sequences on one H200 is compute-bound with no
// TP all-reduce, and the prompt tokens that keep the slots full are slots x input mean / output mean; a TP-2
// H100 SXM instance all-reduces over NVLink, far faster than a TP-2 H100 PCIe instance described as the
// row's 8-card box (no scale-up domain there: perf_hardware_of_accelerator joins bridged cards in pairs
// only).
TEST(ServingValidation, TheSaturatedIterationSplitsItsTerms) {
  const auto results = shared_results();
  SKIP_WITHOUT_SHARED(results);
  const ServingValidationInputs inputs = bundle().inputs();
  const auto checks = plan_serving_checks(inputs, *results);
  const auto offline = [&](const std::string& system) {
    return std::find_if(checks.begin(), checks.end(), [&](const ServingCheck& c) {
      return c.published.system == system && c.published.benchmark == "llama2-70b-99" &&
             !c.published.server();
    });
  };
  const auto sxm = offline("DGX-H100_H100-SXM-80GBx8_TRT");
  const auto pcie = offline("ESC8000A_E12_H100x8_TRT");
  const auto h200 = offline("H200-SXM-141GBx8_TRT");
  ASSERT_TRUE(sxm != checks.end() && pcie != checks.end() && h200 != checks.end());
  const auto sxm_it = saturated_iteration(inputs, *results, *sxm);
  const auto pcie_it = saturated_iteration(inputs, *results, *pcie);
  const auto h200_it = saturated_iteration(inputs, *results, *h200);
  ASSERT_TRUE(sxm_it.ok() && pcie_it.ok() && h200_it.ok());
  EXPECT_EQ(sxm->tp, 2);
  EXPECT_EQ(pcie->tp, 2);
  EXPECT_GT(sxm_it.value().time.communication_s, 0);
  EXPECT_LT(sxm_it.value().time.communication_s, pcie_it.value().time.communication_s / 3);
  const SaturatedIteration& s = h200_it.value();
  EXPECT_TRUE(s.time.compute_bound());
  EXPECT_EQ(s.time.communication_s, 0);  // TP 1
  EXPECT_EQ(s.decode_sequences, h200->sequences);
  const ServingBenchmark* llama = benchmark_of(bundle().plan, "llama2-70b-99");
  EXPECT_NEAR(s.prefill_tokens, h200->sequences * llama->input_mean() / llama->output_mean_tokens,
              0.01 * s.prefill_tokens);
}

// ASUSTeK's H100 PCIe box runs its own harness configuration (closed/ASUSTeK/configs/llama2-70b/*/custom.py):
// batch 896 in both scenarios and kvcache_free_gpu_mem_frac 0.95 (Server) / 0.97 (Offline) where NVIDIA's
// own configs and the inference constants take 0.90. The KV cache is that share of the free memory, so the
// Offline instance holds 0.97 / 0.90 of the tokens it would at the default; a share above 1 is a located
// error.
TEST(ServingValidation, TheHarnessKvCacheShareSetsTheInstancesCapacity) {
  const auto results = shared_results();
  SKIP_WITHOUT_SHARED(results);
  const ServingValidationInputs inputs = bundle().inputs();
  const auto checks = plan_serving_checks(inputs, *results);
  const auto row = [&](bool server) {
    return std::find_if(checks.begin(), checks.end(), [&](const ServingCheck& c) {
      return c.published.system == "ESC8000A_E12_H100x8_TRT" && c.published.benchmark == "llama2-70b-99" &&
             c.published.server() == server;
    });
  };
  ASSERT_TRUE(row(true) != checks.end() && row(false) != checks.end());
  EXPECT_EQ(row(true)->sequences, 896);
  EXPECT_EQ(row(false)->sequences, 896);
  EXPECT_EQ(row(true)->tp, 2);
  EXPECT_EQ(row(false)->note, "read");
  const auto with_share = saturated_iteration(inputs, *results, *row(false));
  ServingCheckPlan default_share = bundle().plan;
  for (ServingDeployment& d : default_share.deployments)
    d.server_kv_free_fraction = d.offline_kv_free_fraction = 0;
  const ServingValidationInputs default_inputs{bundle().catalog,   bundle().presets, bundle().collectives,
                                               bundle().constants, bundle().engines, default_share};
  const auto at_default = saturated_iteration(default_inputs, *results, *row(false));
  ASSERT_TRUE(with_share.ok() && at_default.ok());
  ASSERT_DOUBLE_EQ(bundle().constants.kv_cache_free_memory_fraction, 0.9);
  EXPECT_NEAR(with_share.value().kv_capacity_tokens / at_default.value().kv_capacity_tokens, 0.97 / 0.90,
              1e-9);
  const std::string path =
      write_temp("serving-plan-kv-share.yaml",
                 "results: x.yaml\n"
                 "split: {fit_submitters: [NVIDIA], reason: r}\n"
                 "excluded: []\n"
                 "benchmarks:\n"
                 "  - {id: b, model: llama2-70b, precision: fp8, kv_bytes_per_element: 1, input_max_tokens: 1024,\n"
                 "     input_source: s, output_mean_tokens: 291, output_source: s}\n"
                 "deployments:\n"
                 "  - {bench: b, accelerator_contains: H100, system: dgx-h100, tp: 2,\n"
                 "     server_kv_free_fraction: 1.2, confidence: read, source: s}\n"
                 "run: {}\n");
  const auto plan = load_serving_check_plan(path);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error_text().find("serving-plan-kv-share.yaml:9:"), std::string::npos) << plan.error_text();
  EXPECT_NE(plan.error_text().find("at most 1"), std::string::npos) << plan.error_text();
}

// Issue 16: the Server run lasts MLPerf LoadGen's minimum (mlperf.conf "*.Server.min_duration = 600000" ms).
// The submitters run near saturation (the published TPOT p50 x tokens/s per instance puts 454 sequences in
// flight on one H200 at 101 QPS), where the queue takes minutes to fill: a 120 s run measured mostly its own
// ramp (180 sequences in flight on average), the 600 s run carries 277 (measured 2026-11-27). Both below the
// published 454: the rest is the perf model's per-sequence time (docs/perf-serve.md, "Latency under load").
TEST(ServingValidation, AServerRunAsLongAsMlperfsFillsTheQueueOfASaturatedEngine) {
  const auto results = shared_results();
  SKIP_WITHOUT_SHARED(results);
  EXPECT_GE(bundle().plan.run.server_duration_s, 600.0);
  const ServingValidationInputs inputs = bundle().inputs();
  const auto checks = plan_serving_checks(inputs, *results);
  const auto row = std::find_if(checks.begin(), checks.end(), [](const ServingCheck& c) {
    return c.published.submitter == "NVIDIA" && c.published.system == "H200-SXM-141GBx8_TRT" &&
           c.published.benchmark == "llama2-70b-99" && c.published.server();
  });
  ASSERT_NE(row, checks.end());
  ASSERT_EQ(row->set, CheckSet::fit);
  const auto long_run = server_load(inputs, *results, *row);
  ServingCheckPlan short_plan = bundle().plan;
  short_plan.run.server_duration_s = 120;
  const ServingValidationInputs short_inputs{bundle().catalog,   bundle().presets, bundle().collectives,
                                             bundle().constants, bundle().engines, short_plan};
  const auto short_run = server_load(short_inputs, *results, *row);
  ASSERT_TRUE(long_run.ok() && short_run.ok());
  const ServerLoad& l = long_run.value();
  EXPECT_NEAR(l.published_sequences, 454, 5);  // 29228 tok/s / 8 x 124.3 ms
  EXPECT_GT(l.sequences, 1.4 * short_run.value().sequences);
  EXPECT_GT(l.sequences, 0.55 * l.published_sequences);
  EXPECT_LT(l.sequences, l.published_sequences);
  // Little's law holds in the simulation too: tokens/s per instance = sequences / iteration, within the ramp
  // and drain of one run.
  const double per_instance = row->published.target_qps / row->instances * 291;
  EXPECT_NEAR(l.sequences / (l.iteration_ms / 1e3), per_instance, 0.15 * per_instance);
  // TTFT counted in iterations: a request waits for the running iteration, then the one carrying its prompt,
  // as TensorRT-LLM's published TTFT p50 of 1.45 TPOT p50 on this row (180.8 / 124.3 ms). Measured
  // 2026-11-27: 1.50 simulated (the TTFT error under load is the iteration's, not the scheduler's).
  const double published_ratio = *row->published.ttft_p50_ms / *row->published.tpot_p50_ms;
  EXPECT_NEAR(l.ttft_p50_ms / l.tpot_p50_ms, published_ratio, 0.10 * published_ratio);
  EXPECT_GT(l.ttft_p50_ms / l.tpot_p50_ms, 1.0);  // at least the iteration that carries the prompt
}

// LoadGen's early stopping (loadgen/early_stopping.cc, results.cc), at p99 with 99 % confidence, worked by
// hand from the binomial distribution of misses at 1 %: with none over the limit a run needs 459 queries
// (0.99^459 = 0.00992 < 0.01; 0.99^458 = 0.01002), LoadGen's own starting bound ceil(log 0.01 / log 0.99); of
// 1,000 queries 2 may be over (P(X <= 2) = 0.00268) but not 3 (0.01007).
TEST(ServingValidation, LoadgensEarlyStoppingPassesWhereItsBinomialBoundSays) {
  EXPECT_TRUE(mlperf_early_stopping_passes(459, 0, 0.99, 0.99));
  EXPECT_FALSE(mlperf_early_stopping_passes(458, 0, 0.99, 0.99));
  EXPECT_TRUE(mlperf_early_stopping_passes(1000, 2, 0.99, 0.99));
  EXPECT_FALSE(mlperf_early_stopping_passes(1000, 3, 0.99, 0.99));
  EXPECT_FALSE(mlperf_early_stopping_passes(10, 10, 0.99, 0.99));  // every query over: never
  // A 600 s run at 75 QPS (45,000 queries) may have 401 over the limit, not 402: it is judged at about
  // p99.1, slightly stricter than the plain p99 LoadGen also checks.
  EXPECT_TRUE(mlperf_early_stopping_passes(45000, 401, 0.99, 0.99));
  EXPECT_FALSE(mlperf_early_stopping_passes(45000, 402, 0.99, 0.99));
  EXPECT_DOUBLE_EQ(bundle().plan.run.early_stopping_percentile, 0.99);
  EXPECT_DOUBLE_EQ(bundle().plan.run.early_stopping_confidence, 0.99);
}

// An early-stopping figure that is not a probability is a located error.
TEST(ServingValidation, AnEarlyStoppingConfidenceOutsideZeroToOneIsALocatedError) {
  const std::string path = write_temp("serving-plan-early-stopping.yaml",
                                      "results: x.yaml\n"
                                      "split: {fit_submitters: [NVIDIA], reason: r}\n"
                                      "excluded: []\n"
                                      "benchmarks: []\n"
                                      "deployments: []\n"
                                      "run:\n"
                                      "  server_duration_s: 600\n"
                                      "  offline_requests_per_sequence: 6\n"
                                      "  seed: 1\n"
                                      "  qps_search_low: 0.25\n"
                                      "  qps_search_high: 2.0\n"
                                      "  qps_search_steps: 9\n"
                                      "  early_stopping_percentile: 0.99\n"
                                      "  early_stopping_confidence: 1.5\n");
  const auto plan = load_serving_check_plan(path);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error_text().find("serving-plan-early-stopping.yaml:14:"), std::string::npos)
      << plan.error_text();
  EXPECT_NE(plan.error_text().find("probability"), std::string::npos) << plan.error_text();
}

// A malformed engine table is a located error.
TEST(ServingValidation, AMalformedEngineTableIsALocatedError) {
  const std::string path = write_temp("engine-tables-bad.yaml",
                                      "tables:\n"
                                      "  - id: t\n"
                                      "    engine: e\n"
                                      "    engine_version: '1'\n"
                                      "    set: training\n");
  const auto tables = load_engine_tables(path);
  ASSERT_FALSE(tables.ok());
  EXPECT_NE(tables.error_text().find("engine-tables-bad.yaml:5:"), std::string::npos) << tables.error_text();
}

// The serving engines' own published rate-vs-latency table (data/reference/serving-engine-tables.yaml: NVIDIA
// NIM 1.8.0, Llama 3.3 70B FP8 on 2 x H100, TP 2, 5000/500 tokens, concurrency 1-250), simulated at the
// perf model's own timing (efficiency 1; nothing fitted on it). Measured 2026-11-27: output tokens/s mean
// |error| 14.3 %, worst 39.1 % (concurrency 1), within 3.3-4.8 % from concurrency 100 up (the KV cache caps
// the batch: the plateau); ITL mean 26.1 %, worst 30.0 % (too fast); TTFT mean 85.9 %, worst 251.7 % (the
// simulated clients start together and queue their 5000-token prompts). Thresholds sit just above.
TEST(ServingValidation, ErrorsOnTheEngineTablesStayWhereMeasured) {
  const auto tables = load_engine_tables(source_path("data/reference/serving-engine-tables.yaml"));
  ASSERT_TRUE(tables.ok()) << tables.error_text();
  ASSERT_EQ(tables.value().tables.size(), 1u);
  EXPECT_EQ(tables.value().tables[0].engine_version, "1.8.0");
  const auto checks = run_engine_table_checks(bundle().inputs(), tables.value());
  ASSERT_TRUE(checks.ok()) << checks.error_text();
  const EngineTableErrors e = engine_table_errors(checks.value(), "evaluation");
  EXPECT_EQ(e.rows, 8);
  EXPECT_EQ(engine_table_errors(checks.value(), "fit").rows, 0);
  // Measured 2026-11-28 with TensorRT-LLM's GUARANTEED_NO_EVICT (the table's `scheduler`): throughput 13.1 %
  // (14.3 % with vLLM's admission), ITL 28.8 % / worst 35.7 % (26.1 / 30.0 %), TTFT 83.1 % (85.9 %).
  EXPECT_LT(e.throughput_mean, 13.5);
  EXPECT_LT(e.throughput_worst, 40.0);
  EXPECT_LT(e.itl_mean, 29.5);
  EXPECT_LT(e.itl_worst, 36.5);
  EXPECT_LT(e.ttft_mean, 84.0);
  for (const EngineTableCheck& c : checks.value()) {
    if (c.published.concurrency >= 100) {  // the KV cache caps the batch: no request is ever evicted
      EXPECT_LT(std::abs(c.throughput_error_percent()), 2.5) << c.published.concurrency;
    }
  }
}

// How each harness spreads Server requests over its instances is data with its source: NVIDIA's harness_llm
// deals to the instance with the fewest requests in flight on its multi-process path, which every TP-2
// instance runs (read); its TP-1 deployments, whose path was not read, the H200 Triton row (another harness)
// and AMD's vLLM harness (not read) keep round-robin.
TEST(ServingValidation, EachHarnessDealsServerRequestsAsItsDataSays) {
  const Bundle& b = bundle();
  for (const EngineGeneration& e : b.engines)
    EXPECT_EQ(e.dealing, e.id == "trtllm-mlperf-v4.1" ? Dealing::least_in_flight : Dealing::round_robin)
        << e.id;
  const auto results = shared_results();
  SKIP_WITHOUT_SHARED(results);
  int least_in_flight = 0, round_robin = 0;
  for (const ServingCheck& c : plan_serving_checks(b.inputs(), *results)) {
    if (c.set == CheckSet::excluded || !c.published.server()) continue;
    const bool multi_process = c.engine == "trtllm-mlperf-v4.1" && c.tp >= 2;
    EXPECT_EQ(c.dealing, multi_process ? Dealing::least_in_flight : Dealing::round_robin)
        << c.published.system << " " << c.published.benchmark;
    ++(c.dealing == Dealing::least_in_flight ? least_in_flight : round_robin);
  }
  EXPECT_EQ(least_in_flight, 18);  // every H100 SXM/NVL/PCIe Llama 2 TP-2 Server row
  EXPECT_EQ(round_robin, 22);
}

TEST(ServingValidation, AnUnknownDealingIsALocatedError) {
  const std::string path = write_temp("serving-engines-bad-dealing.yaml",
                                      "generations:\n"
                                      "  - id: e\n"
                                      "    engines: [\"X\"]\n"
                                      "    description: d\n"
                                      "    efficiency: {value: 1}\n"
                                      "    max_batched_tokens: {value: 8192}\n"
                                      "    block_tokens: {value: 16}\n"
                                      "    max_sequences: {value: 256}\n"
                                      "    dealing: {value: random}\n");
  const auto engines = load_engine_generations(path);
  ASSERT_FALSE(engines.ok());
  EXPECT_NE(engines.error_text().find("serving-engines-bad-dealing.yaml:9:"), std::string::npos)
      << engines.error_text();
  EXPECT_NE(engines.error_text().find("least_in_flight"), std::string::npos) << engines.error_text();
}

ServingCheck row_of(const std::string& system, const std::string& scenario, CheckSet set,
                    double tokens_per_s) {
  ServingCheck check;
  check.set = set;
  check.published.submitter = "S";
  check.published.system = system;
  check.published.benchmark = "llama2-70b-99";
  check.published.scenario = scenario;
  check.published.tokens_per_s = tokens_per_s;
  return check;
}

// Hand-worked: a system published 24,000 tok/s Offline and ran its Server row at 75 QPS; the model predicts
// 26,400 tok/s Offline (+10 %), so its deployment runs at the real system's utilisation at 75 x 26,400 /
// 24,000 = 82.5 QPS. The partner is the same system's Offline row in the same set, never another system's or
// another set's.
TEST(ServingValidation, TheUtilisationDiagnosticScalesTheServerQpsByTheOfflineCapacityRatio) {
  std::vector<ServingCheck> checks = {
      row_of("A", "Offline", CheckSet::evaluation, 24000),  // same system, other set: not the partner
      row_of("B", "Offline", CheckSet::fit, 30000),         // other system
      row_of("A", "Server", CheckSet::fit, 21000),
      row_of("A", "Offline", CheckSet::fit, 24000),
  };
  checks[0].predicted_tokens_per_s = 12000;
  checks[1].predicted_tokens_per_s = 30000;
  checks[3].predicted_tokens_per_s = 26400;
  checks[2].published.target_qps = 75;
  const ServingCheck* offline = offline_partner(checks, checks[2]);
  ASSERT_EQ(offline, &checks[3]);
  EXPECT_NEAR(utilisation_matched_qps(checks[2], *offline), 82.5, 1e-9);
  checks[3].predicted_tokens_per_s = 0;  // not simulated: no figure, not the published QPS
  EXPECT_EQ(utilisation_matched_qps(checks[2], *offline), 0);
  checks[2].published.system = "C";
  EXPECT_EQ(offline_partner(checks, checks[2]), nullptr);
}

// The whole check as bench/serving_validation prints it, every row simulated (about 3 minutes of CPU).
// Measured 2026-11-27 with the fitted Llama 2 input mean (168) and efficiencies (TensorRT-LLM 0.884, vLLM
// 0.487), Server runs of 600 s (MLPerf's min_duration):
//   fit (16 rows): throughput mean |error| 6.2 %, worst 29.5 % (Offline 1.8 %, worst 8.2 %; Server at the
//   limits 10.6 %, worst 29.5 %: DGX-H100 Llama 2 TP 2).
//   evaluation (64 rows): throughput mean |error| 16.3 %, worst 91.3 % (Offline 10.6 %, worst 58.4 %; Server
//   at the limits 22.1 %, worst 91.3 %: H100 PCIe); both limits hold at the published QPS on all 32 Server
//   rows, p99 TPOT within 25 % on none (the simulated latencies under load are still 1.5-4x below the
//   published ones: the perf model's per-sequence time, docs/perf-serve.md "Latency under load").
// With 120 s Server runs (until 2026-11-27): fit 12.3 % / 40.6 % (Server 22.7 %), evaluation 21.3 % / 101.3 %
// (Server 32.1 %). With LoadGen's early stopping judging each Server run and the H100 NVL deployment read from
// NVIDIA's NVL classes (later 2026-11-27): fit 6.2 % / 29.5 % (Server 10.5 %), evaluation 16.2 % / 91.3 %
// (Offline 10.5 %, Server 21.9 %); at the published QPS TTFT p99 75.4 %, TPOT p99 58.7 % off (evaluation).
// The goals (15 % mean, 25 % worst, latencies within 25 %) are NOT met on the evaluation set; the
// thresholds below sit just above what is measured so that a change that makes it worse fails.
TEST(ServingValidation, ErrorsOnTheFitAndEvaluationSetsStayWhereMeasured) {
  const auto results = shared_results();
  SKIP_WITHOUT_SHARED(results);
  const auto checks = run_serving_checks(bundle().inputs(), *results);
  ASSERT_TRUE(checks.ok()) << checks.error_text();
  const ServingErrors fit = serving_errors(checks.value(), CheckSet::fit);
  const ServingErrors evaluation = serving_errors(checks.value(), CheckSet::evaluation);
  EXPECT_EQ(fit.offline_rows + fit.server_rows, 16);
  EXPECT_EQ(evaluation.offline_rows, 32);
  EXPECT_EQ(evaluation.server_rows, 32);
  // Measured 2026-11-27 (branch s13tails: the H200 Offline batch 806 read and the calibration re-run, input
  // mean 176, TensorRT-LLM 0.889, vLLM 0.495): fit 6.1 %, worst 28.1 %, Offline 1.7 %, Server 10.5 %.
  // With NVIDIA's harness dealing its TP-2 rows to the least-loaded instance (branch s14serve): 6.1 %, worst
  // 28.5 % (NVIDIA DGX-H100 Llama 2 Server, 28.1 % round-robin), Server 10.5 %; TTFT p99 63.5 % (64.1 %
  // round-robin), TPOT p99 37.9 % (37.8 %).
  EXPECT_LT(fit.throughput_mean, 6.5);
  EXPECT_LT(fit.throughput_worst, 29.0);
  EXPECT_LT(fit.ttft_p99_mean, 64.0);
  EXPECT_LT(fit.tpot_p99_mean, 38.3);
  EXPECT_LT(fit.offline_mean, 2.0);  // the calibration's 1.64 %
  EXPECT_LT(fit.server_mean, 11.0);
  // Measured the same day with the H100 PCIe box on its own harness settings (batch 896, KV-cache share
  // 0.95 / 0.97): 13.4 % (14.2 % before), worst 89.3 % (H100 PCIe Server; its Offline row +65.5 %), Offline
  // 7.8 %, Server at the limits 19.1 %.
  EXPECT_LT(evaluation.throughput_mean, 13.8);
  EXPECT_LT(evaluation.throughput_worst, 90.0);
  EXPECT_LT(evaluation.offline_mean, 8.2);
  EXPECT_LT(evaluation.offline_worst, 66.0);
  EXPECT_LT(evaluation.server_mean, 19.5);
  EXPECT_LT(evaluation.server_worst, 90.0);
  EXPECT_EQ(evaluation.server_limits_held, 32);
  // With the harness's dealing (s14serve): throughput 13.6 %, Server at the limits 19.3 % (a balanced
  // deployment meets the limits at a little more QPS), TTFT p99 71.2 % (73.9 % round-robin), TPOT p99 57.8 %
  // (57.5 %): the tails are two iterations (TTFT) and one (TPOT) of an iteration that is too short.
  EXPECT_LT(evaluation.ttft_p99_mean, 71.6);
  EXPECT_LT(evaluation.tpot_p99_mean, 58.2);
}

}  // namespace
}  // namespace gputwin
