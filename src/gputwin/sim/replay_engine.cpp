#include "gputwin/sim/replay_engine.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gputwin {

ReplayEngine::ReplayEngine(const std::vector<JobSpec>& jobs, GpuPool pool, std::optional<MigPool> mig,
                           const QueuePolicy& policy, ReplayOptions options, ReplayModels models)
    : jobs_(jobs),
      pool_(std::move(pool)),
      policy_(policy),
      options_(std::move(options)),
      models_(std::move(models)),
      metrics_(options_.interval),
      usage_(jobs, options_.fair_share_by_user, options_.shares) {
  if (mig) {
    mig_.emplace(jobs, std::move(*mig),
                 MigQueueOptions{options_.scan_depth, options_.fair_share_by_user, options_.shares,
                                 options_.run_time_estimate});
  }
  observers_.push_back(&metrics_);
  result_.policy = std::string(policy.name());
  result_.run_time_estimate = options_.run_time_estimate;
  result_.policy_plans_with_run_times = policy.plans_with_run_times();
  result_.outcomes.resize(jobs.size());
  allocations_.resize(jobs.size());
  runs_.resize(jobs.size());
  arrival_rank_.assign(jobs.size(), 0);
  release_of_.resize(jobs.size());
  arrival_order_.resize(jobs.size());
  std::iota(arrival_order_.begin(), arrival_order_.end(), 0);
  std::stable_sort(arrival_order_.begin(), arrival_order_.end(),
                   [&](int a, int b) { return jobs_[a].submit_time < jobs_[b].submit_time; });
  next_node_event_ = models_.failures->next_event(now_);
}

// ---- The event loop: arrivals, completions and node events, in time order; at one instant completions
// first, then node events, then arrivals, then one scheduling pass per partition.

ReplayResult ReplayEngine::run() {
  while (has_events()) step(next_event_time());
  metrics_.summarize(ReplayEnd{jobs_, options_, pool_.total_gpus(), mig_ ? &*mig_ : nullptr}, result_);
  return std::move(result_);
}

void ReplayEngine::run_until(double time) {
  while (has_events() && next_event_time() <= time) step(next_event_time());
  advance_to(time);
}

// Node events alone keep the replay going only while jobs wait for the GPUs they may bring back.
bool ReplayEngine::has_events() {
  drop_stale_completions();
  if (next_arrival_ < arrival_order_.size() || !completions_.empty()) return true;
  const bool anyone_waiting = !waiting_.empty() || (mig_ && mig_->waiting_count() > 0);
  return next_node_event_.has_value() && anyone_waiting;
}

double ReplayEngine::next_event_time() {
  drop_stale_completions();
  const double arrival =
      next_arrival_ < arrival_order_.size() ? jobs_[arrival_order_[next_arrival_]].submit_time : INFINITY;
  const double completion = completions_.empty() ? INFINITY : completions_.top().time;
  const double node_event = next_node_event_ ? next_node_event_->time : INFINITY;
  return std::min({arrival, completion, node_event});
}

void ReplayEngine::step(double time) {
  advance_to(time);
  finish_due();
  apply_node_events();
  while (next_arrival_ < arrival_order_.size() && jobs_[arrival_order_[next_arrival_]].submit_time <= now_) {
    const int index = arrival_order_[next_arrival_];
    arrival_rank_[index] = static_cast<int>(next_arrival_++);
    submit(index);
  }
  schedule();
}

void ReplayEngine::drop_stale_completions() {
  while (!completions_.empty() && completions_.top().generation != runs_[completions_.top().job].generation) {
    completions_.pop();
  }
}

void ReplayEngine::finish_due() {
  while (!completions_.empty() && completions_.top().time <= now_) {
    const Completion due = completions_.top();
    completions_.pop();
    if (due.generation == runs_[due.job].generation) finish(due.job);
  }
}

void ReplayEngine::apply_node_events() {
  while (next_node_event_ && next_node_event_->time <= now_) {
    const NodeEvent event = *next_node_event_;
    if (event.up) {
      pool_.set_node_up(event.node);
    } else {
      for (const int job : pool_.set_node_down(event.node)) interrupt_job(job, InterruptAction::requeue);
    }
    next_node_event_ = models_.failures->next_event(now_);
  }
}

