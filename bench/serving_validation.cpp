// Prints `perf serve`'s simulation against MLPerf Inference v4.1 (closed, LLM Server and Offline): every row
// of the fit set, the evaluation set and the excluded rows, with its errors, and the means of each set
// (serve/serving_validation; split and deployments in data/reference/serving-mlperf-v4.1.yaml).
//   --calibrate      re-fits, on the fit set's Offline rows only, each engine generation's efficiency and the
//                    input mean of the benchmark that declares input_mean_tokens, and prints the values to
//                    store in data/perf/serving-engine-generations.yaml and
//                    data/reference/serving-mlperf-v4.1.yaml; evaluation rows are never simulated.
//   --engine-effect  the engine generation's effect: the errors of both sets with every efficiency set to 1
//                    (no engine term) and with the generations' efficiencies swapped.
//   --load           issue 16: every Server row at its published QPS, the simulated engine's mean batch and
//                    iteration (split into its terms) against what the published Server and Offline figures
//                    imply, and the engine table's ITL-vs-concurrency line (t(n) = a + b n).
//   --tails [round_robin|least_in_flight]  issue 16: every Server row once at its published QPS, published vs
//                    simulated p99 TTFT and TPOT with the sign (simulated too fast or too slow) and what
//                    produces the simulated tails (admission queueing, chunked-prefill interleaving,
//                    preemption); the dealing over the instances as data/perf/serving-engine-generations.yaml
//                    says, or every generation's set to the one named (the dealing's effect).
//   --utilisation    issue 16's DIAGNOSTIC (not the headline): every Server row at its published QPS and
//                    again at the real system's utilisation (the published QPS x the simulated / published
//                    Offline tokens/s of the same system): p99 TTFT and TPOT errors at both, to tell a
//                    capacity error carried into the tails from a batching error.
//   --run-length ID=S,...  issue 16: every Server row once at its published QPS, engine generation ID's
//                    Server runs lasting S seconds: the run length's effect on the latencies.
//   --engine-tables  only the serving engines' own published rate-vs-latency tables
//                    (data/reference/serving-engine-tables.yaml), at efficiency 1 and at each engine
//                    generation's (the engine term's effect); the default run prints them after MLPerf.
// Reads the results from ../shared (run from the repository root). Not run by CI; the thresholds are asserted
// by serve/serving_validation_test.cpp.
//
//   ninja -C build serving_validation && build/bench/serving_validation [--calibrate | --engine-effect]
#include "gputwin/serve/serving_validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
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

