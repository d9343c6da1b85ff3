#include "gputwin/sim/replay.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <set>
#include <string_view>
#include <unordered_map>

#include "gputwin/sim/mig_partition.hpp"

namespace gputwin {
namespace {

struct Completion {
  double time;
  int job;
  bool operator>(const Completion& other) const {
    return time != other.time ? time > other.time : job > other.job;  // ties by job index: deterministic
  }
};

class ReplayEngine final : public SchedulerView {
 public:
  ReplayEngine(const std::vector<JobSpec>& jobs, GpuPool pool, std::optional<MigPool> mig,
               const QueuePolicy& policy, const ReplayOptions& options)
      : jobs_(jobs), pool_(std::move(pool)), policy_(policy), options_(options) {
    if (mig) {
      mig_.emplace(jobs, std::move(*mig),
                   MigQueueOptions{options.scan_depth, options.fair_share_by_user, options.shares,
                                   options.run_time_estimate});
    }
    result_.policy = std::string(policy.name());
    result_.run_time_estimate = options.run_time_estimate;
    result_.policy_plans_with_run_times = policy.plans_with_run_times();
    result_.outcomes.resize(jobs.size());
    allocations_.resize(jobs.size());
    started_.assign(jobs.size(), 0);
    arrival_rank_.assign(jobs.size(), 0);
    release_of_.resize(jobs.size());
    number_share_keys();
  }

  ReplayResult run() {
    std::vector<int> order(jobs_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return jobs_[a].submit_time < jobs_[b].submit_time; });
    std::size_t next = 0;
    while (next < order.size() || !completions_.empty()) {
      const double arrival = next < order.size() ? jobs_[order[next]].submit_time : INFINITY;
      const double completion = completions_.empty() ? INFINITY : completions_.top().time;
      advance_to(std::min(arrival, completion));
      while (!completions_.empty() && completions_.top().time <= now_) finish(completions_.top().job);
      while (next < order.size() && jobs_[order[next]].submit_time <= now_) {
        arrival_rank_[order[next]] = static_cast<int>(next);
        submit(order[next++]);
      }
      schedule_pass();
      if (mig_) start_slices(mig_->schedule(policy_, now_));
    }
    summarize();
    return std::move(result_);
  }

  // SchedulerView
  double now() const override { return now_; }
  const std::vector<int>& waiting() const override { return waiting_; }
  const JobSpec& job(int index) const override { return jobs_[index]; }
  double expected_run_time(int index) const override {
    return gputwin::expected_run_time(jobs_[index], options_.run_time_estimate);
  }
  int free_gpus() const override { return pool_.free_gpus(); }
  int scan_depth() const override { return options_.scan_depth; }
  std::vector<std::pair<double, int>> expected_releases() const override {
    return {releases_.begin(), releases_.end()};
  }
  void visit_releases_in_order(const std::function<bool(double time, int gpus)>& visit) const override {
    for (const auto& [time, gpus] : releases_) {
      if (visit(time, gpus)) return;
    }
  }
  double usage_per_share(const JobSpec& job) const override {
    const auto key = key_number_.find(share_key(job));
    if (key != key_number_.end()) return usage_by_key_[key->second] / share_by_key_[key->second];
    const auto share = options_.shares.find(share_key(job));
    return 0.0 / (share == options_.shares.end() ? 1.0 : share->second);
  }
  double job_usage_per_share(int index) const override {
    const int key = key_of_job_[index];
    return usage_by_key_[key] / share_by_key_[key];
  }
  bool try_start(int index) override {
    if (started_[index]) return false;
    const JobSpec& job = jobs_[index];
    auto allocation = pool_.allocate(job.gpus, job.gpus_per_node);
    if (!allocation) return false;
    started_[index] = 1;
    ++started_this_pass_;
    latest_started_rank_ = std::max(latest_started_rank_, arrival_rank_[index]);
    JobOutcome& outcome = result_.outcomes[index];
    outcome.start = now_;
    outcome.end = now_ + job.duration;
    outcome.leaves = pool_.leaves_used(*allocation);
    allocations_[index] = std::move(*allocation);
    release_of_[index] = releases_.emplace(now_ + expected_run_time(index), job.gpus);
    usage_by_key_[key_of_job_[index]] += job.gpus;
    completions_.push({outcome.end, index});
    interval_at(now_).started += 1;
    return true;
  }

