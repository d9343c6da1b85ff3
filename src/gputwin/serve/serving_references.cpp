#include "gputwin/serve/serving_references.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

std::optional<double> optional_number(const YamlField& row, std::string_view key) {
  const auto field = row.optional_child(key);
  if (!field) return std::nullopt;
  return field->number();
}

std::string scenario_name(const YamlField& field) {
  std::string text = field.text();
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text == "server") return "Server";
  if (text == "offline") return "Offline";
  field.fail("expected a scenario Server or Offline, got '" + field.text() + "'");
}

struct SystemInfo {
  std::string accelerator, engine, division;
};

MlperfResult read_row(const YamlField& row, const std::map<std::string, SystemInfo>& systems) {
  MlperfResult r;
  r.submitter = row.child("sub").text();
  r.system = row.child("system").text();
  const auto found = systems.find(r.submitter + "/" + r.system);
  if (found == systems.end())
    row.child("system").fail("no system '" + r.system + "' of '" + r.submitter + "' in the systems list");
  r.accelerator = found->second.accelerator;
  r.engine = found->second.engine;
  r.division = found->second.division;
  r.benchmark = row.child("bench").text();
  r.scenario = scenario_name(row.child("scenario"));
  r.gpus = static_cast<int>(row.child("gpus").positive_integer());
  r.tokens_per_s = row.child("tok_s").positive_number();
  r.samples_per_s = row.child("samples_s").positive_number();
  r.target_qps = row.child("target_qps").positive_number();
  r.ttft_p50_ms = optional_number(row, "ttft_p50_ms");
  r.ttft_p99_ms = optional_number(row, "ttft_p99_ms");
  r.tpot_p50_ms = optional_number(row, "tpot_p50_ms");
  r.tpot_p99_ms = optional_number(row, "tpot_p99_ms");
  if (r.server() && (!r.ttft_p99_ms || !r.tpot_p99_ms))
    row.fail("a Server row needs ttft_p99_ms and tpot_p99_ms");
  r.line = row.location().line;
  return r;
}

std::string optional_text(const YamlField& field, std::string_view key) {
  const auto child = field.optional_child(key);
  return child ? child->text() : std::string();
}

}  // namespace

const ServerLimits* MlperfResults::limits_of(const std::string& benchmark) const {
  for (const ServerLimits& l : limits)
    if (benchmark.rfind(l.benchmark, 0) == 0) return &l;
  return nullptr;
}

Result<MlperfResults> load_mlperf_results(const std::string& path) {
  return result_of<MlperfResults>([&] {
    const YamlField root = YamlDocument::load(path).root();
    MlperfResults results;
    results.path = path;
    for (const YamlField& limit : root.child("scenario_limits").child("rows").items()) {
      if (scenario_name(limit.child("scenario")) != "Server") continue;
      results.limits.push_back({limit.child("benchmark").text(),
                                limit.child("ttft_p99_limit_ms").positive_number(),
                                limit.child("tpot_p99_limit_ms").positive_number()});
    }
    std::map<std::string, SystemInfo> systems;
    for (const YamlField& system : root.child("systems").items()) {
      const std::string division = optional_text(system, "div");
      systems[system.child("sub").text() + "/" + system.child("system").text()] = {
          system.child("accel").text(), optional_text(system, "engine"),
          division.empty() ? "closed" : division};
    }
    for (const YamlField& row : root.child("rows").items()) results.rows.push_back(read_row(row, systems));
    return results;
  });
}

Result<std::vector<EngineGeneration>> load_engine_generations(const std::string& path) {
  return result_of<std::vector<EngineGeneration>>([&] {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"generations"});
    std::vector<EngineGeneration> engines;
    for (const YamlField& item : root.child("generations").items()) {
      item.expect_keys({"id", "engines", "description", "efficiency", "max_batched_tokens", "block_tokens",
                        "max_sequences", "dealing"});
      EngineGeneration engine;
      engine.id = item.child("id").text();
      for (const YamlField& piece : item.child("engines").items()) engine.engines.push_back(piece.text());
      engine.efficiency = item.child("efficiency").child("value").positive_number();
      engine.max_batched_tokens =
          static_cast<int>(item.child("max_batched_tokens").child("value").positive_integer());
      engine.block_tokens = static_cast<int>(item.child("block_tokens").child("value").positive_integer());
      engine.max_sequences = static_cast<int>(item.child("max_sequences").child("value").positive_integer());
      engine.dealing =
          item.child("dealing").child("value").one_of({"round_robin", "least_in_flight"}) == "least_in_flight"
              ? Dealing::least_in_flight
              : Dealing::round_robin;
      engines.push_back(std::move(engine));
    }
    return engines;
  });
}

