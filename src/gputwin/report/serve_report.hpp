// The `perf serve` report: a simulated serving deployment's latency percentiles, throughput and goodput, as
// text, JSON (schema gputwin.serve/1) and a CSV of the engine state over time; the capacity search's table
// and JSON, and an array task's result. The writers only: report/serve_documents.hpp reads the documents
// back.
//
//   ServeReport report{hardware, setup, "poisson 10/s for 600 s", serving_setup, result, limits_source};
//   std::cout << serve_text(report);   // serve_json(report).dump(2), serve_timeline_csv(report)
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/perf/inference.hpp"
#include "gputwin/report/power_report.hpp"
#include "gputwin/serve/capacity_search.hpp"
#include "gputwin/serve/disaggregated.hpp"
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
  // Set for a disaggregated deployment (then `serving`'s replicas and limits are unused; `result` is
  // disaggregated->serving).
  std::optional<DisaggregatedResult> disaggregated;
  // The run's power and energy (perf serve --power-cap; at the default limit without one): text and JSON
  // "power" as perf train and perf infer write them, per run.
  std::optional<PowerReport> power;
};

[[nodiscard]] std::string serve_text(const ServeReport& report);
[[nodiscard]] nlohmann::json serve_json(const ServeReport& report);
[[nodiscard]] std::string serve_timeline_csv(const ServeReport& report);

// `perf serve --search`: the candidates, cheapest meeting deployment first, why the others lost. /2: each row
// says what it buys (unit, nodes, racks, bought_gpus) and its cost_per_hour is on the GPUs bought.
inline constexpr const char* kServeCapacitySchema = "gputwin.serve-capacity/2";
// Read, no longer written: cost_per_hour on the GPUs used, or (documents that carry bought_gpus, written
// before the bump) on the GPUs bought.
inline constexpr const char* kServeCapacitySchemaV1 = "gputwin.serve-capacity/1";
[[nodiscard]] std::string capacity_text(const CapacitySearch& search, const std::string& model,
                                        const std::string& traffic, const LatencyTargets& targets);
[[nodiscard]] nlohmann::json capacity_row_json(const CapacityRow& row);
// The table as CSV, one line per row in rank order (rank 1 the answer when it meets the targets).
[[nodiscard]] std::string capacity_csv(const CapacitySearch& search);
[[nodiscard]] nlohmann::json capacity_json(const CapacitySearch& search, const std::string& model,
                                           const std::string& traffic, const LatencyTargets& targets);

// Latency statistics in seconds written as {mean, p50, p90, p99} in milliseconds (read back by
// serve_documents' latency_from_json in the unit written).
[[nodiscard]] nlohmann::json latency_ms_json(const LatencyStats& seconds);
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

}  // namespace gputwin
