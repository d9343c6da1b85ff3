#include "gputwin/serve/serving.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/serve/pool_clock.hpp"

namespace gputwin {
namespace {

// Requests k, k + R, k + 2R, ... go to replica k (round-robin).
std::vector<std::vector<std::size_t>> round_robin(std::size_t requests, int replicas) {
  std::vector<std::vector<std::size_t>> shares(static_cast<std::size_t>(replicas));
  for (std::size_t k = 0; k < requests; ++k) shares[k % shares.size()].push_back(k);
  return shares;
}

void add_samples(std::map<long long, EngineSample>& buckets, std::map<long long, int>& samples,
                 const std::vector<EngineSample>& timeline, double every) {
  for (const EngineSample& sample : timeline) {
    const auto bucket = static_cast<long long>(std::floor(sample.time_s / every));
    EngineSample& sum = buckets[bucket];
    sum.time_s = static_cast<double>(bucket) * every;
    sum.running += sample.running;
    sum.waiting += sample.waiting;
    sum.kv_used_fraction += sample.kv_used_fraction;
    sum.batch_tokens += sample.batch_tokens;
    ++samples[bucket];
  }
}

}  // namespace

Result<ServingEngineDefaults> load_serving_engine_defaults(const std::string& path) {
  return result_of<ServingEngineDefaults>([&] {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys(
        {"engine", "source", "block_tokens", "large_memory_gib", "large_memory_excludes", "large", "small"});
    ServingEngineDefaults defaults;
    defaults.engine = root.child("engine").text();
    defaults.source = root.child("source").text();
    defaults.block_tokens = static_cast<int>(root.child("block_tokens").positive_integer());
    defaults.large_memory_gib = root.child("large_memory_gib").positive_number();
    for (const YamlField& item : root.child("large_memory_excludes").items())
      defaults.large_memory_excludes.push_back(item.text());
    const auto limits = [&](std::string_view key, int& tokens, int& sequences) {
      const YamlField field = root.child(key);
      field.expect_keys({"max_batched_tokens", "max_sequences"});
      tokens = static_cast<int>(field.child("max_batched_tokens").positive_integer());
      sequences = static_cast<int>(field.child("max_sequences").positive_integer());
    };
    limits("large", defaults.large_max_batched_tokens, defaults.large_max_sequences);
    limits("small", defaults.small_max_batched_tokens, defaults.small_max_sequences);
    return defaults;
  });
}

EngineLimits engine_limits_for(const ServingEngineDefaults& defaults, const Accelerator& gpu,
                               double kv_capacity_tokens) {
  bool large = gpu.memory.base() >= defaults.large_memory_gib * 1024.0 * 1024.0 * 1024.0;
  for (const std::string& excluded : defaults.large_memory_excludes)
    large = large && gpu.info.id.find(excluded) == std::string::npos;
  EngineLimits limits;
  limits.block_tokens = defaults.block_tokens;
  limits.max_batched_tokens = large ? defaults.large_max_batched_tokens : defaults.small_max_batched_tokens;
  limits.max_sequences = large ? defaults.large_max_sequences : defaults.small_max_sequences;
  limits.kv_capacity_tokens = kv_capacity_tokens;
  return limits;
}

ServingSetup pipelined(ServingSetup setup, int pp) {
  if (pp <= 1) return setup;
  setup.replicas *= pp;
  setup.limits.kv_capacity_tokens /= pp;
  return setup;
}

namespace {

// Least-in-flight dealing (ServingSetup::dealing): the replicas run on one clock, and each request, at its
// arrival, goes to the replica with the fewest requests sent to it and not yet settled by then (ties to the
// lowest index). An engine whose iteration started before the arrival but ends after it still counts that
// iteration's finished requests as in flight: the harness learns of a completion when it is answered.
class LeastInFlightDealer : public ClockDriver {
 public:
  LeastInFlightDealer(const std::vector<ServeRequest>& requests, std::size_t replicas)
      : requests_(requests), in_flight_(replicas, 0), settling_(replicas) {}