Result<EngineTables> load_engine_tables(const std::string& path) {
  return result_of<EngineTables>([&] {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"tables"});
    EngineTables out;
    out.path = path;
    const auto value = [](const YamlField& item, std::string_view key) {
      return item.child(key).child("value");
    };
    for (const YamlField& item : root.child("tables").items()) {
      item.expect_keys({"id", "engine", "engine_version", "set", "source", "model", "model_note", "system",
                        "tp", "precision", "kv_bytes_per_element", "input_tokens", "output_tokens", "load",
                        "statistic", "limits", "rounds_per_client", "rows"});
      EngineTable t;
      t.line = item.location().line;
      t.id = item.child("id").text();
      t.engine = item.child("engine").text();
      t.engine_version = item.child("engine_version").text();
      t.set = item.child("set").one_of({"fit", "evaluation"});
      t.source = item.child("source").text();
      t.model = item.child("model").text();
      t.system = item.child("system").text();
      t.tp = static_cast<int>(item.child("tp").positive_integer());
      t.precision = item.child("precision").one_of({"fp8", "bf16", "fp16"});
      t.kv_bytes_per_element = value(item, "kv_bytes_per_element").positive_number();
      t.input_tokens = static_cast<int>(item.child("input_tokens").positive_integer());
      t.output_tokens = static_cast<int>(item.child("output_tokens").positive_integer());
      static_cast<void>(item.child("load").one_of({"concurrency"}));  // the only load the tables have yet
      t.statistic = value(item, "statistic").one_of({"mean", "p50"});
      const YamlField limits = item.child("limits");
      limits.expect_keys({"max_batched_tokens", "max_sequences", "block_tokens", "scheduler"});
      t.max_batched_tokens = static_cast<int>(value(limits, "max_batched_tokens").positive_integer());
      t.max_sequences = static_cast<int>(value(limits, "max_sequences").positive_integer());
      t.block_tokens = static_cast<int>(value(limits, "block_tokens").positive_integer());
      t.scheduler = value(limits, "scheduler").one_of({"vllm-v1", "trtllm-guaranteed-no-evict"}) == "vllm-v1"
                        ? SchedulerPolicy::vllm_v1
                        : SchedulerPolicy::trtllm_guaranteed_no_evict;
      t.rounds_per_client = static_cast<int>(item.child("rounds_per_client").positive_integer());
      for (const YamlField& row : item.child("rows").items()) {
        row.expect_keys({"concurrency", "ttft_ms", "itl_ms", "output_tokens_per_s"});
        t.rows.push_back({static_cast<int>(row.child("concurrency").positive_integer()),
                          row.child("ttft_ms").positive_number(), row.child("itl_ms").positive_number(),
                          row.child("output_tokens_per_s").positive_number(), row.location().line});
      }
      if (t.rows.empty()) item.child("rows").fail("a table needs at least one row");
      out.tables.push_back(std::move(t));
    }
    return out;
  });
}

int ServingBenchmark::input_span_tokens() const {
  return input_mean_tokens > 0 ? std::min(input_max_tokens, 2 * input_mean_tokens - 1) : input_max_tokens;
}

const ServingBenchmark* benchmark_of(const ServingCheckPlan& plan, const std::string& id) {
  for (const ServingBenchmark& b : plan.benchmarks)
    if (b.id == id) return &b;
  return nullptr;
}