 private:
  const std::string& share_key(const JobSpec& job) const { return options_.fair_share_by_user ? job.user : job.group; }

  // Numbers the fair-share keys (groups or users) once, so usage is kept per number, not looked up by name.
  void number_share_keys() {
    key_of_job_.resize(jobs_.size());
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const std::string& key = share_key(jobs_[j]);
      const auto [found, added] = key_number_.try_emplace(key, static_cast<int>(share_by_key_.size()));
      if (added) {
        const auto share = options_.shares.find(key);
        share_by_key_.push_back(share == options_.shares.end() ? 1.0 : share->second);
      }
      key_of_job_[j] = found->second;
    }
    usage_by_key_.assign(share_by_key_.size(), 0.0);
  }

  IntervalMetrics& interval_at(double time) {
    const auto index = static_cast<std::size_t>(std::max(0.0, std::floor(time / options_.interval)));
    while (result_.intervals.size() <= index) {
      IntervalMetrics row;
      row.start = static_cast<double>(result_.intervals.size()) * options_.interval;
      result_.intervals.push_back(row);
    }
    return result_.intervals[index];
  }

  // Integrates the piecewise-constant state (busy GPUs, queue, running, stranded GPUs) up to `time`.
  void advance_to(double time) {
    if (time <= now_) return;
    const double busy = pool_.total_gpus() - pool_.free_gpus();
    const double stranded = pool_.stranded_gpus();
    busy_gpu_seconds_ += busy * (time - now_);
    if (mig_) busy_slice_seconds_ += mig_->pool().busy_compute_slices() * (time - now_);
    double t = now_;
    while (t < time) {
      IntervalMetrics& row = interval_at(t);
      const double end = std::min(time, row.start + options_.interval);
      const double span = end - t;
      row.utilisation += busy * span;
      row.queue_length += static_cast<double>(waiting_.size()) * span;
      row.running += static_cast<double>(releases_.size()) * span;
      row.stranded_gpus += stranded * span;
      if (mig_) integrate_mig(row, span);
      if (end <= t) break;
      t = end;
    }
    now_ = time;
  }

