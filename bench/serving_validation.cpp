// Prints `perf serve`'s simulation against MLPerf Inference v4.1 (closed, LLM Server and Offline): every row
// of the fit set, the evaluation set and the excluded rows, with its errors, and the means of each set
// (serve/serving_validation; split and deployments in data/reference/serving-mlperf-v4.1.yaml).
//   --calibrate      re-fits each engine generation's efficiency on its fit-set Offline rows (golden-section
//                    search on the mean |error|) and prints the values to store in
//                    data/perf/serving-engine-generations.yaml; evaluation rows are never scored.
//   --engine-effect  the engine generation's effect: the errors of both sets with every efficiency set to 1
//                    (no engine term) and with the generations' efficiencies swapped.
// Reads the results from ../shared (run from the repository root). Not run by CI; the thresholds are asserted
// by serve/serving_validation_test.cpp.
//
//   ninja -C build serving_validation && build/bench/serving_validation [--calibrate | --engine-effect]
#include "gputwin/serve/serving_validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace gputwin;

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

std::string latency(double predicted, const std::optional<double>& published) {
  if (!published) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.0f/%.0f (%+.0f %%)", predicted, *published,
                100.0 * (predicted - *published) / *published);
  return text;
}

void print_rows(const std::vector<ServingCheck>& checks, CheckSet set) {
  std::printf("\n### %s set\n\n", check_set_name(set));
  if (set == CheckSet::excluded) {
    std::printf("| submitter | system | benchmark | scenario | why |\n|---|---|---|---|---|\n");
    for (const auto& c : checks)
      if (c.set == set)
        std::printf("| %s | %s | %s | %s | %s |\n", c.published.submitter.c_str(), c.published.system.c_str(),
                    c.published.benchmark.c_str(), c.published.scenario.c_str(), c.note.c_str());
    return;
  }
  std::printf(
      "| submitter | system | benchmark | scenario | GPUs | TPxinst | engine | published tok/s | predicted "
      "tok/s | "
      "error | QPS at limits (published) | limits hold at target | TTFT p99 ms sim/pub | TPOT p99 ms sim/pub "
      "| "
      "TTFT p50 ms | TPOT p50 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& c : checks) {
    if (c.set != set) continue;
    const auto& p = c.published;
    std::printf("| %s | %s | %s | %s | %d | %dx%d | %s | %.0f | %.0f | %+.1f %% |", p.submitter.c_str(),
                p.system.c_str(), p.benchmark.c_str(), p.scenario.c_str(), p.gpus, c.tp, c.instances,
                c.engine.c_str(), p.tokens_per_s, c.predicted_tokens_per_s, c.error_percent());
    if (p.server()) {
      std::printf(" %.1f (%.1f) | %s | %s | %s | %s | %s |\n", c.highest_qps, p.target_qps,
                  c.limits_hold_at_target ? "yes" : "no", latency(c.ttft_p99_ms, p.ttft_p99_ms).c_str(),
                  latency(c.tpot_p99_ms, p.tpot_p99_ms).c_str(),
                  latency(c.ttft_p50_ms, p.ttft_p50_ms).c_str(),
                  latency(c.tpot_p50_ms, p.tpot_p50_ms).c_str());
    } else {
      std::printf(" - | - | - | - | - | - |\n");
    }
  }
}

void print_errors(const std::vector<ServingCheck>& checks, CheckSet set) {
  const ServingErrors e = serving_errors(checks, set);
  std::printf(
      "%-10s throughput mean |error| %.1f %%, worst %.1f %% (%d rows: Offline %.1f %% / worst %.1f %% over "
      "%d, "
      "Server at the limits %.1f %% / worst %.1f %% over %d); at the target QPS: TTFT p99 %.1f %%, TPOT p99 "
      "%.1f %%, TTFT p50 %.1f %%, TPOT p50 %.1f %%; p99 within 25 %%: TTFT %d, TPOT %d of %d; limits hold on "
      "%d of %d\n",
      check_set_name(set), e.throughput_mean, e.throughput_worst, e.offline_rows + e.server_rows,
      e.offline_mean, e.offline_worst, e.offline_rows, e.server_mean, e.server_worst, e.server_rows,
      e.ttft_p99_mean, e.tpot_p99_mean, e.ttft_p50_mean, e.tpot_p50_mean, e.ttft_p99_within_25,
      e.tpot_p99_within_25, e.server_rows, e.server_limits_held, e.server_rows);
}

// The rows of `checks` simulated again with each engine generation's efficiency replaced by `efficiency_of`.
template <class Efficiency>
std::vector<ServingCheck> rerun(const ServingValidationInputs& inputs, const MlperfResults& results,
                                const Efficiency& efficiency_of) {
  std::vector<ServingCheck> out;
  for (ServingCheck c : plan_serving_checks(inputs, results)) {
    const double efficiency = c.set == CheckSet::excluded ? 0 : efficiency_of(c.engine);
    out.push_back(simulate_serving_check(inputs, results, std::move(c), true, efficiency).value());
  }
  return out;
}

