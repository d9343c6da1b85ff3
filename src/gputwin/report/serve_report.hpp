// The `perf serve` report: a simulated serving deployment's latency percentiles, throughput and goodput, as
// text, JSON (schema gputwin.serve/1, read back by read_serve_json with report/json_document) and a CSV of
// the engine state over time.
//
//   ServeReport report{hardware, setup, "poisson 10/s for 600 s", serving_setup, result, limits_source};
//   std::cout << serve_text(report);   // serve_json(report).dump(2), serve_timeline_csv(report)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/serve/capacity_search.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin {

inline constexpr const char* kServeSchema = "gputwin.serve/1";

struct ServeReport {
  PerfHardware hardware;
  InferenceSetup setup;
  std::string traffic;  // how the requests arrive, in words
  ServingSetup serving;
  ServingResult result;
  std::string engine;  // whose scheduler the limits follow, with the source
};

[[nodiscard]] std::string serve_text(const ServeReport& report);
[[nodiscard]] nlohmann::json serve_json(const ServeReport& report);
[[nodiscard]] std::string serve_timeline_csv(const ServeReport& report);

// `perf serve --search`: the candidates, cheapest meeting deployment first, why the others lost.
inline constexpr const char* kServeCapacitySchema = "gputwin.serve-capacity/1";
[[nodiscard]] std::string capacity_text(const CapacitySearch& search, const std::string& model,
                                        const std::string& traffic, const LatencyTargets& targets);
[[nodiscard]] nlohmann::json capacity_row_json(const CapacityRow& row);
[[nodiscard]] nlohmann::json capacity_json(const CapacitySearch& search, const std::string& model,
                                           const std::string& traffic, const LatencyTargets& targets);

// One candidate of a capacity search run as a Slurm array task (perf serve --search --task I): its row with
// every figure the table and the ranking use, exact (seconds as written, shortest round-trip form), so rows
// merged from task files rank and print exactly as the local search's.
inline constexpr const char* kServeCapacityTaskSchema = "gputwin.serve-capacity-task/1";
struct CapacityTask {
  int task = 0;
  int simulations = 0;
  CapacityRow row;
};
[[nodiscard]] nlohmann::json capacity_task_json(const CapacityTask& task);
[[nodiscard]] Result<CapacityTask> read_capacity_task_json(std::string_view text, const std::string& source);

// What a gputwin.serve/1 document says, as the report page needs it.
struct ServeDocument {
  std::string model;
  std::string system;
  int gpus = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  LatencyStats ttft_ms, tpot_ms, itl_ms, e2e_ms;
  bool meets_targets = false;
};
[[nodiscard]] Result<ServeDocument> read_serve_json(std::string_view text, const std::string& source);

}  // namespace gputwin
