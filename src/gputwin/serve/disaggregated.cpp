#include "gputwin/serve/disaggregated.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "gputwin/perf/memory.hpp"
#include "gputwin/serve/pool_clock.hpp"

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

// One pool's engines on the deployment's clock (PoolClock). Instance i (every unit's, unit u's from u x
// instances) is pp engines, i x pp .. i x pp + pp - 1 of the pool, each with 1/pp of the instance's KV cache,
// dealt its requests round-robin; a DP-attention instance is one engine with ep times the limits (one
// scheduler per rank).
class PoolEngines {
 public:
  PoolEngines(const IterationModel& model, const PoolSetup& pool, int units, const DisaggregatedSetup& setup,
              PoolClock& clock)
      : pool_(pool), instances_(pool.instances * units), pp_(std::max(1, pool.pp)), clock_(clock) {
    stats_.instances = instances_;
    stats_.tp = pool.tp;
    stats_.ep = pool.ep;
    stats_.pp = pool.pp;
    stats_.gpus = stats_.instances * pool.instance_gpus();
    stats_.limits = pool.limits;
    stats_.limits.kv_capacity_tokens = model.kv_capacity_tokens();
    EngineLimits limits = pool.limits;
    limits.kv_capacity_tokens = model.kv_capacity_tokens() / pp_;
    limits.max_batched_tokens *= std::max(1, pool.ep);
    limits.max_sequences *= std::max(1, pool.ep);
    const auto engines = static_cast<std::size_t>(instances_ * pp_);
    busy_.resize(engines);  // sized once: each engine's cost holds its element
    dealt_.assign(static_cast<std::size_t>(instances_), 0);
    first_ = clock.engines();
    for (std::size_t e = 0; e < engines; ++e)
      clock.add_engine(limits, cost_of(model, setup.engine_efficiency, busy_[e]), setup.sample_every_s);
  }
  PoolEngines(const PoolEngines&) = delete;
  PoolEngines& operator=(const PoolEngines&) = delete;

  // Request k of the stream to `instance`, its next stage.
  void add(std::size_t k, int instance, const ServeRequest& request, double kv_load_s = -1) {
    const auto i = static_cast<std::size_t>(instance);
    const std::size_t e = i * static_cast<std::size_t>(pp_) + static_cast<std::size_t>(dealt_[i]++ % pp_);
    clock_.add(first_ + e, k, request, kv_load_s);
  }
  // Whether the clock's engine is one of this pool's.
  [[nodiscard]] bool holds(std::size_t clock_engine) const {
    return clock_engine >= first_ && clock_engine < first_ + busy_.size();
  }

  // The pool's run, engine by engine in order (the same sums whatever order the clock stepped them in).
  PoolRun collect(std::size_t stream_size, double sample_every_s) {
    PoolRun out;
    out.outcomes.resize(stream_size);
    out.instance.assign(stream_size, -1);
    out.stats = stats_;
    PoolBuckets buckets(sample_every_s);
    BusySeconds busy;
    for (std::size_t e = 0; e < busy_.size(); ++e) {
      const ServeRun& run = clock_.run_of(first_ + e);
      const std::vector<std::size_t>& stream = clock_.requests_of(first_ + e);
      for (std::size_t j = 0; j < stream.size(); ++j) {
        out.outcomes[stream[j]] = run.requests[j];
        out.instance[stream[j]] = static_cast<int>(e) / pp_;
      }
      out.gaps.merge(run.token_gaps);
      out.stats.iterations += run.iterations;
      out.stats.preemptions += run.preemptions;
      out.stats.unservable += run.unservable;
      buckets.add(run.timeline);
      busy += busy_[e];
    }
    out.timeline = buckets.averaged();
    out.gpu_busy = busy.times(pool_.tp * pool_.ep);  // an engine's GPUs: one stage of its instance
    for (const auto& [bucket, sample] : out.timeline) {
      out.stats.peak_kv_used_fraction = std::max(out.stats.peak_kv_used_fraction, sample.kv_used_fraction);
      out.stats.peak_waiting = std::max(out.stats.peak_waiting, sample.waiting);
    }
    return out;
  }

