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
      metrics_(options_.interval, mig ? mig->profile_set().compute_slices : 0),
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
  last_cause_.assign(jobs.size(), kNoCause);
  interrupted_at_.assign(jobs.size(), 0);
  const auto nodes = static_cast<std::size_t>(node_count());
  down_reasons_.assign(nodes, 0);
  spare_.assign(nodes, 0);
  returns_as_spare_.assign(nodes, 0);
  if (models_.spare_nodes > pool_.node_count()) {
    throw std::invalid_argument(std::to_string(models_.spare_nodes) + " spare nodes, but the cluster has " +
                                std::to_string(pool_.node_count()) + " whole-GPU nodes");
  }
  for (int node = pool_.node_count() - models_.spare_nodes; node < pool_.node_count(); ++node) {
    hold_as_spare(node);
  }
  const int mig_nodes = mig_ ? mig_->pool().nodes() : 0;
  if (models_.mig_spare_nodes > 0 && models_.mig_spare_nodes >= mig_nodes) {
    throw std::invalid_argument(std::to_string(models_.mig_spare_nodes) +
                                " MIG spare nodes, but the cluster has " + std::to_string(mig_nodes) +
                                " MIG-mode nodes: none would be left to run jobs");
  }
  for (int node = node_count() - models_.mig_spare_nodes; node < node_count(); ++node) hold_as_spare(node);
  spare_gpus_ = pool_.down_gpus() + (mig_ ? mig_->pool().down_gpus() : 0);
  for (const auto& [node, why] : models_.out_of_service) {
    if (node < 0 || node >= node_count() || spare_[node] != 0) {
      throw std::invalid_argument("out-of-service node " + std::to_string(node) +
                                  " is not a schedulable node");
    }
    take_node_down(node, cause_id(why), /*planned=*/true);
  }
  schedulable_gpus_ = pool_.total_gpus() - pool_.down_gpus();
  if (models_.active()) {
    const int mig_gpus = mig_ ? mig_->pool().gpus() : 0;
    failure_metrics_ = std::make_unique<FailureAccounting>(
        jobs,
        FailureSetupNames{std::string(models_.failures->name()), std::string(models_.checkpoints->name()),
                          models_.spare_nodes, static_cast<int>(models_.out_of_service.size()),
                          models_.mig_spare_nodes},
        pool_.total_gpus() + mig_gpus, pool_.total_gpus() + mig_gpus - spare_gpus_, mig_ ? &*mig_ : nullptr);
    observers_.push_back(failure_metrics_.get());
  }
  next_node_event_ = models_.failures->next_event(now_);
}

int ReplayEngine::cause_id(const std::string& cause) {
  const std::string& name = cause.empty() ? std::string("node down") : cause;
  const auto found = std::find(causes_.begin(), causes_.end(), name);
  if (found != causes_.end()) return static_cast<int>(found - causes_.begin());
  causes_.push_back(name);
  return static_cast<int>(causes_.size()) - 1;
}

// ---- The event loop: arrivals, completions and node events, in time order; at one instant completions
// first, then node events, then arrivals, then one scheduling pass per partition.

ReplayResult ReplayEngine::run() {
  while (has_events()) step(next_event_time());
  const ReplayEnd end{jobs_, options_, pool_.total_gpus(), mig_ ? &*mig_ : nullptr};
  metrics_.summarize(end, result_);
  if (failure_metrics_) failure_metrics_->summarize(end, result_);
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
    apply_node_event(*next_node_event_);
    next_node_event_ = models_.failures->next_event(now_);
  }
}

// A node is out while any of its down events is unmatched; the first takes it out (and a spare in, unless the
// event is planned), the last up brings it back, or into the spares when one stood in for it.
void ReplayEngine::apply_node_event(const NodeEvent& event) {
  if (event.node < 0 || event.node >= node_count()) {
    throw std::invalid_argument("node event for node " + std::to_string(event.node) + " of " +
                                std::to_string(node_count()));
  }
  if (event.job_only) {
    const int cause = cause_id(event.cause);
    const std::vector<int> hit =
        is_mig_node(event.node) ? mig_->jobs_on_node(mig_node(event.node)) : pool_.owners_on(event.node);
    for (const int job : hit) interrupt_job(job, InterruptAction::requeue, cause);
    return;
  }
  if (event.up) {
    bring_node_up(event.node);
  } else {
    take_node_down(event.node, cause_id(event.cause), event.planned);
  }
}

