#include "gputwin/serve/serving_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gputwin/core/random.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/serve/requests.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin {
namespace {

bool contains(const std::string& text, const std::string& piece) {
  return !piece.empty() && text.find(piece) != std::string::npos;
}

// Inputs drawn uniformly on 1..span (the whole 1..max, or 1..(2 mean - 1) when the mean is fitted), outputs
// uniformly on 1..(2 mean - 1): the stated distributions of the reference file (the datasets' own were not
// found).
void draw_lengths(std::vector<ServeRequest>& requests, const ServingBenchmark& benchmark,
                  std::uint64_t seed) {
  Random random(seed);
  const auto output_span = static_cast<std::uint64_t>(std::max(1, 2 * benchmark.output_mean_tokens - 1));
  for (ServeRequest& request : requests) {
    request.input_tokens =
        1 + static_cast<int>(random.below(static_cast<std::uint64_t>(benchmark.input_span_tokens())));
    request.output_tokens = 1 + static_cast<int>(random.below(output_span));
  }
}

// The first deployment whose pieces the row matches (a system-specific one is listed before its accelerator's).
const ServingDeployment* deployment_of(const ServingCheckPlan& plan, const MlperfResult& row) {
  for (const ServingDeployment& d : plan.deployments)
    if (d.benchmark == row.benchmark && contains(row.accelerator, d.accelerator_contains) &&
        (d.system_contains.empty() || contains(row.system, d.system_contains)))
      return &d;
  return nullptr;
}

const EngineGeneration* engine_of(const std::vector<EngineGeneration>& engines, const std::string& text) {
  for (const EngineGeneration& e : engines)
    for (const std::string& piece : e.engines)
      if (text.rfind(piece, 0) == 0) return &e;
  return nullptr;
}

// The simulation of one row at one load, with what it needs built once.
class RowSimulation {
 public:
  RowSimulation(const IterationModel& model, const ServingBenchmark& benchmark, const ServingCheck& check,
                const EngineGeneration& engine, const ServingRunParameters& run, double efficiency)
      : model_(model), benchmark_(benchmark), check_(check), run_(run) {
    setup_.replicas = check.instances;
    setup_.dealing = check.dealing;
    setup_.gpus_per_replica = check.tp;
    setup_.limits.max_batched_tokens = engine.max_batched_tokens;
    setup_.limits.block_tokens = engine.block_tokens;
    setup_.limits.max_sequences = check.sequences;
    setup_.limits.kv_capacity_tokens = model.kv_capacity_tokens();
    setup_.options.sample_every_s = 0;
    setup_.engine_efficiency = efficiency;
  }
  // A Server row counts its requests over each limit (for LoadGen's early stopping).
  void count_over(const ServerLimits& limits) {
    setup_.targets.ttft_s = limits.ttft_p99_ms / 1e3;
    setup_.targets.tpot_s = limits.tpot_p99_ms / 1e3;
    setup_.targets.percentile = 0.99;
  }

  [[nodiscard]] std::vector<ServeRequest> server_requests(double qps) const {
    ArrivalProcess process{qps, run_.server_duration_s, 1, 1, 1};
    std::vector<ServeRequest> requests = generate_arrivals(process, run_.seed);
    draw_lengths(requests, benchmark_, run_.seed + 1);
    return requests;
  }
  ServeSummary server(double qps) const {
    return simulate_serving(model_, server_requests(qps), setup_).summary;
  }
  // Every request's outcome kept (ServingResult::requests), for what produced the tails.
  [[nodiscard]] ServingResult server_run(const std::vector<ServeRequest>& requests) const {
    ServingSetup setup = setup_;
    setup.keep_requests = true;
    return simulate_serving(model_, requests, setup);
  }

