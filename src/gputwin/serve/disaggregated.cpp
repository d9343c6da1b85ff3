#include "gputwin/serve/disaggregated.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include "gputwin/perf/memory.hpp"

namespace gputwin {
namespace {

// Each iteration's time as the engine runs it, its phases added to `busy`.
IterationCost cost_of(const IterationModel& model, double engine_efficiency, BusySeconds& busy) {
  return [&model, engine_efficiency, &busy](const IterationBatch& batch) {
    const StepTime step = model.iteration(batch.prefill_tokens, batch.prefill_context_tokens,
                                          batch.decode_sequences, batch.decode_context_tokens);
    busy.add(step, engine_efficiency);
    return step.seconds() / engine_efficiency;
  };
}

// Requests k, k + n, k + 2n, ... of `order` go to share k.
std::vector<std::vector<std::size_t>> round_robin(const std::vector<std::size_t>& order, int shares_count) {
  std::vector<std::vector<std::size_t>> shares(static_cast<std::size_t>(std::max(1, shares_count)));
  for (std::size_t i = 0; i < order.size(); ++i) shares[i % shares.size()].push_back(order[i]);
  return shares;
}

// Each unit's share of `order` dealt round-robin over its `instances` instances: the shares by instance of
// the whole pool (unit u's are u x instances ..). `unit_of` gives a request's unit.
std::vector<std::vector<std::size_t>> unit_round_robin(const std::vector<std::size_t>& order,
                                                       const std::vector<int>& unit_of, int units,
                                                       int instances) {
  std::vector<std::vector<std::size_t>> by_unit(static_cast<std::size_t>(units));
  for (const std::size_t k : order) by_unit[static_cast<std::size_t>(unit_of[k])].push_back(k);
  std::vector<std::vector<std::size_t>> shares;
  for (const auto& unit : by_unit)
    for (auto& share : round_robin(unit, instances)) shares.push_back(std::move(share));
  return shares;
}

// Per sampling interval: the instances of a pool summed, their KV use averaged.
class PoolBuckets {
 public:
  explicit PoolBuckets(double every) : every_(std::max(1e-9, every)) {}
  void add(const std::vector<EngineSample>& timeline) {
    for (const EngineSample& sample : timeline) {
      const auto bucket = static_cast<long long>(std::floor(sample.time_s / every_));
      EngineSample& sum = sums_[bucket];
      sum.time_s = static_cast<double>(bucket) * every_;
      sum.running += sample.running;
      sum.waiting += sample.waiting;
      sum.kv_used_fraction += sample.kv_used_fraction;
      sum.batch_tokens += sample.batch_tokens;
      ++counts_[bucket];
    }
  }
  [[nodiscard]] std::map<long long, EngineSample> averaged() const {
    std::map<long long, EngineSample> out = sums_;
    for (auto& [bucket, sample] : out) sample.kv_used_fraction /= counts_.at(bucket);
    return out;
  }