// A node's jobs go down with it (a MIG-mode node's: the jobs on its slices); an idle spare of its kind stands
// in at once unless the event is planned.
void ReplayEngine::take_node_down(int node, int cause, bool planned) {
  if (down_reasons_[node]++ > 0) return;
  const int kind = kind_of(node);
  if (spare_[node] != 0) {  // an idle spare fails: it is repaired, then a spare again
    spare_[node] = 0;
    spares_[kind].erase(node);
    if (kind == 0) idle_spare_gpus_ -= pool_.node_gpus(node);
    returns_as_spare_[node] = 1;
    return;
  }
  for (const int job : place_out(node)) interrupt_job(job, InterruptAction::requeue, cause);
  if (planned) return;
  if (spares_[kind].empty()) {
    unreplaced_[kind].insert(node);
    return;
  }
  const int spare = *spares_[kind].begin();
  spares_[kind].erase(spares_[kind].begin());
  spare_[spare] = 0;
  if (kind == 0) idle_spare_gpus_ -= pool_.node_gpus(spare);
  place_in(spare);
  returns_as_spare_[node] = 1;
}

void ReplayEngine::bring_node_up(int node) {
  if (down_reasons_[node] == 0 || --down_reasons_[node] > 0) return;
  unreplaced_[kind_of(node)].erase(node);
  if (returns_as_spare_[node] != 0) {
    returns_as_spare_[node] = 0;
    add_spare(node);
    return;
  }
  place_in(node);
}

std::vector<int> ReplayEngine::place_out(int node) {
  return is_mig_node(node) ? mig_->set_node_down(mig_node(node)) : pool_.set_node_down(node);
}

void ReplayEngine::place_in(int node) {
  if (is_mig_node(node)) {
    mig_->set_node_up(mig_node(node));
  } else {
    pool_.set_node_up(node);
  }
}

// At the start: out of placement, an idle spare.
void ReplayEngine::hold_as_spare(int node) {
  place_out(node);
  add_spare(node);
}

// A node joins the idle spares of its kind (out of placement), or stands in at once for a failed node of its
// kind none replaced.
void ReplayEngine::add_spare(int node) {
  const int kind = kind_of(node);
  if (!unreplaced_[kind].empty()) {
    const int failed = *unreplaced_[kind].begin();
    unreplaced_[kind].erase(unreplaced_[kind].begin());
    returns_as_spare_[failed] = 1;
    place_in(node);
    return;
  }
  spare_[node] = 1;
  spares_[kind].insert(node);
  if (kind == 0) idle_spare_gpus_ += pool_.node_gpus(node);
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
  return PartitionState{pool_.total_gpus() - pool_.free_gpus() - pool_.down_gpus(),
                        pool_.stranded_gpus(),
                        static_cast<int>(waiting_.size()),
                        static_cast<int>(releases_.size()),
                        pool_.down_gpus(),
                        idle_spare_gpus_,
                        running_low_priority_gpus_};
}