  void submit(int index) {
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

  // A job enters the replay: counted, its estimate noted, and the arrival window stretched to now.
  void accept(int index) {
    if (result_.jobs == 0) result_.first_arrival = now_;
    ++result_.jobs;
    interval_at(now_).submitted += 1;
    ++(jobs_[index].requested_time > 0 ? result_.jobs_with_requested_time : result_.jobs_estimated);
    result_.last_arrival = now_;
    busy_at_last_arrival_ = {busy_gpu_seconds_, busy_slice_seconds_};
  }

  // ---- Jobs on MIG slices: queued, placed and released by the MIG partition; the engine keeps the clock.

  void submit_slice(int index) {
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

  void start_slices(const std::vector<int>& started) {
    for (const int index : started) {
      JobOutcome& outcome = result_.outcomes[index];
      outcome.start = now_;
      outcome.end = now_ + jobs_[index].duration;
      completions_.push({outcome.end, index});
      interval_at(now_).started += 1;
    }
  }

  void finish_slice(int index) {
    mig_->finish(index);
    ++result_.completed;
    interval_at(now_).finished += 1;
  }

  void integrate_mig(IntervalMetrics& row, double span) const {
    row.queue_length += mig_->waiting_count() * span;
    row.running += mig_->running_count() * span;
    row.mig_utilisation += mig_->pool().busy_compute_slices() * span;
    row.mig_stranded_slices += mig_->pool().stranded_compute_slices() * span;
  }

  // Fills result_.mig and scales the intervals' MIG integrals; after the intervals are final.
  void summarize_mig() {
    const MigPool& pool = mig_->pool();
    MigReplayMetrics metrics;
    metrics.profile_set = pool.profile_set().info.id;
    metrics.layout = pool.layout_name();
    metrics.gpus = pool.gpus();
    metrics.compute_slices = pool.total_compute_slices();
    std::vector<double> waits;
    double first_submit = INFINITY;
    double busy_slice_seconds = 0;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const JobOutcome& outcome = result_.outcomes[j];
      if (outcome.start >= 0) first_submit = std::min(first_submit, jobs_[j].submit_time);
      if (outcome.start < 0 || jobs_[j].mig_profile.empty()) continue;
      waits.push_back(outcome.start - jobs_[j].submit_time);
      const double slice_seconds = jobs_[j].duration * mig_->compute_slices_of(jobs_[j]);
      busy_slice_seconds += slice_seconds;
      // In the group and user tables a slice counts as its share of one GPU's compute slices.
      const double gpu_hours = slice_seconds / pool.profile_set().compute_slices / 3600.0;
      add_gpu_hours(result_.by_group, jobs_[j].group, gpu_hours);
      add_gpu_hours(result_.by_user, jobs_[j].user, gpu_hours);
    }
    metrics.jobs = static_cast<int>(waits.size()) + mig_->waiting_count();
    metrics.completed = static_cast<int>(waits.size()) - mig_->running_count();
    metrics.wait = summary_of(waits);
    const double span = result_.makespan - first_submit;
    const double slices = std::max(1, metrics.compute_slices);
    if (!waits.empty() && span > 0) metrics.utilisation = busy_slice_seconds / (span * slices);
    const double window = result_.last_arrival - result_.first_arrival;
    if (window > 0) metrics.window_utilisation = busy_at_last_arrival_.second / (window * slices);
    double stranded_integral = 0;
    for (auto& row : result_.intervals) {
      stranded_integral += row.mig_stranded_slices;
      row.mig_utilisation /= options_.interval * slices;
      row.mig_stranded_slices /= options_.interval;
    }
    if (result_.makespan > 0) metrics.mean_stranded_slices = stranded_integral / result_.makespan;
    result_.mig = metrics;
  }

  static void add_gpu_hours(std::vector<GroupMetrics>& table, const std::string& name, double gpu_hours) {
    const auto row = std::lower_bound(
        table.begin(), table.end(), name,
        [](const GroupMetrics& metrics, const std::string& key) { return metrics.name < key; });
    if (row != table.end() && row->name == name) row->gpu_hours += gpu_hours;
  }

  void finish(int index) {
    completions_.pop();
    if (!jobs_[index].mig_profile.empty()) {
      finish_slice(index);
      return;
    }
    pool_.release(allocations_[index]);
    releases_.erase(release_of_[index]);
    usage_by_key_[key_of_job_[index]] -= jobs_[index].gpus;
    ++result_.completed;
    interval_at(now_).finished += 1;
  }

  void schedule_pass() {
    if (waiting_.empty()) return;
    started_this_pass_ = 0;
    latest_started_rank_ = -1;
    policy_.schedule(*this);
    if (started_this_pass_ > 0) remove_started_from_waiting();
  }

  // The waiting list is in arrival order, so the jobs started in a pass all sit at or before the latest-arriving
  // one of them: only that stretch is filtered, and the rest of the list moves up in one block.
  void remove_started_from_waiting() {
    const auto stretch_end = std::upper_bound(waiting_.begin(), waiting_.end(), latest_started_rank_,
                                              [&](int rank, int job) { return rank < arrival_rank_[job]; });
    const auto kept_end = std::remove_if(waiting_.begin(), stretch_end, [&](int job) { return started_[job] != 0; });
    waiting_.erase(kept_end, stretch_end);
  }

  static Summary summary_of(std::vector<double> values) {
    Summary summary;
    if (values.empty()) return summary;
    std::sort(values.begin(), values.end());
    summary.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    summary.median = values[values.size() / 2];
    summary.p95 = values[std::min(values.size() - 1, static_cast<std::size_t>(0.95 * static_cast<double>(values.size())))];
    summary.max = values.back();
    return summary;
  }

  void summarize() {
    std::vector<double> waits;
    std::vector<double> jcts;
    std::vector<double> slowdowns;
    std::vector<double> recorded_waits;
    std::vector<double> recorded_slowdowns;
    std::map<std::string, GroupMetrics> groups;
    std::map<std::string, GroupMetrics> users;
    double first_submit = INFINITY;
    double busy_gpu_seconds = 0;
    for (std::size_t j = 0; j < jobs_.size(); ++j) {
      const JobOutcome& outcome = result_.outcomes[j];
      if (outcome.start < 0) continue;
      const JobSpec& job = jobs_[j];
      const double wait = outcome.start - job.submit_time;
      const double jct = outcome.end - job.submit_time;
      const double slowdown = std::max(1.0, jct / std::max(job.duration, options_.slowdown_bound));
      waits.push_back(wait);
      jcts.push_back(jct);
      slowdowns.push_back(slowdown);
      if (job.recorded_wait >= 0) {
        recorded_waits.push_back(job.recorded_wait);
        recorded_slowdowns.push_back(
            std::max(1.0, (job.recorded_wait + job.duration) / std::max(job.duration, options_.slowdown_bound)));
      }
      first_submit = std::min(first_submit, job.submit_time);
      result_.makespan = std::max(result_.makespan, outcome.end);
      busy_gpu_seconds += job.duration * job.gpus;
      for (auto* table : {&groups, &users}) {
        GroupMetrics& metrics = (*table)[table == &groups ? job.group : job.user];
        metrics.jobs += 1;
        metrics.mean_wait += wait;
        metrics.mean_jct += jct;
        metrics.mean_bounded_slowdown += slowdown;
        metrics.gpu_hours += job.duration * job.gpus / 3600.0;
      }
    }
    result_.wait = summary_of(waits);
    result_.jct = summary_of(jcts);
    result_.bounded_slowdown = summary_of(slowdowns);
    result_.recorded_jobs = static_cast<int>(recorded_waits.size());
    result_.recorded_wait = summary_of(recorded_waits);
    result_.recorded_bounded_slowdown = summary_of(recorded_slowdowns);
    if (!waits.empty()) {
      const double span = result_.makespan - first_submit;
      const bool any_gpus = pool_.total_gpus() > 0;  // all nodes may be in MIG mode
      result_.utilisation = span > 0 && any_gpus ? busy_gpu_seconds / (span * pool_.total_gpus()) : 0.0;
    }
    summarize_window();
    // Events exactly at the makespan open an empty last row; fold its counts into the row before.
    if (result_.intervals.size() > 1 && result_.intervals.back().start >= result_.makespan) {
      const IntervalMetrics last = result_.intervals.back();
      result_.intervals.pop_back();
      result_.intervals.back().submitted += last.submitted;
      result_.intervals.back().started += last.started;
      result_.intervals.back().finished += last.finished;
    }
    double stranded_integral = 0;
    for (auto& row : result_.intervals) {
      stranded_integral += row.stranded_gpus;
      const double scale = options_.interval;
      row.utilisation /= scale * std::max(1, pool_.total_gpus());
      row.queue_length /= scale;
      row.running /= scale;
      row.stranded_gpus /= scale;
    }
    if (result_.makespan > 0) result_.mean_stranded_gpus = stranded_integral / result_.makespan;
    result_.by_group = finish_groups(groups);
    result_.by_user = finish_groups(users);
    result_.jain_fairness = jain_index(result_.by_group);
    if (mig_) summarize_mig();
  }

  // Utilisation over the arrival window and over the drain tail, from the busy GPU-seconds integrated up to
  // the last arrival and after it (nothing runs before the first arrival).
  void summarize_window() {
    const double gpus = pool_.total_gpus();
    if (result_.jobs == 0 || gpus <= 0) return;
    const double window = result_.last_arrival - result_.first_arrival;
    if (window > 0) result_.window_utilisation = busy_at_last_arrival_.first / (window * gpus);
    const double drain = result_.makespan - result_.last_arrival;
    const double drained = busy_gpu_seconds_ - busy_at_last_arrival_.first;
    result_.drain_gpu_hours = drained / 3600.0;
    if (drain > 0) result_.drain_utilisation = drained / (drain * gpus);
  }

  static std::vector<GroupMetrics> finish_groups(std::map<std::string, GroupMetrics>& table) {
    std::vector<GroupMetrics> rows;
    for (auto& [name, metrics] : table) {
      metrics.name = name;
      metrics.mean_wait /= metrics.jobs;
      metrics.mean_jct /= metrics.jobs;
      metrics.mean_bounded_slowdown /= metrics.jobs;
      rows.push_back(metrics);
    }
    return rows;
  }

  // Jain's fairness index over groups' mean bounded slowdown: (sum x)^2 / (n sum x^2).
  static double jain_index(const std::vector<GroupMetrics>& groups) {
    double sum = 0;
    double squares = 0;
    for (const auto& group : groups) {
      sum += group.mean_bounded_slowdown;
      squares += group.mean_bounded_slowdown * group.mean_bounded_slowdown;
    }
    return squares > 0 ? sum * sum / (static_cast<double>(groups.size()) * squares) : 1.0;
  }

  const std::vector<JobSpec>& jobs_;
  GpuPool pool_;
  const QueuePolicy& policy_;
  const ReplayOptions& options_;
  ReplayResult result_;
  std::optional<MigPartition> mig_;  // the MIG-mode GPUs and their queue, when the cluster has some
  double now_ = 0;
  double busy_gpu_seconds_ = 0;                           // busy GPUs integrated over time so far
  double busy_slice_seconds_ = 0;                         // busy MIG compute slices, the same
  std::pair<double, double> busy_at_last_arrival_{0, 0};  // both integrals at the last arrival so far
  std::vector<int> waiting_;
  std::vector<int> arrival_rank_;  // job -> its place in arrival order
  std::vector<char> started_;
  int started_this_pass_ = 0;
  int latest_started_rank_ = -1;  // the latest arrival among the jobs started in this pass
  std::vector<Allocation> allocations_;
  std::multiset<std::pair<double, int>> releases_;  // running jobs' (expected end, GPUs), kept sorted
  std::vector<std::multiset<std::pair<double, int>>::iterator> release_of_;  // running job -> its entry
  std::unordered_map<std::string_view, int> key_number_;  // fair-share key -> its number
  std::vector<int> key_of_job_;
  std::vector<double> share_by_key_;
  std::vector<double> usage_by_key_;  // GPUs in use per fair-share key
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
};

}  // namespace

ReplayResult replay(const std::vector<JobSpec>& jobs, GpuPool pool, const QueuePolicy& policy,
                    const ReplayOptions& options) {
  return ReplayEngine(jobs, std::move(pool), std::nullopt, policy, options).run();
}

ReplayResult replay(const std::vector<JobSpec>& jobs, GpuPool pool, std::optional<MigPool> mig,
                    const QueuePolicy& policy, const ReplayOptions& options) {
  return ReplayEngine(jobs, std::move(pool), std::move(mig), policy, options).run();
}

}  // namespace gputwin