 private:
  double every_;
  std::map<long long, EngineSample> sums_;
  std::map<long long, int> counts_;
};

struct PoolRun {
  std::vector<RequestOutcome> outcomes;  // by request index of the whole stream (unset: not in this pool)
  std::vector<int> instance;             // by request index: the instance that ran it (-1 = none)
  GapHistogram gaps;
  PoolStats stats;
  BusySeconds gpu_busy;
  std::map<long long, EngineSample> timeline;
};

// `shares` by instance of the whole pool (every unit's); `kv_load_s` by request of the whole stream: the
// decode pool's KV reads (empty for the prefill pool). A PP instance deals its share round-robin over its
// pp engines, each with 1/pp of the instance's KV cache; a DP-attention instance is one engine with ep times
// the limits (one scheduler per rank).
PoolRun run_pool(const IterationModel& model, const PoolSetup& pool,
                 const std::vector<ServeRequest>& requests,
                 const std::vector<std::vector<std::size_t>>& shares, const DisaggregatedSetup& setup,
                 const std::vector<double>& kv_load_s = {}) {
  PoolRun out;
  out.outcomes.resize(requests.size());
  out.instance.assign(requests.size(), -1);
  out.stats.instances = static_cast<int>(shares.size());
  out.stats.tp = pool.tp;
  out.stats.ep = pool.ep;
  out.stats.pp = pool.pp;
  out.stats.gpus = out.stats.instances * pool.instance_gpus();
  out.stats.limits = pool.limits;
  out.stats.limits.kv_capacity_tokens = model.kv_capacity_tokens();
  EngineLimits limits = pool.limits;
  limits.kv_capacity_tokens = model.kv_capacity_tokens() / std::max(1, pool.pp);
  limits.max_batched_tokens *= std::max(1, pool.ep);
  limits.max_sequences *= std::max(1, pool.ep);
  EngineOptions options;
  options.sample_every_s = setup.sample_every_s;
  BusySeconds busy;
  const IterationCost cost = cost_of(model, setup.engine_efficiency, busy);
  PoolBuckets buckets(setup.sample_every_s);
  std::vector<std::vector<std::size_t>> engines;  // by engine: the requests it runs
  std::vector<int> instance_of_engine;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    for (auto& share : round_robin(shares[i], pool.pp)) {
      engines.push_back(std::move(share));
      instance_of_engine.push_back(static_cast<int>(i));
    }
  }
  for (std::size_t e = 0; e < engines.size(); ++e) {
    std::vector<ServeRequest> share;
    options.remote_kv_load_s.clear();
    for (const std::size_t k : engines[e]) {
      share.push_back(requests[k]);
      if (!kv_load_s.empty()) options.remote_kv_load_s.push_back(kv_load_s[k]);
    }
    const ServeRun run = simulate_engine(share, limits, cost, options);
    for (std::size_t j = 0; j < share.size(); ++j) {
      out.outcomes[engines[e][j]] = run.requests[j];
      out.instance[engines[e][j]] = instance_of_engine[e];
    }
    out.gaps.merge(run.token_gaps);
    out.stats.iterations += run.iterations;
    out.stats.preemptions += run.preemptions;
    out.stats.unservable += run.unservable;
    buckets.add(run.timeline);
  }
  out.timeline = buckets.averaged();
  out.gpu_busy = busy.times(pool.tp * pool.ep);  // an engine's GPUs: one stage of its instance
  for (const auto& [bucket, sample] : out.timeline) {
    out.stats.peak_kv_used_fraction = std::max(out.stats.peak_kv_used_fraction, sample.kv_used_fraction);
    out.stats.peak_waiting = std::max(out.stats.peak_waiting, sample.waiting);
  }
  return out;
}

// One placement per sampling interval of both pools, and their sum as the deployment's timeline.
void merge_timelines(const PoolRun& prefill, const PoolRun& decode, DisaggregatedResult& result) {
  std::map<long long, PoolSample> samples;
  for (const auto& [bucket, sample] : prefill.timeline) {
    samples[bucket].time_s = sample.time_s;
    samples[bucket].prefill = sample;
  }
  for (const auto& [bucket, sample] : decode.timeline) {
    samples[bucket].time_s = sample.time_s;
    samples[bucket].decode = sample;
  }
  for (auto& [bucket, sample] : samples) {
    sample.prefill.time_s = sample.decode.time_s = sample.time_s;
    result.pool_timeline.push_back(sample);
    const double gpus = prefill.stats.gpus + decode.stats.gpus;
    result.serving.timeline.push_back({sample.time_s, sample.prefill.running + sample.decode.running,
                                       sample.prefill.waiting + sample.decode.waiting,
                                       (sample.prefill.kv_used_fraction * prefill.stats.gpus +
                                        sample.decode.kv_used_fraction * decode.stats.gpus) /
                                           gpus,
                                       sample.prefill.batch_tokens + sample.decode.batch_tokens});
  }
}

}  // namespace