Result<ServingCheckPlan> load_serving_check_plan(const std::string& path) {
  return result_of<ServingCheckPlan>([&] {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"results", "split", "excluded", "benchmarks", "deployments", "run"});
    ServingCheckPlan plan;
    plan.results_path = root.child("results").text();
    const YamlField split = root.child("split");
    split.expect_keys({"fit_submitters", "reason"});
    for (const YamlField& s : split.child("fit_submitters").items()) plan.fit_submitters.push_back(s.text());
    for (const YamlField& item : root.child("excluded").items()) {
      item.expect_keys({"division", "accelerator_contains", "system_contains", "reason"});
      RowExclusion exclusion{optional_text(item, "division"), optional_text(item, "accelerator_contains"),
                             optional_text(item, "system_contains"), item.child("reason").text()};
      if (exclusion.division.empty() && exclusion.accelerator_contains.empty() &&
          exclusion.system_contains.empty())
        item.fail("an exclusion needs division, accelerator_contains or system_contains");
      plan.exclusions.push_back(std::move(exclusion));
    }
    for (const YamlField& item : root.child("benchmarks").items()) {
      item.expect_keys({"id", "model", "precision", "kv_bytes_per_element", "input_max_tokens",
                        "input_mean_tokens", "input_source", "output_mean_tokens", "output_source"});
      ServingBenchmark benchmark{item.child("id").text(),
                                 item.child("model").text(),
                                 item.child("precision").one_of({"fp8", "bf16", "fp16"}),
                                 item.child("kv_bytes_per_element").positive_number(),
                                 static_cast<int>(item.child("input_max_tokens").positive_integer()),
                                 0,
                                 static_cast<int>(item.child("output_mean_tokens").positive_integer())};
      if (const auto mean = item.optional_child("input_mean_tokens")) {
        benchmark.input_mean_tokens = static_cast<int>(mean->positive_integer());
        if (2 * benchmark.input_mean_tokens - 1 > benchmark.input_max_tokens)
          mean->fail(
              fmt::format("input_mean_tokens {} needs inputs beyond input_max_tokens {} (uniform on "
                          "1..2 x mean - 1)",
                          benchmark.input_mean_tokens, benchmark.input_max_tokens));
      }
      plan.benchmarks.push_back(std::move(benchmark));
    }
    for (const YamlField& item : root.child("deployments").items()) {
      item.expect_keys({"bench", "accelerator_contains", "system_contains", "system", "accelerator", "tp",
                        "server_sequences", "offline_sequences", "server_kv_free_fraction",
                        "offline_kv_free_fraction", "dealing", "confidence", "source"});
      ServingDeployment d;
      d.benchmark = item.child("bench").text();
      d.accelerator_contains = item.child("accelerator_contains").text();
      d.system_contains = optional_text(item, "system_contains");
      d.system = optional_text(item, "system");
      d.accelerator = optional_text(item, "accelerator");
      if (d.system.empty() == d.accelerator.empty()) item.fail("give exactly one of system or accelerator");
      d.tp = static_cast<int>(item.child("tp").positive_integer());
      if (const auto s = item.optional_child("server_sequences"))
        d.server_sequences = static_cast<int>(s->positive_integer());
      if (const auto s = item.optional_child("offline_sequences"))
        d.offline_sequences = static_cast<int>(s->positive_integer());
      for (const auto& [key, fraction] : {std::pair{"server_kv_free_fraction", &d.server_kv_free_fraction},
                                          std::pair{"offline_kv_free_fraction", &d.offline_kv_free_fraction}})
        if (const auto f = item.optional_child(key)) {
          *fraction = f->positive_number();
          if (*fraction > 1) f->fail("a fraction of free GPU memory is at most 1");
        }
      if (const auto dealing = item.optional_child("dealing"))
        d.dealing = dealing->one_of({"round_robin", "least_in_flight"}) == "least_in_flight"
                        ? Dealing::least_in_flight
                        : Dealing::round_robin;
      d.confidence = item.child("confidence").one_of({"read", "assumed"});
      if (benchmark_of(plan, d.benchmark) == nullptr)
        item.child("bench").fail("no benchmark '" + d.benchmark + "'");
      plan.deployments.push_back(std::move(d));
    }
    const YamlField run = root.child("run");
    run.expect_keys({"server_duration_s", "offline_requests_per_sequence", "seed", "qps_search_low",
                     "qps_search_high", "qps_search_steps", "early_stopping_percentile",
                     "early_stopping_confidence"});
    plan.run.server_duration_s = run.child("server_duration_s").positive_number();
    plan.run.offline_requests_per_sequence =
        static_cast<int>(run.child("offline_requests_per_sequence").positive_integer());
    plan.run.seed = static_cast<std::uint64_t>(run.child("seed").non_negative_integer());
    plan.run.qps_search_low = run.child("qps_search_low").positive_number();
    plan.run.qps_search_high = run.child("qps_search_high").positive_number();
    if (plan.run.qps_search_high <= plan.run.qps_search_low)
      run.child("qps_search_high").fail("must be above qps_search_low");
    plan.run.qps_search_steps = static_cast<int>(run.child("qps_search_steps").positive_integer());
    const auto probability = [&](const char* key) {
      const YamlField field = run.child(key);
      const double value = field.number();
      if (value <= 0 || value >= 1) field.fail("must be a probability strictly between 0 and 1");
      return value;
    };
    plan.run.early_stopping_percentile = probability("early_stopping_percentile");
    plan.run.early_stopping_confidence = probability("early_stopping_confidence");
    return plan;
  });
}

}  // namespace gputwin
