// What a serving run amounts to: latency percentiles, throughput and goodput against latency targets.
//
//   ServeSummary s = summarize(run, {.ttft_s = 0.5, .tpot_s = 0.05}, /*gpus=*/8);
//   s.ttft.p90, s.output_tokens_per_s, s.goodput_requests_per_s
//
// TTFT = first token - arrival; TPOT = (finish - first token) / (output tokens - 1), per request; ITL = every
// gap between two tokens of a request (percentiles over all tokens); E2E = finish - arrival. Throughput
// counts finished requests over the time from the first arrival to the last finish.
#pragma once

#include <optional>
#include <vector>

#include "gputwin/serve/engine.hpp"

namespace gputwin {

struct LatencyStats {
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
};

// Per-request targets a request must meet to count as goodput; an unset target is not checked.
struct LatencyTargets {
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  std::optional<double> e2e_s;
  double percentile = 0.9;  // the deployment meets the targets when this share of requests does
};

struct ServeSummary {
  int requests = 0;
  int finished = 0;
  int unservable = 0;
  long long preemptions = 0;
  double span_s = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0;
  double goodput_requests_per_s = 0;  // finished requests that met every target, per second
  double share_meeting_targets = 0;   // of finished requests
  bool meets_targets = false;         // share_meeting_targets >= targets.percentile (and none unservable)
  LatencyStats ttft_s;
  LatencyStats tpot_s;
  LatencyStats itl_s;  // mean from the per-request gaps, percentiles from the run's histogram
  LatencyStats e2e_s;
  double peak_kv_used_fraction = 0;
  int peak_waiting = 0;
  // Finished requests over each target that is set (0 when unset): what MLPerf LoadGen's early stopping
  // counts, one latency at a time.
  int ttft_over_target = 0;
  int tpot_over_target = 0;
};

// Mean and nearest-rank percentiles of `values` (all zero when empty).
[[nodiscard]] LatencyStats latency_stats(std::vector<double> values);

[[nodiscard]] ServeSummary summarize(const ServeRun& run, const LatencyTargets& targets, int gpus);

// Whether a finished request meets every target that is set.
[[nodiscard]] bool request_meets_targets(const RequestOutcome& r, const LatencyTargets& targets);

// The most of `requests` that may miss the targets with the run still meeting them (summarize's rule: the
// share of requests meeting them at least targets.percentile).
[[nodiscard]] long long misses_allowed(int requests, const LatencyTargets& targets);

}  // namespace gputwin
