#include "gputwin/serve/engine.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace gputwin {
namespace {

struct Live {
  int computed = 0;   // tokens whose KV is in the cache
  int generated = 0;  // output tokens produced
  int blocks = 0;     // KV blocks held
  double last_token_s = 0;
  bool remote_started = false;  // remote prefill: its KV load was started (a later preemption recomputes)
};

}  // namespace

class ServeEngine::Impl {
 public:
  Impl(std::vector<ServeRequest> requests, const EngineLimits& limits, IterationCost cost,
       EngineOptions options)
      : requests_(std::move(requests)),
        limits_(limits),
        cost_(std::move(cost)),
        options_(std::move(options)),
        live_(requests_.size()) {
    total_blocks_ =
        static_cast<int>(std::floor(limits.kv_capacity_tokens / std::max(1, limits.block_tokens)));
    free_blocks_ = total_blocks_;
    run_.requests.resize(requests_.size());
    for (std::size_t k = 0; k < requests_.size(); ++k) set_outcome(k);
  }

  ServeRun run() {
    if (options_.concurrency > 0) {
      for (int c = 0; c < options_.concurrency && next_closed_ < requests_.size(); ++c) release_closed(0);
    }
    while (!finished_all() && step()) {
    }
    run_.end_s = now_;
    return std::move(run_);
  }

  // One pass of the loop: admit what has arrived, then wait for the next event or run one iteration. False
  // when there is nothing to do until a request is added, or the run has halted (horizon, gave up).
  bool step() {
    if (awaiting_event_) {  // the clock moves now that every arrival before the next event is known
      awaiting_event_ = false;
      now_ = std::max(now_, next_event_s());
      halted_ = options_.horizon_s > 0 && now_ >= options_.horizon_s;
      return !halted_;
    }
    admit_arrivals();
    finish_loads();
    if (running_.empty() && waiting_.empty()) {
      if (!loading_.empty()) {
        now_ = std::max(now_, next_event_s());
        return true;
      }
      if (closed_loop() || next_open_ >= requests_.size()) return false;  // nothing left to arrive
      now_ = std::max(now_, requests_[next_open_].arrival_s);
      return true;
    }
    halted_ = !iterate() || (options_.horizon_s > 0 && now_ >= options_.horizon_s) || run_.gave_up;
    return !halted_;
  }

  // Open loop: arrives at request.arrival_s, not before the last added request.
  int add(const ServeRequest& request, double remote_kv_load_s) {
    const std::size_t k = requests_.size();
    requests_.push_back(request);
    live_.emplace_back();
    run_.requests.emplace_back();
    set_outcome(k);
    if (remote_kv_load_s >= 0 || !options_.remote_kv_load_s.empty()) {
      options_.remote_kv_load_s.resize(k, -1.0);
      options_.remote_kv_load_s.push_back(remote_kv_load_s);
    }
    return static_cast<int>(k);
  }

  [[nodiscard]] double next_step_s() const {
    constexpr double kNever = std::numeric_limits<double>::infinity();
    if (halted_ || finished_all()) return kNever;
    if (!awaiting_event_ && (!running_.empty() || !waiting_.empty())) return now_;
    double next = kNever;
    for (const auto& load : loading_) next = std::min(next, load.first);
    if (!closed_loop() && next_open_ < requests_.size())
      next = std::min(next, requests_[next_open_].arrival_s);
    return std::max(now_, next);
  }

  std::vector<SettledRequest> take_settled() { return std::exchange(settled_, {}); }
  [[nodiscard]] const ServeRun& so_far() {
    run_.end_s = now_;
    return run_;
  }
  void track_settled() { track_settled_ = true; }

 private:
  void set_outcome(std::size_t k) {
    RequestOutcome& outcome = run_.requests[k];
    outcome.arrival_s = requests_[k].arrival_s;
    outcome.input_tokens = requests_[k].input_tokens;
    outcome.output_tokens = requests_[k].output_tokens;
  }

  [[nodiscard]] bool closed_loop() const { return options_.concurrency > 0; }
  [[nodiscard]] bool remote(int r) const {
    const auto k = static_cast<std::size_t>(r);
    return k < options_.remote_kv_load_s.size() && options_.remote_kv_load_s[k] >= 0;
  }
  [[nodiscard]] int tokens_of(int r) const { return requests_[r].input_tokens + live_[r].generated; }
  [[nodiscard]] int blocks_for(int tokens) const {
    return (tokens + limits_.block_tokens - 1) / limits_.block_tokens;
  }
  [[nodiscard]] bool fits_at_all(int r) const {
    return blocks_for(requests_[r].input_tokens + requests_[r].output_tokens) <= total_blocks_;
  }
  [[nodiscard]] bool finished_all() const {
    return done_ + run_.unservable >= static_cast<int>(requests_.size());
  }