  // Steady-state tokens/s with every request queued at once: the difference of a run of N and one of 2N
  // requests (the same first N), so the ramp at the start and the drain at the end cancel.
  double offline() const {
    const int n = run_.offline_requests_per_sequence * check_.sequences * check_.instances;
    std::vector<ServeRequest> requests(static_cast<std::size_t>(2 * n));
    draw_lengths(requests, benchmark_, run_.seed + 1);
    const ServeSummary all = simulate_serving(model_, requests, setup_).summary;
    requests.resize(static_cast<std::size_t>(n));
    const ServeSummary half = simulate_serving(model_, requests, setup_).summary;
    const double tokens = all.output_tokens_per_s * all.span_s - half.output_tokens_per_s * half.span_s;
    const double seconds = all.span_s - half.span_s;
    return seconds > 0 ? tokens / seconds : 0;
  }

 private:
  const IterationModel& model_;
  const ServingBenchmark& benchmark_;
  const ServingCheck& check_;
  const ServingRunParameters& run_;
  ServingSetup setup_;
};

// LoadGen's validity of a Server run with token latencies: every query answered, the p99 of TTFT and of
// TPOT within their limits, and early stopping met for each (results.cc: PerfConstraintsMet, EarlyStopping).
bool within_limits(const ServeSummary& s, const ServerLimits& limits, const ServingRunParameters& run) {
  const auto early_stopping = [&](int over) {
    return mlperf_early_stopping_passes(s.requests, over, run.early_stopping_percentile,
                                        run.early_stopping_confidence);
  };
  return s.finished == s.requests && s.ttft_s.p99 * 1e3 <= limits.ttft_p99_ms &&
         s.tpot_s.p99 * 1e3 <= limits.tpot_p99_ms && early_stopping(s.ttft_over_target) &&
         early_stopping(s.tpot_over_target);
}

// ServerLoad's tail shares (its comment says which), from every request's outcome.
void attribute_tails(const std::vector<RequestOutcome>& requests, const ServeSummary& summary,
                     ServerLoad& load) {
  const auto ttft = [](const RequestOutcome& r) { return r.first_token_s - r.arrival_s; };
  const auto tpot = [](const RequestOutcome& r) {
    return r.output_tokens > 1 ? r.token_gap_sum_s / (r.output_tokens - 1) : 0.0;
  };
  const auto prefill_share = [](const RequestOutcome& r) {
    return r.token_gap_sum_s > 0 ? r.gap_with_prefill_sum_s / r.token_gap_sum_s : 0.0;
  };
  double ttft_tail = 0, tpot_tail = 0, with_gaps = 0;
  for (const RequestOutcome& r : requests) {
    if (!r.finished()) continue;
    if (r.token_gap_sum_s > 0) {
      load.tpot_all_prefill_share += prefill_share(r);
      ++with_gaps;
    }
    if (ttft(r) >= summary.ttft_s.p99) {
      load.ttft_tail_queue_share += ttft(r) > 0 ? (r.first_scheduled_s - r.arrival_s) / ttft(r) : 0;
      load.ttft_tail_preempted_share += r.preemptions > 0;
      ++ttft_tail;
    }
    if (r.output_tokens > 1 && tpot(r) >= summary.tpot_s.p99) {
      load.tpot_tail_prefill_share += prefill_share(r);
      load.tpot_tail_preempted_share += r.preemptions > 0;
      ++tpot_tail;
    }
  }
  const auto mean = [](double& sum, double n) { sum = n > 0 ? sum / n : 0; };
  mean(load.ttft_tail_queue_share, ttft_tail);
  mean(load.ttft_tail_preempted_share, ttft_tail);
  mean(load.tpot_tail_prefill_share, tpot_tail);
  mean(load.tpot_tail_preempted_share, tpot_tail);
  mean(load.tpot_all_prefill_share, with_gaps);
}

double mean_output_tokens(const ServingBenchmark& benchmark) {
  // uniform on 1..(2 mean - 1)
  return static_cast<double>(std::max(1, 2 * benchmark.output_mean_tokens - 1) + 1) / 2.0;
}

}  // namespace

