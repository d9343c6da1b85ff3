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

// The whole check as bench/serving_validation prints it, every row simulated (about a minute of CPU).
// Measured 2026-11-26 with the efficiencies of data/perf/serving-engine-generations.yaml:
//   fit (16 rows):        throughput mean |error| 18.3 %, worst 42.5 % (Offline 15.9 %, Server at the
//   limits 20.8 %) evaluation (64 rows): throughput mean |error| 19.1 %, worst 44.0 % (Offline 22.4 %, Server
//   at the limits
//                         15.8 %, worst 32.7 %); at the target QPS p99 TPOT within 25 % on 12 of 32 Server
//                         rows, p99 TTFT on none; both limits hold on 12 of 32.
// The goals (15 % mean, 25 % worst, latencies within 25 %) are NOT met; the thresholds below sit just
// above what is measured so that a change that makes it worse fails.
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
  EXPECT_LT(fit.throughput_mean, 19.5);
  EXPECT_LT(evaluation.throughput_mean, 20.0);
  EXPECT_LT(evaluation.throughput_worst, 45.0);
  EXPECT_LT(evaluation.offline_mean, 23.5);
  EXPECT_LT(evaluation.server_mean, 17.0);
  EXPECT_LT(evaluation.server_worst, 34.0);
  EXPECT_GE(evaluation.tpot_p99_within_25, 12);
  EXPECT_GE(evaluation.server_limits_held, 12);
}

}  // namespace
}  // namespace gputwin
