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

#include "gputwin/core/error.hpp"
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
[[nodiscard]] nlohmann::json capacity_json(const CapacitySearch& search, const std::string& model,
                                           const std::string& traffic, const LatencyTargets& targets);

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
[[nodiscard]] Result<ServeDocument> read_serve_json(std::string_view text, const std::string& source);

}  // namespace gputwin