const char* check_set_name(CheckSet set) {
  switch (set) {
    case CheckSet::fit:
      return "fit";
    case CheckSet::evaluation:
      return "evaluation";
    case CheckSet::excluded:
      return "excluded";
  }
  return "";
}

double ServingCheck::error_percent() const {
  return 100.0 * (predicted_tokens_per_s - published.tokens_per_s) / published.tokens_per_s;
}

std::vector<ServingCheck> plan_serving_checks(const ServingValidationInputs& inputs,
                                              const MlperfResults& results) {
  std::vector<ServingCheck> checks;
  for (const MlperfResult& row : results.rows) {
    ServingCheck check;
    check.published = row;
    const auto excluded = std::find_if(
        inputs.plan.exclusions.begin(), inputs.plan.exclusions.end(), [&](const RowExclusion& x) {
          return (x.division.empty() || x.division == row.division) &&
                 (x.accelerator_contains.empty() || contains(row.accelerator, x.accelerator_contains)) &&
                 (x.system_contains.empty() || contains(row.system, x.system_contains));
        });
    const ServingDeployment* deployment = deployment_of(inputs.plan, row);
    const EngineGeneration* engine = engine_of(inputs.engines, row.engine);
    if (excluded != inputs.plan.exclusions.end()) {
      check.note = excluded->reason;
    } else if (deployment == nullptr) {
      check.note = "no deployment for " + row.accelerator + " on " + row.benchmark;
    } else if (engine == nullptr) {
      check.note = "no engine generation for '" + row.engine + "'";
    } else if (row.server() && results.limits_of(row.benchmark) == nullptr) {
      check.note = "no Server limits for " + row.benchmark;
    } else if (row.gpus % deployment->tp != 0) {
      check.note = fmt::format("{} GPUs are not whole TP{} instances", row.gpus, deployment->tp);
    } else {
      const bool fit = std::find(inputs.plan.fit_submitters.begin(), inputs.plan.fit_submitters.end(),
                                 row.submitter) != inputs.plan.fit_submitters.end();
      check.set = fit ? CheckSet::fit : CheckSet::evaluation;
      check.note = deployment->confidence;
      check.engine = engine->id;
      check.efficiency = engine->efficiency;
      check.dealing = deployment->dealing.value_or(engine->dealing);
      check.tp = deployment->tp;
      check.instances = row.gpus / deployment->tp;
      const int sequences = row.server() ? deployment->server_sequences : deployment->offline_sequences;
      check.sequences = sequences > 0 ? sequences : engine->max_sequences;
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

namespace {

// A planned row's deployment as the perf model sees it: its benchmark and its instance's iteration model.
struct RowModel {
  const ServingBenchmark* benchmark = nullptr;
  const EngineGeneration* engine = nullptr;
  IterationModel model;
};

Result<RowModel> row_model(const ServingValidationInputs& inputs, const MlperfResults& results,
                           const ServingCheck& check) {
  const MlperfResult& row = check.published;
  const auto fail = [&](const std::string& message) {
    return Result<RowModel>(InputError{{results.path, row.line, 0}, "rows", message});
  };
  const ServingDeployment* deployment = deployment_of(inputs.plan, row);
  const ServingBenchmark* benchmark = benchmark_of(inputs.plan, row.benchmark);
  const EngineGeneration* engine = engine_of(inputs.engines, row.engine);
  if (deployment == nullptr || engine == nullptr || benchmark == nullptr)
    return fail("no benchmark, deployment or engine for " + row.system);
  const auto preset = std::find_if(inputs.presets.begin(), inputs.presets.end(),
                                   [&](const TransformerModel& m) { return m.name == benchmark->model; });
  if (preset == inputs.presets.end()) return fail("no model preset '" + benchmark->model + "'");
  auto hardware = deployment->system.empty()
                      ? perf_hardware_of_accelerator(inputs.catalog, deployment->accelerator,
                                                     std::clamp(row.gpus, check.tp, 8))
                      : perf_hardware_of_system(inputs.catalog, deployment->system, 1);
  if (!hardware.ok()) return hardware.errors();
  const InferenceSetup setup{*preset,
                             check.tp,
                             benchmark->precision,
                             benchmark->kv_bytes_per_element,
                             (benchmark->input_span_tokens() + 1) / 2,
                             benchmark->output_mean_tokens,
                             1};
  // The harness's share of free memory for the KV cache, where its configuration sets one.
  InferenceConstants constants = inputs.constants;
  const double kv_free_fraction =
      row.server() ? deployment->server_kv_free_fraction : deployment->offline_kv_free_fraction;
  if (kv_free_fraction > 0) constants.kv_cache_free_memory_fraction = kv_free_fraction;
  auto model = IterationModel::make(hardware.value(), inputs.collectives, constants, setup);
  if (!model.ok()) return model.errors();
  return RowModel{benchmark, engine, std::move(model).value()};
}

}  // namespace

Result<SaturatedIteration> saturated_iteration(const ServingValidationInputs& inputs,
                                               const MlperfResults& results, const ServingCheck& check) {
  if (check.set == CheckSet::excluded)
    return InputError{{results.path, check.published.line, 0}, "rows", "an excluded row has no deployment"};
  auto built = row_model(inputs, results, check);
  if (!built.ok()) return built.errors();
  const RowModel& row = built.value();
  SaturatedIteration it;
  it.decode_sequences = check.sequences;
  const double input_mean = row.benchmark->input_mean();
  const double output_mean = mean_output_tokens(*row.benchmark);
  it.context_tokens = input_mean + output_mean / 2;
  it.kv_capacity_tokens = row.model.kv_capacity_tokens();
  it.prefill_tokens =
      std::clamp(check.sequences * input_mean / output_mean, 0.0,
                 static_cast<double>(std::max(0, row.engine->max_batched_tokens - check.sequences)));
  it.time = row.model.iteration(it.prefill_tokens, it.prefill_tokens * input_mean / 2, it.decode_sequences,
                                it.decode_sequences * it.context_tokens);
  it.efficiency = check.efficiency;
  const double seconds = it.time.seconds() / check.efficiency;
  it.output_tokens_per_s_per_gpu = seconds > 0 ? it.decode_sequences / seconds / check.tp : 0;
  return it;
}

Result<ServerLoad> server_load(const ServingValidationInputs& inputs, const MlperfResults& results,
                               const ServingCheck& check) {
  const MlperfResult& row = check.published;
  if (check.set == CheckSet::excluded || !row.server())
    return InputError{{results.path, row.line, 0}, "rows", "not a simulated Server row"};
  auto built = row_model(inputs, results, check);
  if (!built.ok()) return built.errors();
  const RowModel& model = built.value();
  const RowSimulation simulation(model.model, *model.benchmark, check, *model.engine, inputs.plan.run,
                                 check.efficiency);
  const std::vector<ServeRequest> requests = simulation.server_requests(row.target_qps);
  const ServingResult run = simulation.server_run(requests);
  ServerLoad load;
  double output = 0, input = 0;
  for (const ServeRequest& r : requests) {
    output += r.output_tokens;
    input += r.input_tokens;
  }
  const auto iterations = static_cast<double>(std::max(1LL, run.iterations));
  const double engine_s = 1e3 / check.tp / iterations;  // GPU seconds -> ms per iteration of one engine
  load.sequences = output / iterations;
  load.prefill_tokens = input / iterations;
  load.iteration_ms = run.gpu_busy.total() * engine_s;
  load.compute_ms = run.gpu_busy.compute * engine_s;
  load.memory_ms = run.gpu_busy.memory * engine_s;
  load.communication_ms = run.gpu_busy.communication * engine_s;
  load.host_ms = run.gpu_busy.host * engine_s;
  load.ttft_p50_ms = run.summary.ttft_s.p50 * 1e3;
  load.ttft_p99_ms = run.summary.ttft_s.p99 * 1e3;
  load.tpot_p50_ms = run.summary.tpot_s.p50 * 1e3;
  load.tpot_p99_ms = run.summary.tpot_s.p99 * 1e3;
  attribute_tails(run.requests, run.summary, load);
  const double input_mean = model.benchmark->input_mean();
  const double output_mean = mean_output_tokens(*model.benchmark);
  const double context = input_mean + output_mean / 2;
  const auto t = [&](int n) {
    const double prefill = n * input_mean / output_mean;
    return model.model.iteration(prefill, prefill * input_mean / 2, n, n * context).seconds() /
           check.efficiency * 1e3;
  };
  const int slots = std::max(2, check.sequences);
  load.model_b_ms = (t(slots) - t(1)) / (slots - 1);
  load.model_a_ms = t(1) - load.model_b_ms;
  if (row.tpot_p50_ms) {
    load.published_iteration_ms = *row.tpot_p50_ms;
    load.published_sequences = row.tokens_per_s / check.instances * *row.tpot_p50_ms / 1e3;
  }
  return load;
}

Result<ServingCheck> simulate_serving_check(const ServingValidationInputs& inputs,
                                            const MlperfResults& results, ServingCheck check, bool search_qps,
                                            double efficiency) {
  if (check.set == CheckSet::excluded) return check;
  const MlperfResult& row = check.published;
  auto built = row_model(inputs, results, check);
  if (!built.ok()) return built.errors();
  const ServingBenchmark* benchmark = built.value().benchmark;
  const EngineGeneration* engine = built.value().engine;
  const IterationModel& model = built.value().model;
  if (efficiency > 0) check.efficiency = efficiency;
  RowSimulation simulation(model, *benchmark, check, *engine, inputs.plan.run, check.efficiency);
  check.simulated = true;
  if (!row.server()) {
    check.predicted_tokens_per_s = simulation.offline();
    return check;
  }
  const ServerLimits& limits = *results.limits_of(row.benchmark);
  simulation.count_over(limits);
  const ServingRunParameters& run = inputs.plan.run;
  const auto within = [&](const ServeSummary& s) { return within_limits(s, limits, run); };
  const ServeSummary at_target = simulation.server(row.target_qps);
  check.limits_hold_at_target = within(at_target);
  check.ttft_p50_ms = at_target.ttft_s.p50 * 1e3;
  check.ttft_p99_ms = at_target.ttft_s.p99 * 1e3;
  check.tpot_p50_ms = at_target.tpot_s.p50 * 1e3;
  check.tpot_p99_ms = at_target.tpot_s.p99 * 1e3;
  if (!search_qps) return check;
  double low = run.qps_search_low * row.target_qps;  // assumed to meet the limits
  double high = run.qps_search_high * row.target_qps;
  if (within(simulation.server(high))) {
    low = high;
  } else {
    for (int step = 0; step < run.qps_search_steps; ++step) {
      const double mid = (low + high) / 2;
      (within(simulation.server(mid)) ? low : high) = mid;
    }
  }
  check.highest_qps = low;
  check.predicted_tokens_per_s = low * mean_output_tokens(*benchmark);
  return check;
}

Result<std::vector<ServingCheck>> run_serving_checks(const ServingValidationInputs& inputs,
                                                     const MlperfResults& results) {
  std::vector<ServingCheck> checks;
  for (ServingCheck& planned : plan_serving_checks(inputs, results)) {
    auto simulated = simulate_serving_check(inputs, results, std::move(planned));
    if (!simulated.ok()) return simulated.errors();
    checks.push_back(std::move(simulated).value());
  }
  return checks;
}

const ServingCheck* offline_partner(const std::vector<ServingCheck>& checks, const ServingCheck& server) {
  for (const ServingCheck& o : checks)
    if (o.set == server.set && !o.published.server() && o.published.submitter == server.published.submitter &&
        o.published.system == server.published.system && o.published.benchmark == server.published.benchmark)
      return &o;
  return nullptr;
}

double utilisation_matched_qps(const ServingCheck& server, const ServingCheck& offline) {
  if (offline.published.tokens_per_s <= 0 || offline.predicted_tokens_per_s <= 0) return 0;
  return server.published.target_qps * offline.predicted_tokens_per_s / offline.published.tokens_per_s;
}

bool mlperf_early_stopping_passes(long long queries, long long over, double percentile, double confidence) {
  if (over < 0 || over >= queries) return false;  // LoadGen needs at least one query under the limit
  // P(X <= over), X ~ Binomial(queries, 1 - percentile), summed in log space term by term.
  const double n = static_cast<double>(queries);
  const double miss = 1 - percentile;
  const double log_n_factorial = std::lgamma(n + 1);
  double cumulative = 0;
  for (long long x = 0; x <= over; ++x) {
    const double k = static_cast<double>(x);
    cumulative += std::exp(log_n_factorial - std::lgamma(k + 1) - std::lgamma(n - k + 1) +
                           k * std::log(miss) + (n - k) * std::log1p(-miss));
    if (cumulative >= 1 - confidence) return false;
  }
  return true;
}

ServingErrors serving_errors(const std::vector<ServingCheck>& checks, CheckSet set) {
  ServingErrors e;
  int ttft50 = 0, tpot50 = 0;
  const auto relative = [](double predicted, double published) {
    return 100.0 * std::abs(predicted - published) / published;
  };
  for (const ServingCheck& c : checks) {
    if (c.set != set || !c.simulated) continue;
    const double error = std::abs(c.error_percent());
    e.throughput_mean += error;
    e.throughput_worst = std::max(e.throughput_worst, error);
    if (!c.published.server()) {
      ++e.offline_rows;
      e.offline_mean += error;
      e.offline_worst = std::max(e.offline_worst, error);
      continue;
    }
    ++e.server_rows;
    e.server_mean += error;
    e.server_worst = std::max(e.server_worst, error);
    e.server_limits_held += c.limits_hold_at_target ? 1 : 0;
    const double ttft_error = relative(c.ttft_p99_ms, *c.published.ttft_p99_ms);
    const double tpot_error = relative(c.tpot_p99_ms, *c.published.tpot_p99_ms);
    e.ttft_p99_mean += ttft_error;
    e.tpot_p99_mean += tpot_error;
    e.ttft_p99_within_25 += ttft_error <= 25 ? 1 : 0;
    e.tpot_p99_within_25 += tpot_error <= 25 ? 1 : 0;
    if (c.published.ttft_p50_ms) {
      e.ttft_p50_mean += relative(c.ttft_p50_ms, *c.published.ttft_p50_ms);
      ++ttft50;
    }
    if (c.published.tpot_p50_ms) {
      e.tpot_p50_mean += relative(c.tpot_p50_ms, *c.published.tpot_p50_ms);
      ++tpot50;
    }
  }
  const int rows = e.offline_rows + e.server_rows;
  if (rows > 0) e.throughput_mean /= rows;
  if (e.offline_rows > 0) e.offline_mean /= e.offline_rows;
  if (e.server_rows > 0) {
    e.server_mean /= e.server_rows;
    e.ttft_p99_mean /= e.server_rows;
    e.tpot_p99_mean /= e.server_rows;
  }
  if (ttft50 > 0) e.ttft_p50_mean /= ttft50;
  if (tpot50 > 0) e.tpot_p50_mean /= tpot50;
  return e;
}

double EngineTableCheck::throughput_error_percent() const {
  return 100.0 * (output_tokens_per_s - published.output_tokens_per_s) / published.output_tokens_per_s;
}
double EngineTableCheck::ttft_error_percent() const {
  return 100.0 * (ttft_ms - published.ttft_ms) / published.ttft_ms;
}
double EngineTableCheck::itl_error_percent() const {
  return 100.0 * (itl_ms - published.itl_ms) / published.itl_ms;
}

Result<std::vector<EngineTableCheck>> run_engine_table_checks(const ServingValidationInputs& inputs,
                                                              const EngineTables& tables, double efficiency) {
  std::vector<EngineTableCheck> checks;
  for (const EngineTable& table : tables.tables) {
    const auto fail = [&](const std::string& message) {
      return Result<std::vector<EngineTableCheck>>(
          InputError{{tables.path, table.line, 0}, "tables", message});
    };
    const auto preset = std::find_if(inputs.presets.begin(), inputs.presets.end(),
                                     [&](const TransformerModel& m) { return m.name == table.model; });
    if (preset == inputs.presets.end()) return fail("no model preset '" + table.model + "'");
    auto hardware = perf_hardware_of_system(inputs.catalog, table.system, 1);
    if (!hardware.ok()) return hardware.errors();
    const InferenceSetup setup{*preset,
                               table.tp,
                               table.precision,
                               table.kv_bytes_per_element,
                               table.input_tokens,
                               table.output_tokens,
                               1};
    auto model = IterationModel::make(hardware.value(), inputs.collectives, inputs.constants, setup);
    if (!model.ok()) return model.errors();
    EngineLimits limits;
    limits.max_batched_tokens = table.max_batched_tokens;
    limits.max_sequences = table.max_sequences;
    limits.block_tokens = table.block_tokens;
    limits.policy = table.scheduler;
    limits.kv_capacity_tokens = model.value().kv_capacity_tokens();
    for (const EngineTableRow& row : table.rows) {
      ClosedLoopLoad load;
      load.concurrency = row.concurrency;
      load.input_tokens = table.input_tokens;
      load.output_tokens = table.output_tokens;
      load.rounds = table.rounds_per_client;
      load.engine_efficiency = efficiency;
      const ServeSummary s = closed_loop_latency(model.value(), limits, load, table.tp);
      const bool median = table.statistic == "p50";
      EngineTableCheck c;
      c.table = table.id;
      c.engine_version = table.engine_version;
      c.set = table.set;
      c.published = row;
      c.efficiency = efficiency;
      c.ttft_ms = (median ? s.ttft_s.p50 : s.ttft_s.mean) * 1e3;
      c.itl_ms = (median ? s.itl_s.p50 : s.itl_s.mean) * 1e3;
      c.output_tokens_per_s = s.output_tokens_per_s;
      checks.push_back(c);
    }
  }
  return checks;
}

EngineTableErrors engine_table_errors(const std::vector<EngineTableCheck>& checks, const std::string& set) {
  EngineTableErrors e;
  for (const EngineTableCheck& c : checks) {
    if (c.set != set) continue;
    ++e.rows;
    const double t = std::abs(c.throughput_error_percent());
    const double f = std::abs(c.ttft_error_percent());
    const double i = std::abs(c.itl_error_percent());
    e.throughput_mean += t;
    e.ttft_mean += f;
    e.itl_mean += i;
    e.throughput_worst = std::max(e.throughput_worst, t);
    e.ttft_worst = std::max(e.ttft_worst, f);
    e.itl_worst = std::max(e.itl_worst, i);
    e.throughput_within_15 += t <= 15 ? 1 : 0;
    e.ttft_within_25 += f <= 25 ? 1 : 0;
    e.itl_within_25 += i <= 25 ? 1 : 0;
  }
  if (e.rows > 0) {
    e.throughput_mean /= e.rows;
    e.ttft_mean /= e.rows;
    e.itl_mean /= e.rows;
  }
  return e;
}

}  // namespace gputwin