  // Closed loop: the next request is sent at `time` by the client that just got its answer.
  void release_closed(double time) {
    const std::size_t r = next_closed_++;
    run_.requests[r].arrival_s = time;
    enqueue(static_cast<int>(r));
  }
  void enqueue(int r) {
    if (!fits_at_all(r)) {  // longer than the whole cache: the engine can never run it
      ++run_.unservable;
      if (track_settled_) settled_.push_back({r, now_});
      if (closed_loop() && next_closed_ < requests_.size()) release_closed(now_);
      return;
    }
    waiting_.push_back(r);
  }
  void admit_arrivals() {
    if (closed_loop()) return;
    while (next_open_ < requests_.size() && requests_[next_open_].arrival_s <= now_)
      enqueue(static_cast<int>(next_open_++));
  }

  // Remote prefill: loads that have completed put their requests back at the head of the queue (vLLM keeps a
  // request waiting for remote KV in its waiting queue), with all but the last prompt token computed.
  void finish_loads() {
    if (loading_.empty()) return;
    std::vector<int> ready;
    std::erase_if(loading_, [&](const std::pair<double, int>& load) {
      if (load.first > now_) return false;
      ready.push_back(load.second);
      return true;
    });
    for (auto it = ready.rbegin(); it != ready.rend(); ++it) {
      live_[*it].computed = std::max(0, requests_[*it].input_tokens - 1);
      waiting_.push_front(*it);
    }
  }
  // The next time something can change while the engine has nothing to compute: a load ends or a request
  // arrives.
  [[nodiscard]] double next_event_s() const {
    double next = loading_.empty() ? now_ : loading_.front().first;
    for (const auto& load : loading_) next = std::min(next, load.first);
    if (!closed_loop() && next_open_ < requests_.size())
      next = std::min(next, std::max(now_, requests_[next_open_].arrival_s));
    return next;
  }

  void release(int r) {
    free_blocks_ += live_[r].blocks;
    live_[r].blocks = 0;
  }
  // Recompute preemption: the request gives its cache back and returns to the head of the queue.
  void preempt(int r) {
    release(r);
    live_[r].computed = 0;
    ++run_.requests[r].preemptions;
    ++run_.preemptions;
    waiting_.push_front(r);
  }
  bool allocate(int r, int new_tokens) {
    const int need = blocks_for(live_[r].computed + new_tokens) - live_[r].blocks;
    if (need > free_blocks_) return false;
    free_blocks_ -= need;
    live_[r].blocks += need;
    return true;
  }

  struct Scheduled {
    int request;
    int tokens;
  };