// Tells the observers what held from now to `time`, then moves the clock.
void ReplayEngine::advance_to(double time) {
  if (time <= now_) return;
  ReplaySpan span{now_, time, whole_state(), std::nullopt};
  if (mig_) span.mig = mig_state();
  for (ReplayObserver* observer : observers_) observer->on_span(span);
  now_ = time;
}

PartitionState ReplayEngine::whole_state() const {
  return PartitionState{pool_.total_gpus() - pool_.free_gpus() - pool_.down_gpus(), pool_.stranded_gpus(),
                        static_cast<int>(waiting_.size()), static_cast<int>(releases_.size()),
                        pool_.down_gpus()};
}

PartitionState ReplayEngine::mig_state() const {
  const MigPool& pool = mig_->pool();
  return PartitionState{pool.busy_compute_slices(), pool.stranded_compute_slices(), mig_->waiting_count(),
                        mig_->running_count(), 0};
}

// ---- Jobs arriving.

void ReplayEngine::submit(int index) {
  const JobSpec& job = jobs_[index];
  if (!job.mig_profile.empty()) {
    submit_slice(index);
    return;
  }
  if (job.gpus <= 0) {
    ++result_.rejected["requests no GPUs"];
    return;
  }
  if (job.gpus > pool_.total_gpus() || (job.gpus_per_node > pool_.largest_node())) {
    ++result_.rejected["larger than the whole cluster"];
    return;
  }
  accept(index);
  waiting_.push_back(index);
}

void ReplayEngine::submit_slice(int index) {
  const std::optional<std::string> rejection =
      mig_ ? mig_->rejection(jobs_[index])
           : std::optional<std::string>("asks for a MIG slice; no GPU is in MIG mode");
  if (rejection) {
    ++result_.rejected[*rejection];
    return;
  }
  accept(index);
  mig_->submit(index);
}

// A job enters the replay: counted, its estimate noted, its work set, the observers told.
void ReplayEngine::accept(int index) {
  ++result_.jobs;
  ++(jobs_[index].requested_time > 0 ? result_.jobs_with_requested_time : result_.jobs_estimated);
  runs_[index].state = JobRunState::waiting;
  runs_[index].remaining_work = jobs_[index].duration;
  for (ReplayObserver* observer : observers_) observer->on_submit(index, now_);
}

// ---- Jobs starting and ending.

void ReplayEngine::schedule() {
  schedule_pass();
  if (mig_) start_slices(mig_->schedule(policy_, now_));
}

void ReplayEngine::schedule_pass() {
  if (waiting_.empty()) return;
  started_this_pass_ = 0;
  latest_started_rank_ = -1;
  policy_.schedule(*this);
  if (started_this_pass_ > 0) remove_started_from_waiting();
}

// The waiting list is in arrival order, so the jobs started in a pass all sit at or before the
// latest-arriving one of them: only that stretch is filtered, and the rest of the list moves up in one block.
void ReplayEngine::remove_started_from_waiting() {
  const auto stretch_end = std::upper_bound(waiting_.begin(), waiting_.end(), latest_started_rank_,
                                            [&](int rank, int job) { return rank < arrival_rank_[job]; });
  const auto kept_end = std::remove_if(waiting_.begin(), stretch_end,
                                       [&](int job) { return runs_[job].state == JobRunState::running; });
  waiting_.erase(kept_end, stretch_end);
}

bool ReplayEngine::try_start(int index) {
  if (runs_[index].state != JobRunState::waiting) return false;
  const JobSpec& job = jobs_[index];
  auto allocation = pool_.allocate(job.gpus, job.gpus_per_node, index);
  if (!allocation) return false;
  ++started_this_pass_;
  latest_started_rank_ = std::max(latest_started_rank_, arrival_rank_[index]);
  result_.outcomes[index].leaves = pool_.leaves_used(*allocation);
  allocations_[index] = std::move(*allocation);
  release_of_[index] = releases_.emplace(now_ + expected_run_time(index), job.gpus);
  usage_.add(index, job.gpus);
  begin_run(index);
  return true;
}

