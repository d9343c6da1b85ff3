#include "gputwin/serve/serve_summary.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gputwin {
namespace {

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

LatencyStats stats_of(std::vector<double> values) {
  LatencyStats stats;
  if (values.empty()) return stats;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (const double v : values) sum += v;
  stats.mean = sum / static_cast<double>(values.size());
  stats.p50 = percentile(values, 0.50);
  stats.p90 = percentile(values, 0.90);
  stats.p99 = percentile(values, 0.99);
  return stats;
}

bool meets(const RequestOutcome& r, const LatencyTargets& targets) {  // see request_meets_targets
  const double ttft = r.first_token_s - r.arrival_s;
  const double e2e = r.finish_s - r.arrival_s;
  const double tpot = r.output_tokens > 1 ? (r.finish_s - r.first_token_s) / (r.output_tokens - 1) : 0;
  return (!targets.ttft_s || ttft <= *targets.ttft_s) && (!targets.tpot_s || tpot <= *targets.tpot_s) &&
         (!targets.e2e_s || e2e <= *targets.e2e_s);
}

}  // namespace

LatencyStats latency_stats(std::vector<double> values) {
  return stats_of(std::move(values));
}

ServeSummary summarize(const ServeRun& run, const LatencyTargets& targets, int gpus) {
  ServeSummary s;
  s.requests = static_cast<int>(run.requests.size());
  s.unservable = run.unservable;
  s.preemptions = run.preemptions;
  std::vector<double> ttft, tpot, e2e;
  double first_arrival = run.requests.empty() ? 0 : run.requests.front().arrival_s;
  double last_finish = 0;
  double gap_sum = 0;
  long long gaps = 0;
  long long output_tokens = 0;
  int good = 0;
  for (const RequestOutcome& r : run.requests) {
    first_arrival = std::min(first_arrival, r.arrival_s);
    if (!r.finished()) continue;
    ++s.finished;
    last_finish = std::max(last_finish, r.finish_s);
    output_tokens += r.output_tokens;
    ttft.push_back(r.first_token_s - r.arrival_s);
    e2e.push_back(r.finish_s - r.arrival_s);
    if (r.output_tokens > 1) tpot.push_back((r.finish_s - r.first_token_s) / (r.output_tokens - 1));
    s.ttft_over_target += targets.ttft_s && ttft.back() > *targets.ttft_s ? 1 : 0;
    s.tpot_over_target += targets.tpot_s && r.output_tokens > 1 && tpot.back() > *targets.tpot_s ? 1 : 0;
    gap_sum += r.token_gap_sum_s;
    gaps += r.output_tokens - 1;
    good += meets(r, targets) ? 1 : 0;
  }
  s.span_s = std::max(0.0, last_finish - first_arrival);
  if (s.span_s > 0) {
    s.requests_per_s = s.finished / s.span_s;
    s.output_tokens_per_s = static_cast<double>(output_tokens) / s.span_s;
    s.goodput_requests_per_s = good / s.span_s;
  }
  s.output_tokens_per_s_per_gpu = gpus > 0 ? s.output_tokens_per_s / gpus : 0;
  s.share_meeting_targets = s.finished > 0 ? static_cast<double>(good) / s.finished : 0;
  s.meets_targets = s.finished == s.requests && s.share_meeting_targets >= targets.percentile;
  s.ttft_s = stats_of(std::move(ttft));
  s.tpot_s = stats_of(std::move(tpot));
  s.e2e_s = stats_of(std::move(e2e));
  s.itl_s.mean = gaps > 0 ? gap_sum / static_cast<double>(gaps) : 0;
  s.itl_s.p50 = run.token_gaps.quantile(0.50);
  s.itl_s.p90 = run.token_gaps.quantile(0.90);
  s.itl_s.p99 = run.token_gaps.quantile(0.99);
  for (const EngineSample& sample : run.timeline) {
    s.peak_kv_used_fraction = std::max(s.peak_kv_used_fraction, sample.kv_used_fraction);
    s.peak_waiting = std::max(s.peak_waiting, sample.waiting);
  }
  return s;
}

bool request_meets_targets(const RequestOutcome& r, const LatencyTargets& targets) {
  return meets(r, targets);
}

long long misses_allowed(int requests, const LatencyTargets& targets) {
  if (requests <= 0) return 0;
  const auto meets_with = [&](long long misses) {  // summarize's comparison, exactly
    return static_cast<double>(requests - misses) / requests >= targets.percentile;
  };
  auto allowed = static_cast<long long>(std::floor(requests * (1 - targets.percentile)));
  while (allowed < requests && meets_with(allowed + 1)) ++allowed;
  while (allowed > 0 && !meets_with(allowed)) --allowed;
  return allowed;
}

}  // namespace gputwin