std::optional<std::string> pool_error(const PoolSetup& pool, const std::string& name, int domain_gpus) {
  if (pool.instances < 1)
    return fmt::format("the {} pool has no instance (give {}=N with N at least 1)", name, name);
  if (pool.tp < 1) return fmt::format("the {} pool's TP must be at least 1", name);
  if (pool.tp > domain_gpus)
    return fmt::format("the {} pool's TP {} does not fit a scale-up domain of {} GPUs", name, pool.tp,
                       domain_gpus);
  if (pool.instance_gpus() > domain_gpus)
    return fmt::format(
        "a {} instance of TP {} x EP {} x PP {} ({} GPUs) does not fit a scale-up domain of {} GPUs (an "
        "instance across domains is not placed)",
        name, pool.tp, pool.ep, pool.pp, pool.instance_gpus(), domain_gpus);
  return std::nullopt;
}

PoolPlacement place_pools(int domain_gpus, const PoolSetup& prefill, const PoolSetup& decode, int units) {
  PoolPlacement placement;
  const int domain = std::max(1, domain_gpus);
  int next_gpu = 0;
  const auto place = [&](const PoolSetup& pool, std::vector<int>& domains) {
    const int width = pool.instance_gpus();
    for (int i = 0; i < pool.instances; ++i) {
      const int used = next_gpu % domain;
      if (used > 0 && used + width > domain) next_gpu += domain - used;  // never straddle a domain
      domains.push_back(next_gpu / domain);
      next_gpu += width;
    }
  };
  for (int unit = 0; unit < std::max(1, units); ++unit) {
    place(prefill, placement.prefill_domain);
    place(decode, placement.decode_domain);
  }
  return placement;
}

KvTransferModel::KvTransferModel(PerfHardware hardware, CollectiveModel collectives,
                                 const TransformerModel& model, double kv_bytes_per_element, int prefill_tp,
                                 int decode_tp, int prefill_pp, int decode_pp)
    : hardware_(std::move(hardware)), collectives_(std::move(collectives)) {
  bytes_per_token_ = model.kv_cache_bytes_per_token(kv_bytes_per_element);
  const auto per_gpu = [&](int tp, int pp) {
    return kv_cache_per_gpu(model, 1, 1, kv_bytes_per_element, std::max(1, tp)).base() / std::max(1, pp);
  };
  busiest_gpu_bytes_per_token_ = std::max(per_gpu(prefill_tp, prefill_pp), per_gpu(decode_tp, decode_pp));
}

KvTransfer KvTransferModel::of(int prompt_tokens, bool same_domain) const {
  KvTransfer transfer;
  transfer.bytes = bytes_per_token_ * prompt_tokens;
  transfer.nvlink = same_domain && hardware_.scale_up_domain > 1;
  // Two ranks: in one domain (its NVLink; the node's PCIe on a system without a scale-up fabric), or in two
  // domains, one GPU each (its NIC).
  const CollectiveGroup group =
      same_domain ? CollectiveGroup{2, std::min(2, hardware_.gpus_per_node), 2} : CollectiveGroup{2, 1, 1};
  const ByteSize bytes = ByteSize::from_base(busiest_gpu_bytes_per_token_ * prompt_tokens);
  transfer.seconds =
      estimate_collective(hardware_, collectives_, CollectiveOp::sendrecv, bytes, group).time_us * 1e-6;
  return transfer;
}