void ReplayEngine::start_slices(const std::vector<int>& started) {
  for (const int index : started) begin_run(index);
}

// The job runs from now at rate 1; its completion is queued under its new generation.
void ReplayEngine::begin_run(int index) {
  JobRun& run = runs_[index];
  run.start(now_);
  JobOutcome& outcome = result_.outcomes[index];
  if (run.starts == 1) outcome.start = now_;
  outcome.end = run.completion_time();
  completions_.push({outcome.end, index, run.generation});
  for (ReplayObserver* observer : observers_) observer->on_start(index, now_);
}

void ReplayEngine::finish(int index) {
  JobRun& run = runs_[index];
  run.state = JobRunState::finished;
  run.remaining_work = 0;
  run.since = now_;
  release_resources(index);
  ++result_.completed;
  for (ReplayObserver* observer : observers_) observer->on_finish(index, now_);
}

void ReplayEngine::release_resources(int index) {
  if (!jobs_[index].mig_profile.empty()) {
    mig_->finish(index);
    return;
  }
  pool_.release(allocations_[index]);
  releases_.erase(release_of_[index]);
  usage_.add(index, -jobs_[index].gpus);
}

// ---- Changing running jobs.

void ReplayEngine::set_rate(int index, double rate) {
  if (!(rate > 0)) throw std::invalid_argument("job rate must be positive, got " + std::to_string(rate));
  JobRun& run = runs_.at(static_cast<std::size_t>(index));
  if (run.state != JobRunState::running) {
    throw std::invalid_argument("job " + jobs_[index].id + " is not running: its rate cannot change");
  }
  run.set_rate(now_, rate);
  result_.outcomes[index].end = run.completion_time();
  completions_.push({run.completion_time(), index, run.generation});
}

void ReplayEngine::interrupt(int index, InterruptAction action) {
  if (runs_.at(static_cast<std::size_t>(index)).state != JobRunState::running) {
    throw std::invalid_argument("job " + jobs_[index].id + " is not running: it cannot be interrupted");
  }
  interrupt_job(index, action);
  schedule();
}

// Books the work done, keeps what the checkpoint policy saves, frees the job's GPUs and stales its
// completion.
void ReplayEngine::interrupt_job(int index, InterruptAction action) {
  JobRun& run = runs_[index];
  run.advance(now_);
  const double done = run.work_at_start - run.remaining_work;
  run.remaining_work = run.work_at_start - models_.checkpoints->work_kept(jobs_[index], done);
  ++run.generation;
  release_resources(index);
  ++result_.interruptions;
  const bool requeued = action == InterruptAction::requeue;
  for (ReplayObserver* observer : observers_) observer->on_interrupt(index, now_, requeued);
  if (requeued) {
    requeue(index);
  } else {
    run.state = JobRunState::ended;
    result_.outcomes[index].end = now_;
  }
}

// Back to its place in arrival order, so the waiting list stays sorted by arrival.
void ReplayEngine::requeue(int index) {
  runs_[index].state = JobRunState::waiting;
  if (!jobs_[index].mig_profile.empty()) {
    mig_->submit(index);
    return;
  }
  const auto place = std::upper_bound(waiting_.begin(), waiting_.end(), arrival_rank_[index],
                                      [&](int rank, int job) { return rank < arrival_rank_[job]; });
  waiting_.insert(place, index);
}

std::vector<int> ReplayEngine::set_node_down(int node, InterruptAction action) {
  std::vector<int> hit = pool_.set_node_down(node);
  for (const int job : hit) interrupt_job(job, action);
  schedule();
  return hit;
}

void ReplayEngine::set_node_up(int node) {
  pool_.set_node_up(node);
  schedule();
}

// ---- What the queue policy sees.

double ReplayEngine::expected_run_time(int index) const {
  return gputwin::expected_run_time(jobs_[index], options_.run_time_estimate);
}

std::vector<std::pair<double, int>> ReplayEngine::expected_releases() const {
  return {releases_.begin(), releases_.end()};
}

void ReplayEngine::visit_releases_in_order(const std::function<bool(double time, int gpus)>& visit) const {
  for (const auto& [time, gpus] : releases_) {
    if (visit(time, gpus)) return;
  }
}

}  // namespace gputwin