 private:
  const PoolSetup& pool_;
  int instances_;
  int pp_;
  PoolClock& clock_;
  std::size_t first_ = 0;  // the clock's index of the pool's engine 0
  PoolStats stats_;
  std::vector<BusySeconds> busy_;  // by engine
  std::vector<int> dealt_;         // by instance: requests dealt to it so far
};

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

namespace {

// Both pools' engines on one clock (PoolClock; the prefill pool's engines first, so a prefill engine steps
// before a decode engine due at the same time), with what passes between the pools (a prompt's prefill ended;
// a closed loop's client sends its next request) as this driver's events. Request k of the stream goes to
// unit k mod units, round-robin over the unit's prefill instances in the order requests are sent, then over
// its decode instances in the order their prefills end (the proxy's routing).
class PoolsOnOneClock : public ClockDriver {
 public:
  PoolsOnOneClock(const IterationModel& prefill_model, const IterationModel& decode_model,
                  const KvTransferModel& transfer, const std::vector<ServeRequest>& requests,
                  const DisaggregatedSetup& setup, DisaggregatedResult& result)
      : requests_(requests),
        setup_(setup),
        transfer_(transfer),
        units_(std::max(1, setup.units)),
        placement_(place_pools(transfer.domain_gpus(), setup.prefill, setup.decode, units_)),
        prefill_(prefill_model, setup.prefill, units_, setup, clock_),
        decode_(decode_model, setup.decode, units_, setup, clock_),
        sent_s_(requests.size(), 0.0),
        prefill_instance_(requests.size(), -1),
        prefill_dealt_(static_cast<std::size_t>(units_), 0),
        decode_dealt_(static_cast<std::size_t>(units_), 0),
        result_(result) {}

  void run() {
    if (closed_loop()) {
      while (next_to_send_ < requests_.size() && next_to_send_ < static_cast<std::size_t>(setup_.concurrency))
        events_.insert({0.0, next_to_send_++, true});
    } else {
      for (std::size_t k = 0; k < requests_.size(); ++k) send(k, requests_[k].arrival_s);
    }
    clock_.run(*this);
  }

  [[nodiscard]] std::optional<double> next_event_s() const override {
    if (events_.empty()) return std::nullopt;
    return events_.begin()->time_s;
  }
  void deliver(PoolClock& /*clock*/) override {
    const Event event = *events_.begin();
    events_.erase(events_.begin());
    if (event.client_sends)
      send(event.request, event.time_s);
    else
      to_decode(event.request, event.time_s);
  }
  void settled(PoolClock& /*clock*/, const Settled& done) override {
    if (prefill_.holds(done.engine) && done.finished)
      events_.insert({done.time_s, done.request, false});
    else
      answered(done.time_s);  // decoded, or refused (longer than an instance's cache)
  }

  [[nodiscard]] PoolRun prefill_run() { return prefill_.collect(requests_.size(), setup_.sample_every_s); }
  [[nodiscard]] PoolRun decode_run() { return decode_.collect(requests_.size(), setup_.sample_every_s); }
  // When request k was sent: its arrival (open loop), or when its client sent it (closed loop).
  [[nodiscard]] double sent_s(std::size_t k) const { return sent_s_[k]; }

 private:
  struct Event {
    double time_s = 0;
    std::size_t request = 0;
    bool client_sends = false;  // else: its prefill ended
    auto operator<=>(const Event&) const = default;
  };

  [[nodiscard]] bool closed_loop() const { return setup_.concurrency > 0; }
  [[nodiscard]] std::size_t unit_of(std::size_t k) const { return k % static_cast<std::size_t>(units_); }
  static int next_instance(std::vector<int>& dealt, std::size_t unit, int per_unit) {
    return static_cast<int>(unit) * per_unit + dealt[unit]++ % per_unit;
  }