DisaggregatedResult simulate_disaggregated(const IterationModel& prefill_model,
                                           const IterationModel& decode_model,
                                           const KvTransferModel& transfer,
                                           const std::vector<ServeRequest>& requests,
                                           const DisaggregatedSetup& setup) {
  DisaggregatedResult result;
  result.requests.resize(requests.size());
  const int units = std::max(1, setup.units);
  result.units = units;
  const PoolPlacement placement = place_pools(transfer.domain_gpus(), setup.prefill, setup.decode, units);

  // Prefill: every request, in arrival order, with one output token (the proxy's max_tokens 1); request k
  // to unit k mod units, round-robin over that unit's prefill instances.
  std::vector<ServeRequest> prompts = requests;
  for (ServeRequest& prompt : prompts) prompt.output_tokens = 1;
  std::vector<std::size_t> arrival_order(requests.size());
  std::iota(arrival_order.begin(), arrival_order.end(), 0);
  std::vector<int> unit_of(requests.size());
  for (std::size_t k = 0; k < requests.size(); ++k) unit_of[k] = static_cast<int>(k % units);
  const PoolRun prefill =
      run_pool(prefill_model, setup.prefill, prompts,
               unit_round_robin(arrival_order, unit_of, units, setup.prefill.instances), setup);

  // Decode: each unit's prefilled requests in the order their prefills complete, each arriving then,
  // round-robin over the unit's decode instances.
  std::vector<std::size_t> done_order;
  for (std::size_t k = 0; k < requests.size(); ++k)
    if (prefill.outcomes[k].finished()) done_order.push_back(k);
  std::stable_sort(done_order.begin(), done_order.end(), [&](std::size_t a, std::size_t b) {
    return prefill.outcomes[a].finish_s < prefill.outcomes[b].finish_s;
  });
  const auto decode_shares = unit_round_robin(done_order, unit_of, units, setup.decode.instances);
  std::vector<ServeRequest> decodes = requests;
  std::vector<double> kv_load_s(requests.size(), -1.0);
  for (std::size_t d = 0; d < decode_shares.size(); ++d) {
    for (const std::size_t k : decode_shares[d]) {
      const int p = prefill.instance[k];
      RequestTransfer& record = result.requests[k];
      record.prefill_instance = p;
      record.decode_instance = static_cast<int>(d);
      record.prefill_done_s = prefill.outcomes[k].finish_s;
      record.transfer =
          transfer.of(requests[k].input_tokens,
                      placement.prefill_domain[static_cast<std::size_t>(p)] == placement.decode_domain[d]);
      decodes[k].arrival_s = record.prefill_done_s;
      kv_load_s[k] = record.transfer.seconds;
    }
  }
  const PoolRun decode = run_pool(decode_model, setup.decode, decodes, decode_shares, setup, kv_load_s);

  ServeRun merged;
  merged.requests.resize(requests.size());
  std::vector<double> transfer_s;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    RequestOutcome& outcome = merged.requests[k];
    outcome = decode.instance[k] >= 0 ? decode.outcomes[k] : RequestOutcome{};
    outcome.arrival_s = requests[k].arrival_s;
    outcome.input_tokens = requests[k].input_tokens;
    outcome.output_tokens = requests[k].output_tokens;
    outcome.preemptions += prefill.outcomes[k].preemptions;
    RequestTransfer& record = result.requests[k];
    if (decode.instance[k] < 0 || decode.outcomes[k].kv_load_start_s < 0) continue;
    record.kv_load_start_s = decode.outcomes[k].kv_load_start_s;
    record.kv_ready_s = record.kv_load_start_s + record.transfer.seconds;
    record.first_token_s = decode.outcomes[k].first_token_s;
    transfer_s.push_back(record.transfer.seconds);
    result.kv_bytes_total += record.transfer.bytes;
    ++(record.transfer.nvlink ? result.nvlink_transfers : result.network_transfers);
  }
  merged.token_gaps = decode.gaps;
  merged.iterations = prefill.stats.iterations + decode.stats.iterations;
  merged.preemptions = prefill.stats.preemptions + decode.stats.preemptions;
  merged.unservable = prefill.stats.unservable + decode.stats.unservable;
  if (!transfer_s.empty())
    result.kv_bytes_mean = result.kv_bytes_total / static_cast<double>(transfer_s.size());
  result.kv_transfer_s = latency_stats(std::move(transfer_s));
  result.prefill = prefill.stats;
  result.decode = decode.stats;
  merge_timelines(prefill, decode, result);
  merged.timeline = result.serving.timeline;
  result.serving.gpus = prefill.stats.gpus + decode.stats.gpus;
  result.serving.iterations = merged.iterations;
  result.serving.gpu_busy = prefill.gpu_busy;
  result.serving.gpu_busy += decode.gpu_busy;
  result.serving.summary = summarize(merged, setup.targets, result.serving.gpus);
  return result;
}