  [[nodiscard]] std::optional<double> next_event_s() const override {
    if (next_ >= requests_.size()) return std::nullopt;
    return requests_[next_].arrival_s;
  }
  void deliver(PoolClock& clock) override {
    const double t = requests_[next_].arrival_s;
    for (std::size_t r = 0; r < in_flight_.size(); ++r)
      while (!settling_[r].empty() && settling_[r].front() <= t) {
        settling_[r].pop_front();
        --in_flight_[r];
      }
    const auto to =
        static_cast<std::size_t>(std::min_element(in_flight_.begin(), in_flight_.end()) - in_flight_.begin());
    clock.add(to, next_, requests_[next_]);
    ++in_flight_[to];
    ++next_;
  }
  void settled(PoolClock& /*clock*/, const Settled& done) override {
    settling_[done.engine].push_back(done.time_s);
  }

 private:
  const std::vector<ServeRequest>& requests_;
  std::vector<int> in_flight_;
  std::vector<std::deque<double>> settling_;  // settle times not yet reached by the dealer's clock
  std::size_t next_ = 0;
};

// The dealer runs every request to its end on engines given only the sampling interval: a horizon, remote KV
// loads or giving up early would be dropped without a word, so they are refused (no caller sets them on this
// path; a programming error, not input).
void refuse_what_the_dealer_does_not_run(const ServingSetup& setup) {
  std::string dropped;
  if (setup.options.horizon_s > 0) dropped += " horizon_s";
  if (!setup.options.remote_kv_load_s.empty()) dropped += " remote_kv_load_s";
  const LatencyTargets& t = setup.targets;
  if (setup.options.misses || (setup.give_up_when_missed && (t.ttft_s || t.tpot_s || t.e2e_s)))
    dropped += " giving up early";
  if (!dropped.empty())
    throw std::invalid_argument("simulate_serving: least-in-flight dealing does not run" + dropped);
}

}  // namespace

ServingResult simulate_serving(const IterationModel& model, const std::vector<ServeRequest>& requests,
                               const ServingSetup& setup) {
  // A closed loop's clients are shared out over the replicas; a replica without a client would hold requests
  // nobody sends, so there are never more replicas than clients.
  const int replicas = setup.options.concurrency > 0
                           ? std::clamp(setup.replicas, 1, setup.options.concurrency)
                           : std::max(1, setup.replicas);
  BusySeconds busy;
  const IterationCost cost = [&](const IterationBatch& batch) {
    const StepTime step = model.iteration(batch.prefill_tokens, batch.prefill_context_tokens,
                                          batch.decode_sequences, batch.decode_context_tokens);
    busy.add(step, setup.engine_efficiency);
    return step.seconds() / setup.engine_efficiency;
  };
  ServeRun merged;
  merged.requests.resize(requests.size());
  std::map<long long, EngineSample> buckets;
  std::map<long long, int> samples;
  const auto merge = [&](const std::vector<std::size_t>& share, const ServeRun& run) {
    for (std::size_t i = 0; i < share.size(); ++i) merged.requests[share[i]] = run.requests[i];
    merged.token_gaps.merge(run.token_gaps);
    merged.iterations += run.iterations;
    merged.preemptions += run.preemptions;
    merged.unservable += run.unservable;
    merged.end_s = std::max(merged.end_s, run.end_s);
    add_samples(buckets, samples, run.timeline, std::max(1e-9, setup.options.sample_every_s));
  };
  bool gave_up = false;
  if (setup.dealing == Dealing::least_in_flight && setup.options.concurrency == 0 && replicas > 1) {
    refuse_what_the_dealer_does_not_run(setup);
    PoolClock clock;
    for (int r = 0; r < replicas; ++r) clock.add_engine(setup.limits, cost, setup.options.sample_every_s);
    LeastInFlightDealer dealer(requests, static_cast<std::size_t>(replicas));
    clock.run(dealer);
    for (std::size_t r = 0; r < clock.engines(); ++r) merge(clock.requests_of(r), clock.run_of(r));
  } else {
    const auto shares = round_robin(requests.size(), replicas);
    const bool give_up =
        setup.give_up_when_missed && (setup.targets.ttft_s || setup.targets.tpot_s || setup.targets.e2e_s);
    const long long allowed = give_up ? misses_allowed(static_cast<int>(requests.size()), setup.targets) : 0;
    long long missed = 0;
    for (int r = 0; r < replicas && !gave_up; ++r) {
      const auto& share_indices = shares[static_cast<std::size_t>(r)];
      std::vector<ServeRequest> share;
      for (const std::size_t k : share_indices) share.push_back(requests[k]);
      EngineOptions options = setup.options;
      if (options.concurrency > 0)
        options.concurrency = options.concurrency / replicas + (r < options.concurrency % replicas ? 1 : 0);
      if (give_up) {
        options.misses = [&](const RequestOutcome& outcome) {
          return !request_meets_targets(outcome, setup.targets);
        };
        options.misses_allowed = allowed - missed;
      }
      const ServeRun run = simulate_engine(share, setup.limits, cost, options);
      missed += run.misses;
      gave_up = run.gave_up;
      merge(share_indices, run);
    }
  }
  for (auto& [bucket, sample] : buckets) {
    sample.kv_used_fraction /= samples[bucket];
    merged.timeline.push_back(sample);
  }
  ServingResult result;
  result.gpus = replicas * setup.gpus_per_replica;
  result.iterations = merged.iterations;
  result.gpu_busy = busy.times(setup.gpus_per_replica);
  result.summary = summarize(merged, setup.targets, result.gpus);
  result.gave_up = gave_up;
  if (gave_up) result.summary.meets_targets = false;
  result.timeline = std::move(merged.timeline);
  if (setup.keep_requests) result.requests = std::move(merged.requests);
  return result;
}

ServeSummary closed_loop_latency(const IterationModel& model, const EngineLimits& limits,
                                 const ClosedLoopLoad& load, int gpus_per_replica) {
  const auto count = static_cast<std::size_t>(load.concurrency) * static_cast<std::size_t>(load.rounds);
  const std::vector<ServeRequest> requests(count, {0.0, load.input_tokens, load.output_tokens});
  ServingSetup setup;
  setup.gpus_per_replica = gpus_per_replica;
  setup.limits = limits;
  setup.options.concurrency = load.concurrency;
  setup.options.sample_every_s = 0;  // no timeline wanted
  setup.engine_efficiency = load.engine_efficiency;
  return simulate_serving(model, requests, pipelined(setup, load.pipeline_stages)).summary;
}

void BusySeconds::add(const StepTime& step, double engine_efficiency) {
  (step.compute_bound() ? compute : memory) += std::max(step.compute_s, step.memory_s) / engine_efficiency;
  communication += step.communication_s / engine_efficiency;
  host += step.host_s / engine_efficiency;
}

BusySeconds BusySeconds::times(double factor) const {
  return {compute * factor, memory * factor, communication * factor, host * factor};
}

BusySeconds& BusySeconds::operator+=(const BusySeconds& other) {
  compute += other.compute;
  memory += other.memory;
  communication += other.communication;
  host += other.host;
  return *this;
}

InferenceEstimate at_engine_efficiency(InferenceEstimate estimate, double efficiency) {
  if (efficiency == 1 || efficiency <= 0) return estimate;
  for (StepTime* step : {&estimate.prefill, &estimate.decode}) {
    step->compute_s /= efficiency;
    step->memory_s /= efficiency;
    step->communication_s /= efficiency;
    step->host_s /= efficiency;
  }
  estimate.ttft_s /= efficiency;
  estimate.tpot_s /= efficiency;
  estimate.output_tokens_per_s *= efficiency;
  estimate.output_tokens_per_s_per_gpu *= efficiency;
  return estimate;
}

}  // namespace gputwin