// The saturated iteration of every simulated Offline row, worst throughput error first: which of the perf
// model's terms sets the row's time (compute- or memory-bound, the TP all-reduces, the host).
void print_breakdown(const ServingValidationInputs& inputs, const MlperfResults& results,
                     const std::vector<ServingCheck>& checks) {
  std::vector<const ServingCheck*> rows;
  for (const auto& c : checks)
    if (c.simulated && !c.published.server()) rows.push_back(&c);
  std::stable_sort(rows.begin(), rows.end(), [](const ServingCheck* a, const ServingCheck* b) {
    return std::abs(a->error_percent()) > std::abs(b->error_percent());
  });
  std::printf(
      "\n### saturated iteration of the Offline rows (worst first)\n\n"
      "| set | submitter | system | benchmark | TPxinst | decode seqs | prefill tok | compute ms | memory ms "
      "| "
      "comm ms | host ms | bound | sat. tok/s/GPU | sim tok/s/GPU | pub tok/s/GPU | error |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const ServingCheck* c : rows) {
    const auto it = saturated_iteration(inputs, results, *c);
    if (!it.ok()) continue;
    const SaturatedIteration& s = it.value();
    const double gpus = c->published.gpus;
    std::printf(
        "| %s | %s | %s | %s | %dx%d | %d | %.0f | %.1f | %.1f | %.1f | %.1f | %s | %.0f | %.0f | %.0f | "
        "%+.1f %% |\n",
        check_set_name(c->set), c->published.submitter.c_str(), c->published.system.c_str(),
        c->published.benchmark.c_str(), c->tp, c->instances, s.decode_sequences, s.prefill_tokens,
        s.time.compute_s * 1e3, s.time.memory_s * 1e3, s.time.communication_s * 1e3, s.time.host_s * 1e3,
        s.time.compute_bound() ? "compute" : "memory", s.output_tokens_per_s_per_gpu,
        c->predicted_tokens_per_s / gpus, c->published.tokens_per_s / gpus, c->error_percent());
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

// The efficiency that minimises the mean |error| of rows whose predictions at efficiency 1 are `unit` and
// whose published figures are `published`: Offline tokens/s scale exactly with the efficiency (every
// iteration's time is divided by it), so the mean |efficiency x unit / published - 1| is convex and piecewise
// linear in it, and its minimum is at one of the ratios published / unit.
std::pair<double, double> best_efficiency(const std::vector<double>& unit,
                                          const std::vector<double>& published) {
  double best = 1, best_score = 1e300;
  for (std::size_t k = 0; k < unit.size(); ++k) {
    const double candidate = published[k] / unit[k];
    double score = 0;
    for (std::size_t i = 0; i < unit.size(); ++i)
      score += std::abs(candidate * unit[i] / published[i] - 1) * 100;
    score /= static_cast<double>(unit.size());
    if (score < best_score) best = candidate, best_score = score;
  }
  return {best, best_score};
}

struct Calibration {
  int input_mean = 0;  // of the fitted benchmark (0: none fitted)
  std::vector<std::pair<std::string, double>> efficiencies;
  double score = 0;  // mean |error| over every fit-set Offline row, percent
};

// Every engine generation's efficiency fitted on its fit-set Offline rows, with `benchmark`'s input mean set
// to `mean` (0 = as the plan has it).
Calibration calibrate_at(const ServingValidationInputs& base, const MlperfResults& results,
                         const std::string& benchmark, int mean) {
  ServingCheckPlan plan = base.plan;
  for (ServingBenchmark& b : plan.benchmarks)
    if (b.id == benchmark && mean > 0) b.input_mean_tokens = mean;
  const ServingValidationInputs inputs{base.catalog,   base.presets, base.collectives,
                                       base.constants, base.engines, plan};
  Calibration out;
  out.input_mean = mean;
  int rows = 0;
  for (const EngineGeneration& engine : inputs.engines) {
    std::vector<double> unit, published;
    for (const ServingCheck& c : plan_serving_checks(inputs, results)) {
      if (c.set != CheckSet::fit || c.engine != engine.id || c.published.server()) continue;
      unit.push_back(simulate_serving_check(inputs, results, c, false, 1.0).value().predicted_tokens_per_s);
      published.push_back(c.published.tokens_per_s);
    }
    if (unit.empty()) continue;
    const auto [efficiency, score] = best_efficiency(unit, published);
    out.efficiencies.emplace_back(engine.id, efficiency);
    out.score += score * static_cast<double>(unit.size());
    rows += static_cast<int>(unit.size());
  }
  if (rows > 0) out.score /= rows;
  return out;
}

// Fits, on the fit set's Offline rows only, each engine generation's efficiency and the input mean of every
// benchmark whose plan entry declares `input_mean_tokens` (a grid from 32 tokens up to half the longest
// input, refined to 8 tokens around the best). Evaluation rows are never simulated.
int calibrate(const ServingValidationInputs& inputs, const MlperfResults& results) {
  const auto print = [](const Calibration& c) {
    std::printf("  input mean %4d: fit-set Offline mean |error| %.2f %%;", c.input_mean, c.score);
    for (const auto& [id, efficiency] : c.efficiencies) std::printf(" %s %.3f", id.c_str(), efficiency);
    std::printf("\n");
  };
  std::string fitted;
  int max_tokens = 0;
  for (const ServingBenchmark& b : inputs.plan.benchmarks)
    if (b.input_mean_tokens > 0) fitted = b.id, max_tokens = b.input_max_tokens;
  if (fitted.empty()) {
    std::printf("no benchmark declares input_mean_tokens: efficiencies only\n");
    print(calibrate_at(inputs, results, "", 0));
    return 0;
  }
  std::printf("%s: input mean and efficiencies, fitted on the fit set's Offline rows\n", fitted.c_str());
  Calibration best;
  best.score = 1e300;
  for (int mean = 32; 2 * mean - 1 <= max_tokens; mean += 32) {
    const Calibration c = calibrate_at(inputs, results, fitted, mean);
    print(c);
    if (c.score < best.score) best = c;
  }
  const int centre = best.input_mean;
  for (int mean = centre - 24; mean <= centre + 24; mean += 8) {
    if (mean == centre || mean < 8 || 2 * mean - 1 > max_tokens) continue;
    const Calibration c = calibrate_at(inputs, results, fitted, mean);
    print(c);
    if (c.score < best.score) best = c;
  }
  std::printf("best:\n");
  print(best);
  return 0;
}

void print_engine_tables(const ServingValidationInputs& inputs, const EngineTables& tables, double efficiency,
                         const std::string& label) {
  const auto checks = run_engine_table_checks(inputs, tables, efficiency);
  if (!checks.ok()) {
    std::fprintf(stderr, "%s", checks.error_text().c_str());
    return;
  }
  std::printf("\n### engine tables, efficiency %.3f (%s)\n\n", efficiency, label.c_str());
  std::printf(
      "| table | version | set | concurrency | tok/s sim/pub | TTFT ms sim/pub | ITL ms sim/pub |\n"
      "|---|---|---|---|---|---|---|\n");
  for (const EngineTableCheck& c : checks.value())
    std::printf(
        "| %s | %s | %s | %d | %.0f/%.0f (%+.1f %%) | %.0f/%.0f (%+.1f %%) | %.1f/%.1f (%+.1f %%) |\n",
        c.table.c_str(), c.engine_version.c_str(), c.set.c_str(), c.published.concurrency,
        c.output_tokens_per_s, c.published.output_tokens_per_s, c.throughput_error_percent(), c.ttft_ms,
        c.published.ttft_ms, c.ttft_error_percent(), c.itl_ms, c.published.itl_ms, c.itl_error_percent());
  for (const std::string set : {"fit", "evaluation"}) {
    const EngineTableErrors e = engine_table_errors(checks.value(), set);
    if (e.rows == 0) continue;
    std::printf(
        "%-10s %d rows: throughput mean |error| %.1f %%, worst %.1f %% (within 15 %%: %d); TTFT %.1f %%, "
        "worst "
        "%.1f %% (within 25 %%: %d); ITL %.1f %%, worst %.1f %% (within 25 %%: %d)\n",
        set.c_str(), e.rows, e.throughput_mean, e.throughput_worst, e.throughput_within_15, e.ttft_mean,
        e.ttft_worst, e.ttft_within_25, e.itl_mean, e.itl_worst, e.itl_within_25);
  }
}

// The scheduler's effect: every table again with vLLM V1's admission (admit on the prompt's blocks, preempt
// the latest when the cache is full) instead of the policy its data names.
void print_scheduler_effect(const ServingValidationInputs& inputs, EngineTables tables) {
  for (EngineTable& t : tables.tables) t.scheduler = SchedulerPolicy::vllm_v1;
  print_engine_tables(inputs, tables, 1.0, "every table with vLLM V1's admission and preemption instead");
}

// A DIAGNOSTIC of the closed loop's start: every client sends its first request at once, so the first round's
// prompts queue behind each other; how much of the TTFT that is shows in the same tables with more requests
// per client (the first round weighs less). The benchmark's own start-up and request count are not
// published with the table, so nothing is chosen from this.
void print_start_up_effect(const ServingValidationInputs& inputs, EngineTables tables) {
  std::printf(
      "\n### closed-loop start-up (diagnostic): TTFT ms sim/published by requests per client, efficiency "
      "1\n\n");
  const std::vector<int> rounds{4, 20, 100};
  std::vector<std::vector<EngineTableCheck>> by_rounds;
  for (const int r : rounds) {
    for (EngineTable& t : tables.tables) t.rounds_per_client = r;
    const auto checks = run_engine_table_checks(inputs, tables, 1.0);
    if (!checks.ok()) {
      std::fprintf(stderr, "%s", checks.error_text().c_str());
      return;
    }
    by_rounds.push_back(checks.value());
  }
  std::printf("| table | concurrency | 4 rounds | 20 rounds | 100 rounds |\n|---|---|---|---|---|\n");
  for (std::size_t k = 0; k < by_rounds[0].size(); ++k) {
    std::printf("| %s | %d |", by_rounds[0][k].table.c_str(), by_rounds[0][k].published.concurrency);
    for (const auto& checks : by_rounds)
      std::printf(" %.0f/%.0f (%+.1f %%) |", checks[k].ttft_ms, checks[k].published.ttft_ms,
                  checks[k].ttft_error_percent());
    std::printf("\n");
  }
}

int engine_tables(const ServingValidationInputs& inputs) {
  const auto tables = load_engine_tables(source_path("data/reference/serving-engine-tables.yaml"));
  if (!tables.ok()) {
    std::fprintf(stderr, "%s", tables.error_text().c_str());
    return 1;
  }
  print_engine_tables(inputs, tables.value(), 1.0, "the perf model's timing, as perf serve runs by default");
  for (const EngineGeneration& e : inputs.engines)
    print_engine_tables(inputs, tables.value(), e.efficiency, "engine generation " + e.id);
  print_scheduler_effect(inputs, tables.value());
  print_start_up_effect(inputs, tables.value());
  return 0;
}

// t(n) = a + b n through two points (n1, t1), (n2, t2); b per sequence.
std::pair<double, double> line_through(double n1, double t1, double n2, double t2) {
  const double b = (t2 - t1) / (n2 - n1);
  return {t1 - b * n1, b};
}

// Least-squares t(n) = a + b n.
std::pair<double, double> least_squares(const std::vector<double>& n, const std::vector<double>& t) {
  double sn = 0, st = 0, snn = 0, snt = 0;
  for (std::size_t k = 0; k < n.size(); ++k) sn += n[k], st += t[k], snn += n[k] * n[k], snt += n[k] * t[k];
  const auto count = static_cast<double>(n.size());
  const double b = (count * snt - sn * st) / (count * snn - sn * sn);
  return {(st - b * sn) / count, b};
}

// TTFT counted in iterations (TPOT p50), simulated and published, and both p99s: whether TTFT under load is
// queueing (many iterations) or the iteration itself (the wait for the running one, then the prefill's).
std::string ttft_in_iterations(const ServerLoad& l, const MlperfResult& p) {
  if (!p.ttft_p50_ms || !p.tpot_p50_ms || l.tpot_p50_ms <= 0) return "- | - | - | -";
  char text[200];
  std::snprintf(text, sizeof text, "%.2f/%.2f | %.2f/%.2f | %.0f/%.0f | %.0f/%.0f",
                l.ttft_p50_ms / l.tpot_p50_ms, *p.ttft_p50_ms / *p.tpot_p50_ms, l.ttft_p99_ms / l.tpot_p50_ms,
                *p.ttft_p99_ms / *p.tpot_p50_ms, l.ttft_p99_ms, *p.ttft_p99_ms, l.tpot_p99_ms,
                *p.tpot_p99_ms);
  return text;
}

// Issue 16's question: at the published QPS, how many sequences does the simulated engine carry and how long
// is its iteration, against the published point (TPOT p50, tokens/s x TPOT p50 sequences); the perf model's
// t(n) = a + b n; and the line the published Server and Offline points of the same system imply (Offline:
// its sequence slots all decoding, t = slots / tokens/s per instance).
int load_breakdown(const ServingValidationInputs& inputs, const MlperfResults& results) {
  const auto planned = plan_serving_checks(inputs, results);
  std::printf(
      "### Server rows at the published QPS, per instance\n\n"
      "| set | submitter | system | benchmark | TPxinst | QPS | sim seqs | sim prefill tok/it | sim it ms "
      "(compute/memory/comm/host) | model a ms | model b us/seq | pub seqs | pub it ms (TPOT p50) | "
      "Offline slots | Offline it ms | implied a ms | implied b us/seq | TTFT p50 / TPOT p50 sim/pub | "
      "TTFT p99 / TPOT p50 sim/pub | TTFT p99 ms sim/pub | TPOT p99 ms sim/pub |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const CheckSet set : {CheckSet::fit, CheckSet::evaluation}) {
    for (const ServingCheck& c : planned) {
      if (c.set != set || !c.published.server()) continue;
      const auto load = server_load(inputs, results, c);
      if (!load.ok()) {
        std::fprintf(stderr, "%s", load.error_text().c_str());
        return 1;
      }
      const ServerLoad& l = load.value();
      std::string offline = "- | - | - | -";
      for (const ServingCheck& o : planned) {
        if (o.set != set || o.published.server() || o.published.system != c.published.system ||
            o.published.submitter != c.published.submitter || o.published.benchmark != c.published.benchmark)
          continue;
        const double t_off = o.sequences / (o.published.tokens_per_s / o.instances) * 1e3;
        const auto [a, b] = line_through(l.published_sequences, l.published_iteration_ms, o.sequences, t_off);
        char text[160];
        std::snprintf(text, sizeof text, "%d | %.1f | %.1f | %.1f", o.sequences, t_off, a, b * 1e3);
        offline = text;
      }
      std::printf(
          "| %s | %s | %s | %s | %dx%d | %.1f | %.0f | %.0f | %.1f (%.1f/%.1f/%.1f/%.1f) | %.1f | %.1f | "
          "%.0f | "
          "%.1f | %s | %s |\n",
          check_set_name(set), c.published.submitter.c_str(), c.published.system.c_str(),
          c.published.benchmark.c_str(), c.tp, c.instances, c.published.target_qps, l.sequences,
          l.prefill_tokens, l.iteration_ms, l.compute_ms, l.memory_ms, l.communication_ms, l.host_ms,
          l.model_a_ms, l.model_b_ms * 1e3, l.published_sequences, l.published_iteration_ms, offline.c_str(),
          ttft_in_iterations(l, c.published).c_str());
    }
  }
  // The engine tables: ITL against concurrency is t(n) itself, below the KV-cache cap (concurrency <= 50).
  const auto tables = load_engine_tables(source_path("data/reference/serving-engine-tables.yaml"));
  if (!tables.ok()) return 1;
  const auto checks = run_engine_table_checks(inputs, tables.value());
  if (!checks.ok()) return 1;
  std::vector<double> n, published, simulated;
  for (const EngineTableCheck& c : checks.value()) {
    if (c.published.concurrency > 50) continue;
    n.push_back(c.published.concurrency);
    published.push_back(c.published.itl_ms);
    simulated.push_back(c.itl_ms);
  }
  if (n.size() >= 2) {
    const auto [pa, pb] = least_squares(n, published);
    const auto [sa, sb] = least_squares(n, simulated);
    std::printf(
        "\nengine table %s, ITL = a + b x concurrency over concurrency <= 50 (least squares): published a "
        "%.1f ms, b %.0f us; simulated a %.1f ms, b %.0f us\n",
        checks.value().front().table.c_str(), pa, pb * 1e3, sa, sb * 1e3);
  }
  return 0;
}

std::string p99_against(double simulated, const std::optional<double>& published) {
  if (!published) return "- | -";
  const double error = 100.0 * (simulated - *published) / *published;
  char text[96];
  std::snprintf(text, sizeof text, "%.0f/%.0f (%+.0f %%) | %s", simulated, *published, error,
                error < 0 ? "too fast" : "too slow");
  return text;
}

// Issue 16's first question: per Server row at its published QPS, how far and which way the simulated p99
// TTFT and TPOT are from the published ones, and which scheduler behaviour makes the simulated tail.
int tails(const ServingValidationInputs& inputs, const MlperfResults& results, const std::string& dealing) {
  if (!dealing.empty() && dealing != "round_robin" && dealing != "least_in_flight") {
    std::fprintf(stderr, "--tails: expected round_robin or least_in_flight, got '%s'\n", dealing.c_str());
    return 1;
  }
  auto planned = plan_serving_checks(inputs, results);
  if (!dealing.empty())
    for (ServingCheck& c : planned)
      c.dealing = dealing == "round_robin" ? Dealing::round_robin : Dealing::least_in_flight;
  std::printf(
      "### Server rows at the published QPS: p99 tails (dealing: %s)\n\n"
      "| set | submitter | system | benchmark | TPxinst | QPS | TTFT p99 ms sim/pub | TTFT | TPOT p99 ms "
      "sim/pub | TPOT | sim/pub seqs per instance | TTFT p50 / TPOT p50 sim/pub | TTFT tail: queued share, "
      "preempted | TPOT tail: in prefill iterations (all requests), preempted |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
      dealing.empty() ? "as the engine generations' data" : dealing.c_str());
  for (const CheckSet set : {CheckSet::fit, CheckSet::evaluation}) {
    double ttft_error = 0, tpot_error = 0;
    int rows = 0, ttft_low = 0, tpot_low = 0;
    for (const ServingCheck& c : planned) {
      if (c.set != set || !c.published.server()) continue;
      const auto load = server_load(inputs, results, c);
      if (!load.ok()) {
        std::fprintf(stderr, "%s", load.error_text().c_str());
        return 1;
      }
      const ServerLoad& l = load.value();
      const MlperfResult& p = c.published;
      std::printf(
          "| %s | %s | %s | %s | %dx%d | %.1f | %s | %s | %.0f/%.0f | %.2f/%.2f | %.0f %%, %.0f %% | %.0f %% "
          "(%.0f %%), %.0f %% |\n",
          check_set_name(set), p.submitter.c_str(), p.system.c_str(), p.benchmark.c_str(), c.tp, c.instances,
          p.target_qps, p99_against(l.ttft_p99_ms, p.ttft_p99_ms).c_str(),
          p99_against(l.tpot_p99_ms, p.tpot_p99_ms).c_str(), l.sequences, l.published_sequences,
          l.tpot_p50_ms > 0 ? l.ttft_p50_ms / l.tpot_p50_ms : 0.0,
          p.ttft_p50_ms && p.tpot_p50_ms ? *p.ttft_p50_ms / *p.tpot_p50_ms : 0.0,
          100 * l.ttft_tail_queue_share, 100 * l.ttft_tail_preempted_share, 100 * l.tpot_tail_prefill_share,
          100 * l.tpot_all_prefill_share, 100 * l.tpot_tail_preempted_share);
      if (!p.ttft_p99_ms || !p.tpot_p99_ms) continue;
      ++rows;
      ttft_error += std::abs(l.ttft_p99_ms - *p.ttft_p99_ms) / *p.ttft_p99_ms;
      tpot_error += std::abs(l.tpot_p99_ms - *p.tpot_p99_ms) / *p.tpot_p99_ms;
      ttft_low += l.ttft_p99_ms < *p.ttft_p99_ms;
      tpot_low += l.tpot_p99_ms < *p.tpot_p99_ms;
    }
    std::printf(
        "\n%s: %d rows, TTFT p99 mean |error| %.1f %% (%d too fast), TPOT p99 %.1f %% (%d too fast)\n\n",
        check_set_name(set), rows, rows ? 100 * ttft_error / rows : 0.0, ttft_low,
        rows ? 100 * tpot_error / rows : 0.0, tpot_low);
  }
  return 0;
}

// |simulated - published| / published, or nullopt when nothing was published.
std::optional<double> relative_error(double simulated, const std::optional<double>& published) {
  if (!published || *published <= 0) return std::nullopt;
  return std::abs(simulated - *published) / *published;
}

struct TailErrors {  // over the rows of one set with both p99s published
  int rows = 0, ttft_within_25 = 0, tpot_within_25 = 0;
  double ttft = 0, tpot = 0;  // sums of |error|
  void add(const ServerLoad& load, const MlperfResult& p) {
    const auto ttft_error = relative_error(load.ttft_p99_ms, p.ttft_p99_ms);
    const auto tpot_error = relative_error(load.tpot_p99_ms, p.tpot_p99_ms);
    if (!ttft_error || !tpot_error) return;
    ++rows;
    ttft += *ttft_error;
    tpot += *tpot_error;
    ttft_within_25 += *ttft_error <= 0.25;
    tpot_within_25 += *tpot_error <= 0.25;
  }
  void print(const char* label) const {
    std::printf(
        "  %-28s TTFT p99 mean |error| %.1f %% (%d of %d within 25 %%), TPOT p99 %.1f %% (%d of %d)\n", label,
        rows ? 100 * ttft / rows : 0.0, ttft_within_25, rows, rows ? 100 * tpot / rows : 0.0, tpot_within_25,
        rows);
  }
};

// Issue 16's DIAGNOSTIC, not the headline: every Server row simulated again at the utilisation the real
// system ran it at (its published QPS x the simulated / published Offline tokens/s of the same system,
// utilisation_matched_qps), beside the run at the published QPS. If the tails fall within about 25 % at the
// matched utilisation, the queueing and batching are right and the tail error is the capacity error carried
// through rho / (1 - rho); if not, the batching is wrong. The headline errors stay those at the published
// QPS.
int utilisation_diagnostic(const ServingValidationInputs& inputs, const MlperfResults& results) {
  std::vector<ServingCheck> planned = plan_serving_checks(inputs, results);
  for (ServingCheck& c : planned) {
    if (c.set == CheckSet::excluded || c.published.server()) continue;
    auto simulated = simulate_serving_check(inputs, results, c, false);
    if (!simulated.ok()) {
      std::fprintf(stderr, "%s", simulated.error_text().c_str());
      return 1;
    }
    c = std::move(simulated).value();
  }
  std::printf(
      "### DIAGNOSTIC (not the headline): Server rows at the real system's utilisation\n\n"
      "matched QPS = published QPS x simulated Offline tok/s / published Offline tok/s (the same system's "
      "Offline row)\n\n"
      "| set | submitter | system | benchmark | TPxinst | QPS pub -> matched | Offline tok/s sim/pub | "
      "seqs per instance at pub / matched / published | TTFT p99 ms at pub, at matched / published | "
      "TPOT p99 ms at pub, at matched / published |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (const CheckSet set : {CheckSet::fit, CheckSet::evaluation}) {
    TailErrors at_published, at_matched;
    int unmatched = 0;
    for (const ServingCheck& c : planned) {
      if (c.set != set || !c.published.server()) continue;
      const ServingCheck* offline = offline_partner(planned, c);
      const double matched_qps = offline ? utilisation_matched_qps(c, *offline) : 0;
      if (matched_qps <= 0) {
        ++unmatched;
        continue;
      }
      ServingCheck matched = c;
      matched.published.target_qps = matched_qps;
      const auto published_load = server_load(inputs, results, c);
      const auto matched_load = server_load(inputs, results, matched);
      for (const auto* load : {&published_load, &matched_load})
        if (!load->ok()) {
          std::fprintf(stderr, "%s", load->error_text().c_str());
          return 1;
        }
      const ServerLoad& l0 = published_load.value();
      const ServerLoad& l1 = matched_load.value();
      const MlperfResult& p = c.published;
      std::printf(
          "| %s | %s | %s | %s | %dx%d | %.1f -> %.1f | %.0f/%.0f (%+.1f %%) | %.0f / %.0f / %.0f | "
          "%.0f, %s | %.0f, %s |\n",
          check_set_name(set), p.submitter.c_str(), p.system.c_str(), p.benchmark.c_str(), c.tp, c.instances,
          p.target_qps, matched_qps, offline->predicted_tokens_per_s, offline->published.tokens_per_s,
          offline->error_percent(), l0.sequences, l1.sequences, l1.published_sequences, l0.ttft_p99_ms,
          latency(l1.ttft_p99_ms, p.ttft_p99_ms).c_str(), l0.tpot_p99_ms,
          latency(l1.tpot_p99_ms, p.tpot_p99_ms).c_str());
      at_published.add(l0, p);
      at_matched.add(l1, p);
    }
    std::printf("\n%s set (%d Server rows without a simulated Offline row of the same system, left out):\n",
                check_set_name(set), unmatched);
    at_published.print("at the published QPS:");
    at_matched.print("at the matched utilisation:");
    std::printf("\n");
  }
  return 0;
}

// Issue 16, what if each harness's Server run lasted its own LoadGen min_duration: every Server row simulated
// once at its published QPS (no QPS search) with the length given for its engine generation
// (`--run-length ID=SECONDS,...`; the values and their sources are the caller's, see docs/perf-serve.md; a
// generation not named keeps the plan's). Prints the latency errors at the published QPS of both sets; the
// plan's own run length gives the default run's figures (the same at-target simulation).
int run_length_effect(const ServingValidationInputs& inputs, const MlperfResults& results,
                      const std::string& spec) {
  std::vector<std::pair<std::string, double>> lengths;
  std::size_t start = 0;
  while (start < spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || std::atof(item.c_str() + eq + 1) <= 0) {
      std::fprintf(stderr, "--run-length: expected ID=SECONDS, got '%s'\n", item.c_str());
      return 2;
    }
    lengths.emplace_back(item.substr(0, eq), std::atof(item.c_str() + eq + 1));
    start = comma + 1;
  }
  const auto length_of = [&](const std::string& engine) {
    for (const auto& [id, seconds] : lengths)
      if (id == engine) return seconds;
    return inputs.plan.run.server_duration_s;
  };
  std::vector<ServingCheck> checks;
  for (ServingCheck c : plan_serving_checks(inputs, results)) {
    if (c.set == CheckSet::excluded || !c.published.server()) continue;
    ServingCheckPlan plan = inputs.plan;
    plan.run.server_duration_s = length_of(c.engine);
    const ServingValidationInputs row_inputs{inputs.catalog,   inputs.presets, inputs.collectives,
                                             inputs.constants, inputs.engines, plan};
    auto simulated = simulate_serving_check(row_inputs, results, std::move(c), false);
    if (!simulated.ok()) {
      std::fprintf(stderr, "%s", simulated.error_text().c_str());
      return 1;
    }
    checks.push_back(std::move(simulated).value());
  }
  std::printf(
      "### Server rows at the published QPS, each engine generation's run length\n\n"
      "| set | submitter | system | benchmark | s | TTFT p99 ms sim/pub | TPOT p99 ms sim/pub |\n"
      "|---|---|---|---|---|---|---|\n");
  for (const ServingCheck& c : checks)
    std::printf("| %s | %s | %s | %s | %.0f | %s | %s |\n", check_set_name(c.set),
                c.published.submitter.c_str(), c.published.system.c_str(), c.published.benchmark.c_str(),
                length_of(c.engine), latency(c.ttft_p99_ms, c.published.ttft_p99_ms).c_str(),
                latency(c.tpot_p99_ms, c.published.tpot_p99_ms).c_str());
  for (const CheckSet set : {CheckSet::fit, CheckSet::evaluation}) {
    const ServingErrors e = serving_errors(checks, set);
    std::printf(
        "%-10s at the published QPS: TTFT p99 %.1f %%, TPOT p99 %.1f %% mean |error|; TTFT p50 %.1f %%, "
        "TPOT p50 %.1f %%; p99 within 25 %%: TTFT %d, TPOT %d of %d; limits hold on %d\n",
        check_set_name(set), e.ttft_p99_mean, e.tpot_p99_mean, e.ttft_p50_mean, e.tpot_p50_mean,
        e.ttft_p99_within_25, e.tpot_p99_within_25, e.server_rows, e.server_limits_held);
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
  if (mode == "--engine-tables") return engine_tables(inputs);
  if (mode == "--load") return load_breakdown(inputs, results.value());
  if (mode == "--tails") return tails(inputs, results.value(), argc > 2 ? argv[2] : "");
  if (mode == "--utilisation") return utilisation_diagnostic(inputs, results.value());
  if (mode == "--run-length") return run_length_effect(inputs, results.value(), argc > 2 ? argv[2] : "");
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
  print_breakdown(inputs, results.value(), checks.value());
  std::printf("\n");
  print_errors(checks.value(), CheckSet::fit);
  print_errors(checks.value(), CheckSet::evaluation);
  return engine_tables(inputs);
}