namespace {

struct SplitRun {
  PoolSplitTrial trial;
  bool needs_prefill = false;  // missed the targets and the prefill pool is the short one
};

SplitRun split_trial(const IterationModel& prefill_model, const IterationModel& decode_model,
                     const KvTransferModel& transfer, const std::vector<ServeRequest>& requests,
                     const DisaggregatedSetup& setup, int prefill_instances, int instances) {
  DisaggregatedSetup trial = setup;
  trial.prefill.instances = prefill_instances;
  trial.decode.instances = instances - prefill_instances;
  const DisaggregatedResult run =
      simulate_disaggregated(prefill_model, decode_model, transfer, requests, trial);
  SplitRun out{{prefill_instances, instances - prefill_instances, run.serving.gpus, run.serving.summary}};
  if (!run.serving.summary.meets_targets && prompt_side_binds(run.serving.summary, setup.targets)) {
    double before_prefill_done = 0, after_prefill_done = 0;  // TTFT's two parts, summed over requests
    for (std::size_t k = 0; k < requests.size(); ++k) {
      const RequestTransfer& r = run.requests[k];
      if (r.first_token_s < 0) continue;
      before_prefill_done += r.prefill_done_s - requests[k].arrival_s;
      after_prefill_done += r.first_token_s - r.prefill_done_s;
    }
    out.needs_prefill = before_prefill_done >= after_prefill_done;
  }
  return out;
}

bool better_split(const PoolSplitTrial& a, const PoolSplitTrial& b) {  // a strictly better than b
  if (a.summary.meets_targets != b.summary.meets_targets) return a.summary.meets_targets;
  if (!a.summary.meets_targets) return a.summary.share_meeting_targets > b.summary.share_meeting_targets;
  if (a.gpus != b.gpus) return a.gpus < b.gpus;
  return a.summary.goodput_requests_per_s > b.summary.goodput_requests_per_s;
}

void choose_best(PoolSplit& split) {
  if (split.trials.empty()) return;
  std::sort(split.trials.begin(), split.trials.end(), [](const PoolSplitTrial& a, const PoolSplitTrial& b) {
    return a.prefill_instances < b.prefill_instances;
  });
  split.best = 0;
  for (std::size_t i = 1; i < split.trials.size(); ++i)
    if (better_split(split.trials[i], split.trials[split.best])) split.best = i;
  split.meets = split.trials[split.best].summary.meets_targets;
}

}  // namespace

PoolSplit best_pool_split(const IterationModel& prefill_model, const IterationModel& decode_model,
                          const KvTransferModel& transfer, const std::vector<ServeRequest>& requests,
                          const DisaggregatedSetup& setup, int instances) {
  PoolSplit split;
  for (int p = 1; p < instances; ++p)
    split.trials.push_back(
        split_trial(prefill_model, decode_model, transfer, requests, setup, p, instances).trial);
  choose_best(split);
  return split;
}

bool prompt_side_binds(const ServeSummary& summary, const LatencyTargets& targets) {
  const auto at = [&](const LatencyStats& stats) {
    return targets.percentile >= 0.99 ? stats.p99 : targets.percentile >= 0.9 ? stats.p90 : stats.p50;
  };
  const double ttft = targets.ttft_s ? at(summary.ttft_s) / *targets.ttft_s : 0;
  double decode = 0;
  if (targets.tpot_s) decode = std::max(decode, at(summary.tpot_s) / *targets.tpot_s);
  if (targets.e2e_s) decode = std::max(decode, at(summary.e2e_s) / *targets.e2e_s);
  return ttft > decode;
}

PoolSplit searched_pool_split(const IterationModel& prefill_model, const IterationModel& decode_model,
                              const KvTransferModel& transfer, const std::vector<ServeRequest>& requests,
                              const DisaggregatedSetup& setup, int instances, int exhaustive_up_to) {
  if (instances <= exhaustive_up_to)
    return best_pool_split(prefill_model, decode_model, transfer, requests, setup, instances);
  PoolSplit split;
  int low = 1;
  int high = instances - 1;
  while (low <= high) {
    const int p = (low + high) / 2;
    const SplitRun run = split_trial(prefill_model, decode_model, transfer, requests, setup, p, instances);
    split.trials.push_back(run.trial);
    if (run.trial.summary.meets_targets) break;
    if (run.needs_prefill)
      low = p + 1;
    else
      high = p - 1;
  }
  choose_best(split);
  return split;
}

}  // namespace gputwin