  // The prompt alone (the proxy's max_tokens 1) to the unit's next prefill instance.
  void send(std::size_t k, double time_s) {
    sent_s_[k] = time_s;
    result_.requests[k].sent_s = time_s;
    ServeRequest prompt = requests_[k];
    prompt.arrival_s = time_s;
    prompt.output_tokens = 1;
    const int instance = next_instance(prefill_dealt_, unit_of(k), setup_.prefill.instances);
    prefill_instance_[k] = instance;
    prefill_.add(k, instance, prompt);
  }

  // Its prefill ended: to the unit's next decode instance, which reads the prompt's KV cache once admitted.
  void to_decode(std::size_t k, double time_s) {
    const int d = next_instance(decode_dealt_, unit_of(k), setup_.decode.instances);
    const int p = prefill_instance_[k];
    RequestTransfer& record = result_.requests[k];
    record.prefill_instance = p;
    record.decode_instance = d;
    record.prefill_done_s = time_s;
    record.transfer =
        transfer_.of(requests_[k].input_tokens, placement_.prefill_domain[static_cast<std::size_t>(p)] ==
                                                    placement_.decode_domain[static_cast<std::size_t>(d)]);
    ServeRequest decode = requests_[k];
    decode.arrival_s = time_s;
    decode_.add(k, d, decode, record.transfer.seconds);
  }

  // A client has its answer (or its refusal): in a closed loop it sends the next request then.
  void answered(double time_s) {
    if (closed_loop() && next_to_send_ < requests_.size()) events_.insert({time_s, next_to_send_++, true});
  }

  const std::vector<ServeRequest>& requests_;
  const DisaggregatedSetup& setup_;
  const KvTransferModel& transfer_;
  int units_;
  PoolPlacement placement_;
  PoolClock clock_;  // before the pools: they add their engines to it
  PoolEngines prefill_;
  PoolEngines decode_;
  std::set<Event> events_;
  std::vector<double> sent_s_;
  std::vector<int> prefill_instance_;  // by request
  std::vector<int> prefill_dealt_;     // by unit: requests sent to its prefill instances so far
  std::vector<int> decode_dealt_;      // by unit: requests sent to its decode instances so far
  std::size_t next_to_send_ = 0;       // closed loop: the next request a client sends
  DisaggregatedResult& result_;
};

}  // namespace

DisaggregatedResult simulate_disaggregated(const IterationModel& prefill_model,
                                           const IterationModel& decode_model,
                                           const KvTransferModel& transfer,
                                           const std::vector<ServeRequest>& requests,
                                           const DisaggregatedSetup& setup) {
  DisaggregatedResult result;
  result.requests.resize(requests.size());
  result.units = std::max(1, setup.units);
  PoolsOnOneClock pools(prefill_model, decode_model, transfer, requests, setup, result);
  pools.run();
  const PoolRun prefill = pools.prefill_run();
  const PoolRun decode = pools.decode_run();

  ServeRun merged;
  merged.requests.resize(requests.size());
  std::vector<double> transfer_s;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    RequestOutcome& outcome = merged.requests[k];
    outcome = decode.instance[k] >= 0 ? decode.outcomes[k] : RequestOutcome{};
    outcome.arrival_s = pools.sent_s(k);
    outcome.input_tokens = requests[k].input_tokens;
    outcome.output_tokens = requests[k].output_tokens;
    outcome.preemptions += prefill.outcomes[k].preemptions;
    RequestTransfer& record = result.requests[k];
    if (decode.instance[k] < 0 || decode.outcomes[k].kv_load_start_s < 0) continue;
    record.kv_load_start_s = decode.outcomes[k].kv_load_start_s;
    record.kv_ready_s = record.kv_load_start_s + record.transfer.seconds;
    record.first_token_s = decode.outcomes[k].first_token_s;
    record.finish_s = decode.outcomes[k].finish_s;
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
    for (const RequestTransfer& r : run.requests) {
      if (r.first_token_s < 0) continue;
      before_prefill_done += r.prefill_done_s - r.sent_s;
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