// Mean |error| of the fit-set Offline rows of one engine generation at a trial efficiency.
double fit_score(const ServingValidationInputs& inputs, const MlperfResults& results,
                 const std::vector<ServingCheck>& planned, const std::string& engine, double efficiency) {
  double sum = 0;
  int rows = 0;
  for (const ServingCheck& c : planned) {
    if (c.set != CheckSet::fit || c.engine != engine || c.published.server()) continue;
    sum += std::abs(simulate_serving_check(inputs, results, c, false, efficiency).value().error_percent());
    ++rows;
  }
  return rows > 0 ? sum / rows : 0;
}

int calibrate(const ServingValidationInputs& inputs, const MlperfResults& results) {
  const auto planned = plan_serving_checks(inputs, results);
  for (const EngineGeneration& engine : inputs.engines) {
    double low = 0.3, high = 2.0;  // golden-section search on a unimodal mean |error|
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    double a = high - ratio * (high - low), b = low + ratio * (high - low);
    double fa = fit_score(inputs, results, planned, engine.id, a);
    double fb = fit_score(inputs, results, planned, engine.id, b);
    for (int step = 0; step < 24; ++step) {
      if (fa < fb) {
        high = b, b = a, fb = fa;
        a = high - ratio * (high - low);
        fa = fit_score(inputs, results, planned, engine.id, a);
      } else {
        low = a, a = b, fa = fb;
        b = low + ratio * (high - low);
        fb = fit_score(inputs, results, planned, engine.id, b);
      }
    }
    const double best = (low + high) / 2;
    std::printf("%s: efficiency %.3f (fit-set Offline mean |error| %.2f %%; in use %.3f: %.2f %%)\n",
                engine.id.c_str(), best, fit_score(inputs, results, planned, engine.id, best),
                engine.efficiency, fit_score(inputs, results, planned, engine.id, engine.efficiency));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto catalog = Catalog::load({source_path("data/catalog")});
  const auto presets = load_model_presets(source_path("data/perf/models.yaml"));
  const auto collectives = load_collective_model(source_path("data/perf/nccl-cost-model.yaml"));
  const auto constants = load_inference_constants(source_path("data/perf/inference.yaml"));
  const auto engines = load_engine_generations(source_path("data/perf/serving-engine-generations.yaml"));
  const auto plan = load_serving_check_plan(source_path("data/reference/serving-mlperf-v4.1.yaml"));
  for (const std::string& error : {catalog.error_text(), presets.error_text(), collectives.error_text(),
                                   constants.error_text(), engines.error_text(), plan.error_text()}) {
    if (!error.empty()) {
      std::fprintf(stderr, "%s", error.c_str());
      return 1;
    }
  }
  const auto results = load_mlperf_results(source_path(plan.value().results_path));
  if (!results.ok()) {
    std::fprintf(stderr, "%s(the results are read from ../shared, beside the repository)\n",
                 results.error_text().c_str());
    return 1;
  }
  const ServingValidationInputs inputs{catalog.value(),   presets.value(), collectives.value(),
                                       constants.value(), engines.value(), plan.value()};
  if (mode == "--calibrate") return calibrate(inputs, results.value());
  if (mode == "--engine-effect") {
    std::printf("engine generations as fitted:\n");
    const auto fitted = rerun(inputs, results.value(), [&](const std::string& id) {
      for (const auto& e : inputs.engines)
        if (e.id == id) return e.efficiency;
      return 1.0;
    });
    print_errors(fitted, CheckSet::fit);
    print_errors(fitted, CheckSet::evaluation);
    std::printf("\nno engine term (every efficiency 1):\n");
    const auto none = rerun(inputs, results.value(), [](const std::string&) { return 1.0; });
    print_errors(none, CheckSet::fit);
    print_errors(none, CheckSet::evaluation);
    if (inputs.engines.size() == 2) {
      std::printf("\nthe two generations' efficiencies swapped (%s %.3f <-> %s %.3f):\n",
                  inputs.engines[0].id.c_str(), inputs.engines[0].efficiency, inputs.engines[1].id.c_str(),
                  inputs.engines[1].efficiency);
      const auto swapped = rerun(inputs, results.value(), [&](const std::string& id) {
        return id == inputs.engines[0].id ? inputs.engines[1].efficiency : inputs.engines[0].efficiency;
      });
      print_errors(swapped, CheckSet::fit);
      print_errors(swapped, CheckSet::evaluation);
    }
    return 0;
  }
  const auto checks = run_serving_checks(inputs, results.value());
  if (!checks.ok()) {
    std::fprintf(stderr, "%s", checks.error_text().c_str());
    return 1;
  }
  for (const CheckSet set : {CheckSet::fit, CheckSet::evaluation, CheckSet::excluded})
    print_rows(checks.value(), set);
  std::printf("\n");
  print_errors(checks.value(), CheckSet::fit);
  print_errors(checks.value(), CheckSet::evaluation);
  return 0;
}