PartitionState ReplayEngine::mig_state() const {
  const MigPool& pool = mig_->pool();
  return PartitionState{pool.busy_compute_slices(), pool.stranded_compute_slices(), mig_->waiting_count(),
                        mig_->running_count(), pool.down_compute_slices()};
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
  if (job.gpus > schedulable_gpus_) {
    ++result_.rejected["larger than the nodes in service (hot spares and out-of-service nodes held out)"];
    return;
  }
  if (models_.power && !models_.power->may_start(job.gpus, 0)) {
    ++result_.rejected[std::string(kRefusedByPowerBudget)];
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
  if (models_.power) apply_power_caps();
}

// Jobs started in the pass ran at the cap before it; from now every running job works at the cap the busy
// GPUs get now (a rate change at no elapsed time books nothing).
void ReplayEngine::apply_power_caps() {
  const int low = running_low_priority_gpus_;
  const BusyCaps caps = models_.power->cap_indices(busy_whole_gpus() - low, low);
  const auto& points = models_.power->profile().caps;
  const double throughput = points[caps.normal].throughput;
  const double low_throughput = points[caps.low].throughput;
  if (throughput == power_throughput_ && low_throughput == low_priority_throughput_) return;
  power_throughput_ = throughput;
  low_priority_throughput_ = low_throughput;
  for (const int index : running_whole_) {
    JobRun& run = runs_[index];
    run.set_rate(now_, models_.checkpoints->rate(jobs_[index]) * power_throughput_of(index));
    result_.outcomes[index].end = run.completion_time();
    completions_.push({run.completion_time(), index, run.generation});
  }
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
  if (models_.power && !models_.power->may_start(job.gpus, busy_whole_gpus())) return false;
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
  const ReplayModels& models = models_;
  const bool restart = run.starts > 0;
  double rate = models.checkpoints->rate(jobs_[index]);
  if (models.power && jobs_[index].mig_profile.empty()) {
    rate *= power_throughput_of(index);
    running_whole_.insert(index);
    if (jobs_[index].low_priority) running_low_priority_gpus_ += jobs_[index].gpus;
  }
  run.start(now_, rate, restart ? models.checkpoints->restart_seconds(jobs_[index]) : 0.0);
  JobOutcome& outcome = result_.outcomes[index];
  if (run.starts == 1) outcome.start = now_;
  outcome.end = run.completion_time();
  completions_.push({outcome.end, index, run.generation});
  for (ReplayObserver* observer : observers_) observer->on_start(index, now_);
}

void ReplayEngine::finish(int index) {
  JobRun& run = runs_[index];
  run.advance(now_);
  run.state = JobRunState::finished;
  run.remaining_work = 0;
  run.since = now_;
  release_resources(index);
  ++result_.completed;
  result_.outcomes[index].finished = true;
  for (ReplayObserver* observer : observers_) observer->on_finish(index, now_);
  report_segment(index, 0, kNoCause);
}

// Books the stretch the job held its GPUs since it last started and tells the observers.
void ReplayEngine::report_segment(int index, double work_lost, int cause) {
  JobRun& run = runs_[index];
  const double held = now_ - run.started_at;
  run.busy_seconds += held;
  JobOutcome& outcome = result_.outcomes[index];
  outcome.held_s = run.as_recorded ? jobs_[index].duration : run.busy_seconds;
  if (observers_.size() == 1) return;  // only today's metrics, which need no segments
  RunSegment segment;
  segment.job = index;
  segment.from = run.started_at;
  segment.to = now_;
  segment.restart_s = run.restart_at_start - run.pending_restart;
  segment.work_done_s = run.work_at_start - run.remaining_work;
  segment.work_lost_s = work_lost;
  const int restarted_after = run.starts > 1 ? last_cause_[index] : kNoCause;
  segment.waited_s = restarted_after != kNoCause ? run.started_at - interrupted_at_[index] : 0.0;
  if (cause != kNoCause) segment.cause = causes_[static_cast<std::size_t>(cause)];
  if (restarted_after != kNoCause) segment.restart_cause = causes_[static_cast<std::size_t>(restarted_after)];
  for (ReplayObserver* observer : observers_) observer->on_segment(segment);
}

void ReplayEngine::release_resources(int index) {
  if (!jobs_[index].mig_profile.empty()) {
    mig_->finish(index);
    return;
  }
  pool_.release(allocations_[index]);
  if (running_whole_.erase(index) > 0 && jobs_[index].low_priority) {
    running_low_priority_gpus_ -= jobs_[index].gpus;
  }
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
  interrupt_job(index, action, cause_id("interrupted"));
  schedule();
}

// Books the work done, keeps what the checkpoint policy saves, frees the job's GPUs and stales its
// completion.
void ReplayEngine::interrupt_job(int index, InterruptAction action, int cause) {
  JobRun& run = runs_[index];
  run.advance(now_);
  const double done = run.work_at_start - run.remaining_work;
  const double kept = models_.checkpoints->work_kept(jobs_[index], done);
  run.as_recorded = false;
  ++run.generation;
  release_resources(index);
  ++result_.interruptions;
  if (result_.outcomes[index].interruptions++ == 0) ++result_.jobs_interrupted;
  const bool requeued = action == InterruptAction::requeue;
  for (ReplayObserver* observer : observers_) observer->on_interrupt(index, now_, requeued);
  report_segment(index, done - kept, cause);  // sees the work done before the kept part is given back
  run.remaining_work = run.work_at_start - kept;
  last_cause_[index] = cause;
  interrupted_at_[index] = now_;
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
  if (node < 0 || node >= node_count()) {
    throw std::invalid_argument("node " + std::to_string(node) + " of " + std::to_string(node_count()));
  }
  std::vector<int> hit = is_mig_node(node) ? mig_->set_node_down(mig_node(node)) : pool_.set_node_down(node);
  const int cause = cause_id("node down");
  for (const int job : hit) interrupt_job(job, action, cause);
  schedule();
  return hit;
}

void ReplayEngine::set_node_up(int node) {
  if (node < 0 || node >= node_count()) {
    throw std::invalid_argument("node " + std::to_string(node) + " of " + std::to_string(node_count()));
  }
  if (is_mig_node(node)) {
    mig_->set_node_up(mig_node(node));
  } else {
    pool_.set_node_up(node);
  }
  schedule();
}

// ---- What the queue policy sees.

// A job restarted after an interruption is expected to run what its estimate says of the work it has left,
// plus its restart: a scheduler knows the work a checkpoint kept, so its reservation is not its full run
// time.
double ReplayEngine::expected_run_time(int index) const {
  const JobSpec& job = jobs_[index];
  const double full = gputwin::expected_run_time(job, options_.run_time_estimate);
  const JobRun& run = runs_[index];
  if (run.starts == 0 || run.state != JobRunState::waiting || !(job.duration > 0)) return full;
  const double left = std::clamp(run.remaining_work / job.duration, 0.0, 1.0);
  return full * left + models_.checkpoints->restart_seconds(job);
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
