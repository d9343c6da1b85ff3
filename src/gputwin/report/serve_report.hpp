// The `perf serve` report: a simulated serving deployment's latency percentiles, throughput and goodput, as
// text, JSON (schema gputwin.serve/1, read back by read_serve_json with report/json_document) and a CSV of
// the engine state over time.
//
//   ServeReport report{hardware, setup, "poisson 10/s for 600 s", serving_setup, result, limits_source};
//   std::cout << serve_text(report);   // serve_json(report).dump(2), serve_timeline_csv(report)
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/perf/inference.hpp"
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

// Latency statistics in seconds written as {mean, p50, p90, p99} in milliseconds; read back in the unit
// written.
[[nodiscard]] nlohmann::json latency_ms_json(const LatencyStats& seconds);
[[nodiscard]] LatencyStats latency_from_json(const JsonField& field);
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
  std::string source;  // the file it was read from
  std::string model;
  std::string system;
  std::string precision;
  std::string traffic;
  int tp = 1;        // 0 for a disaggregated deployment: its pools have their own
  int replicas = 1;  // instances of both pools when disaggregated
  int gpus = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  LatencyStats ttft_ms, tpot_ms, itl_ms, e2e_ms;
  double targets_percentile = 0.9;
  std::optional<double> ttft_target_ms, tpot_target_ms;  // empty when the run set none
  double share_meeting_targets = 0;
  bool meets_targets = false;
  struct Pool {
    int instances = 0;
    int tp = 0;
    int gpus = 0;
  };
  struct Pools {
    Pool prefill;
    Pool decode;
    double kv_bytes_total = 0;
    LatencyStats kv_transfer_ms;
  };
  std::optional<Pools> pools;  // a disaggregated deployment's
};
// "2 x TP 4", or "1 prefill x TP 4 + 3 decode x TP 4" for a disaggregated deployment.
[[nodiscard]] std::string deployment_text(const ServeDocument& run);
[[nodiscard]] ServeDocument serve_document_from_json(const JsonField& root, const std::string& source);
[[nodiscard]] Result<ServeDocument> read_serve_json(std::string_view text, const std::string& source);

// What a gputwin.serve-capacity/1 document says: the candidates as `perf serve --search` ranked them.
struct CapacityDocumentRow {
  std::string system;
  std::string accelerator;
  std::string layout;  // "TP 8", "DP 8 x EP 8", "TP 8 x PP 2"
  int tp = 1;
  bool meets = false;
  int replicas = 0;
  int gpus = 0;
  double output_tokens_per_s_per_gpu = 0;
  double ttft_p90_ms = 0, tpot_p90_ms = 0;
  std::optional<double> cost_per_hour, cost_per_million_tokens;
  std::string why;
};
struct CapacityDocument {
  std::string source;
  std::string model;
  std::string traffic;
  double targets_percentile = 0.9;
  int simulations = 0;
  std::vector<CapacityDocumentRow> rows;
};
[[nodiscard]] CapacityDocument capacity_document_from_json(const JsonField& root, const std::string& source);
[[nodiscard]] Result<CapacityDocument> read_capacity_json(std::string_view text, const std::string& source);

}  // namespace gputwin