  // Running requests first, in admission order; when one cannot grow, the latest admitted is preempted.
  void schedule_running(std::vector<Scheduled>& batch, int& budget, bool& preempted) {
    std::size_t k = 0;
    while (k < running_.size() && budget > 0) {
      const int r = running_[k];
      const int tokens = std::min(tokens_of(r) - live_[r].computed, budget);
      bool placed = allocate(r, tokens);
      while (!placed && running_.back() != r) {
        preempt(running_.back());
        running_.pop_back();
        preempted = true;
        placed = allocate(r, tokens);
      }
      if (!placed) {  // it is the latest itself: it waits
        preempt(r);
        running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(k));
        preempted = true;
        continue;
      }
      batch.push_back({r, tokens});
      budget -= tokens;
      ++k;
    }
  }

  // Then queued requests in arrival order, while the budget, the sequence limit and the cache allow (none
  // after a preemption in the same iteration).
  void schedule_waiting(std::vector<Scheduled>& batch, int& budget) {
    while (!waiting_.empty() && budget > 0 && static_cast<int>(running_.size()) < limits_.max_sequences) {
      const int r = waiting_.front();
      if (remote(r) && !live_[r].remote_started) {  // admit: blocks now, KV read later
        if (!allocate(r, requests_[r].input_tokens)) break;
        waiting_.pop_front();
        live_[r].remote_started = true;
        run_.requests[r].kv_load_start_s = now_;
        loading_.emplace_back(now_ + options_.remote_kv_load_s[static_cast<std::size_t>(r)], r);
        continue;
      }
      const int tokens = std::min(tokens_of(r) - live_[r].computed, budget);
      if (!allocate(r, tokens)) break;
      waiting_.pop_front();
      running_.push_back(r);
      batch.push_back({r, tokens});
      budget -= tokens;
    }
  }

  // TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler: admit in arrival order while the whole request
  // (prompt and every output token) fits the free blocks, which already exclude what the running requests
  // will still need: each admitted request holds the blocks of its whole length from the start.
  void admit_without_eviction() {
    while (!waiting_.empty() && static_cast<int>(running_.size()) < limits_.max_sequences) {
      const int r = waiting_.front();
      const int need = blocks_for(requests_[r].input_tokens + requests_[r].output_tokens) - live_[r].blocks;
      if (need > free_blocks_) break;  // the first that does not fit stops admission
      free_blocks_ -= need;
      live_[r].blocks += need;
      waiting_.pop_front();
      if (remote(r) && !live_[r].remote_started) {
        live_[r].remote_started = true;
        run_.requests[r].kv_load_start_s = now_;
        loading_.emplace_back(now_ + options_.remote_kv_load_s[static_cast<std::size_t>(r)], r);
        continue;
      }
      running_.push_back(r);
    }
  }

  // TensorRT-LLM's micro-batch scheduler: one token of every generating request, then the budget left to the
  // prompts in admission order; a chunk that stops short of its prompt's end is rounded down to whole blocks
  // (kept whole when it would be the batch's only work, so that a budget under one block still progresses).
  void schedule_without_eviction(std::vector<Scheduled>& batch, int& budget) {
    admit_without_eviction();
    for (const int r : running_) {
      if (live_[r].generated == 0) continue;
      if (budget <= 0) break;
      batch.push_back({r, 1});
      --budget;
    }
    for (const int r : running_) {
      if (live_[r].generated > 0 || budget <= 0) continue;
      const int remaining = tokens_of(r) - live_[r].computed;
      int chunk = std::min(remaining, budget);
      if (chunk < remaining) {
        const int whole_blocks = chunk / limits_.block_tokens * limits_.block_tokens;
        chunk = whole_blocks > 0 || !batch.empty() ? whole_blocks : chunk;
      }
      if (chunk <= 0) continue;
      batch.push_back({r, chunk});
      budget -= chunk;
    }
  }

  // What the batch computes; each request in it for the first time is stamped as scheduled now.
  IterationBatch start_iteration(const std::vector<Scheduled>& batch) {
    IterationBatch shape;
    for (const auto& [r, tokens] : batch) {
      double& first_scheduled = run_.requests[r].first_scheduled_s;
      if (first_scheduled < 0) first_scheduled = now_;
      const double start = live_[r].computed;
      if (tokens == 1 && live_[r].generated > 0 && live_[r].computed == tokens_of(r) - 1) {
        ++shape.decode_sequences;
        shape.decode_context_tokens += start + 1;
      } else {
        shape.prefill_tokens += tokens;
        shape.prefill_context_tokens += tokens * start + tokens * (tokens + 1) / 2.0;
      }
    }
    return shape;
  }

  bool iterate() {
    std::vector<Scheduled>& batch = batch_;  // reused: one allocation per run, not per iteration
    batch.clear();
    int budget = limits_.max_batched_tokens;
    if (limits_.policy == SchedulerPolicy::trtllm_guaranteed_no_evict) {
      schedule_without_eviction(batch, budget);
    } else {
      bool preempted = false;
      schedule_running(batch, budget, preempted);
      if (!preempted) schedule_waiting(batch, budget);
    }
    if (batch.empty() && !loading_.empty()) {  // only KV loads in flight: wait for the next event
      awaiting_event_ = true;
      return true;
    }
    if (batch.empty()) return false;  // cannot happen with a cache that holds every queued request
    const IterationBatch shape = start_iteration(batch);
    iteration_has_prefill_ = shape.prefill_tokens > 0;
    now_ += cost_(shape);
    ++run_.iterations;
    for (const auto& [r, tokens] : batch) advance(r, tokens);
    std::erase_if(running_, [&](int r) { return run_.requests[r].finished(); });
    sample(shape.prefill_tokens + shape.decode_sequences);
    return true;
  }

  void advance(int r, int tokens) {
    Live& live = live_[r];
    live.computed += tokens;
    if (live.computed < tokens_of(r)) return;  // a prefill chunk: no token yet
    RequestOutcome& outcome = run_.requests[r];
    ++live.generated;
    if (live.generated == 1) {
      outcome.first_token_s = now_;
    } else {
      const double gap = now_ - live.last_token_s;
      outcome.token_gap_sum_s += gap;
      if (iteration_has_prefill_) outcome.gap_with_prefill_sum_s += gap;
      outcome.max_token_gap_s = std::max(outcome.max_token_gap_s, gap);
      run_.token_gaps.add(gap);
    }
    live.last_token_s = now_;
    if (live.generated < requests_[r].output_tokens) return;
    outcome.finish_s = now_;
    release(r);
    ++done_;
    if (track_settled_) settled_.push_back({r, now_});
    if (options_.misses && options_.misses(outcome) && ++run_.misses > options_.misses_allowed)
      run_.gave_up = true;
    if (closed_loop() && next_closed_ < requests_.size()) release_closed(now_);
  }

  void sample(int batch_tokens) {
    if (options_.sample_every_s <= 0 || now_ < next_sample_s_) return;
    run_.timeline.push_back(
        {now_, static_cast<int>(running_.size()), static_cast<int>(waiting_.size() + loading_.size()),
         total_blocks_ == 0 ? 0.0 : 1.0 - static_cast<double>(free_blocks_) / total_blocks_, batch_tokens});
    next_sample_s_ = (std::floor(now_ / options_.sample_every_s) + 1) * options_.sample_every_s;
  }

  std::vector<ServeRequest> requests_;
  EngineLimits limits_;
  IterationCost cost_;
  EngineOptions options_;
  std::vector<Live> live_;
  std::vector<int> running_;
  std::vector<Scheduled> batch_;  // the iteration being scheduled
  std::deque<int> waiting_;
  std::vector<std::pair<double, int>> loading_;  // remote prefill: (when its KV load ends, request)
  int total_blocks_ = 0;
  int free_blocks_ = 0;
  std::size_t next_open_ = 0;
  std::size_t next_closed_ = 0;
  int done_ = 0;
  double now_ = 0;
  double next_sample_s_ = 0;
  bool halted_ = false;
  bool awaiting_event_ = false;  // nothing could run: the next step moves the clock to the next event
  bool track_settled_ = false;
  bool iteration_has_prefill_ = false;  // the iteration being run computes prompt tokens
  std::vector<SettledRequest> settled_;
  ServeRun run_;
};

ServeEngine::ServeEngine(const EngineLimits& limits, IterationCost cost, double sample_every_s) {
  EngineOptions options;
  options.sample_every_s = sample_every_s;
  impl_ = std::make_unique<Impl>(std::vector<ServeRequest>{}, limits, std::move(cost), std::move(options));
  impl_->track_settled();
}
ServeEngine::~ServeEngine() = default;
ServeEngine::ServeEngine(ServeEngine&&) noexcept = default;
ServeEngine& ServeEngine::operator=(ServeEngine&&) noexcept = default;

int ServeEngine::add(const ServeRequest& request, double remote_kv_load_s) {
  return impl_->add(request, remote_kv_load_s);
}
double ServeEngine::next_step_s() const {
  return impl_->next_step_s();
}
void ServeEngine::step() {
  impl_->step();
}
std::vector<SettledRequest> ServeEngine::take_settled() {
  return impl_->take_settled();
}
const ServeRun& ServeEngine::result() {
  return impl_->so_far();
}

void GapHistogram::add(double seconds) {
  const auto bin = static_cast<long long>(std::floor(std::max(0.0, seconds) / kBinSeconds));
  const auto index = static_cast<std::size_t>(std::min<long long>(bin, kBins));
  if (index >= counts.size()) counts.resize(index + 1, 0);
  ++counts[index];
  ++total;
}

void GapHistogram::merge(const GapHistogram& other) {
  if (other.counts.size() > counts.size()) counts.resize(other.counts.size(), 0);
  for (std::size_t bin = 0; bin < other.counts.size(); ++bin) counts[bin] += other.counts[bin];
  total += other.total;
}

double GapHistogram::quantile(double q) const {
  if (total == 0) return 0;
  const auto rank = static_cast<long long>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(total)));
  long long seen = 0;
  for (std::size_t bin = 0; bin < counts.size(); ++bin) {
    seen += counts[bin];
    if (seen >= std::max(1LL, rank)) return static_cast<double>(bin + 1) * kBinSeconds;
  }
  return static_cast<double>(kBins) * kBinSeconds;
}

ServeRun simulate_engine(const std::vector<ServeRequest>& requests, const EngineLimits& limits,
                         const IterationCost& cost, const EngineOptions& options) {
  return ServeEngine::Impl(requests, limits, cost, options).run();
}

}  // namespace gputwin
