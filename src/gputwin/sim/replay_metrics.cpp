#include "gputwin/sim/replay_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

namespace gputwin {

Summary summary_of(std::vector<double> values) {
  Summary summary;
  if (values.empty()) return summary;
  std::sort(values.begin(), values.end());
  summary.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  summary.median = values[values.size() / 2];
  summary.p95 = values[std::min(values.size() - 1,
                                static_cast<std::size_t>(0.95 * static_cast<double>(values.size())))];
  summary.max = values.back();
  return summary;
}

namespace {

std::vector<GroupMetrics> finish_groups(std::map<std::string, GroupMetrics>& table) {
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
double jain_index(const std::vector<GroupMetrics>& groups) {
  double sum = 0;
  double squares = 0;
  for (const auto& group : groups) {
    sum += group.mean_bounded_slowdown;
    squares += group.mean_bounded_slowdown * group.mean_bounded_slowdown;
  }
  return squares > 0 ? sum * sum / (static_cast<double>(groups.size()) * squares) : 1.0;
}

void add_gpu_hours(std::vector<GroupMetrics>& table, const std::string& name, double gpu_hours) {
  const auto row = std::lower_bound(
      table.begin(), table.end(), name,
      [](const GroupMetrics& metrics, const std::string& key) { return metrics.name < key; });
  if (row != table.end() && row->name == name) row->gpu_hours += gpu_hours;
}

// Per-job measures of the jobs that started, in job order, with their group and user tables.
struct JobMeasures {
  std::vector<double> waits;
  std::vector<double> jcts;
  std::vector<double> slowdowns;
  std::vector<double> recorded_waits;
  std::vector<double> recorded_slowdowns;
  std::map<std::string, GroupMetrics> groups;
  std::map<std::string, GroupMetrics> users;
  double first_submit = INFINITY;
  double busy_gpu_seconds = 0;
};

JobMeasures measure_jobs(const ReplayEnd& end, ReplayResult& result) {
  JobMeasures measures;
  const double bound = end.options.slowdown_bound;
  for (std::size_t j = 0; j < end.jobs.size(); ++j) {
    const JobOutcome& outcome = result.outcomes[j];
    if (outcome.start < 0) continue;
    const JobSpec& job = end.jobs[j];
    const double wait = outcome.start - job.submit_time;
    const double jct = outcome.end - job.submit_time;
    const double slowdown = std::max(1.0, jct / std::max(job.duration, bound));
    measures.waits.push_back(wait);
    measures.jcts.push_back(jct);
    measures.slowdowns.push_back(slowdown);
    if (job.recorded_wait >= 0) {
      measures.recorded_waits.push_back(job.recorded_wait);
      measures.recorded_slowdowns.push_back(
          std::max(1.0, (job.recorded_wait + job.duration) / std::max(job.duration, bound)));
    }
    measures.first_submit = std::min(measures.first_submit, job.submit_time);
    result.makespan = std::max(result.makespan, outcome.end);
    measures.busy_gpu_seconds += outcome.held_s * job.gpus;  // what really ran, restarts and lost work too
    for (auto* table : {&measures.groups, &measures.users}) {
      GroupMetrics& metrics = (*table)[table == &measures.groups ? job.group : job.user];
      metrics.jobs += 1;
      metrics.mean_wait += wait;
      metrics.mean_jct += jct;
      metrics.mean_bounded_slowdown += slowdown;
      metrics.gpu_hours += outcome.held_s * job.gpus / 3600.0;
    }
  }
  return measures;
}

}  // namespace

IntervalMetrics& ReplayMetrics::interval_at(double time) {
  const auto index = static_cast<std::size_t>(std::max(0.0, std::floor(time / interval_)));
  while (intervals_.size() <= index) {
    IntervalMetrics row;
    row.start = static_cast<double>(intervals_.size()) * interval_;
    intervals_.push_back(row);
  }
  return intervals_[index];
}

void ReplayMetrics::on_span(const ReplaySpan& span) {
  const double width = span.to - span.from;
  busy_gpu_seconds_ += static_cast<double>(span.whole.busy) * width;
  if (span.mig) busy_slice_seconds_ += span.mig->busy * width;
  integrate(span);
}

// Splits the span at interval boundaries and adds each piece's time-weighted state to its row.
void ReplayMetrics::integrate(const ReplaySpan& span) {
  const double busy = span.whole.busy;
  const double stranded = span.whole.stranded;
  double t = span.from;
  while (t < span.to) {
    IntervalMetrics& row = interval_at(t);
    const double end = std::min(span.to, row.start + interval_);
    const double width = end - t;
    row.utilisation += busy * width;
    row.queue_length += static_cast<double>(span.whole.waiting_jobs) * width;
    row.running += static_cast<double>(span.whole.running_jobs) * width;
    row.stranded_gpus += stranded * width;
    row.down_gpus += static_cast<double>(span.whole.down) * width;
    if (span.mig) {
      row.queue_length += span.mig->waiting_jobs * width;
      row.running += span.mig->running_jobs * width;
      row.mig_utilisation += span.mig->busy * width;
      row.mig_stranded_slices += span.mig->stranded * width;
      if (span.mig->down > 0) row.down_gpus += span.mig->down * width / mig_slices_per_gpu_;
    }
    if (end <= t) break;
    t = end;
  }
}

void ReplayMetrics::on_submit(int /*job*/, double time) {
  if (!any_arrival_) first_arrival_ = time;
  any_arrival_ = true;
  interval_at(time).submitted += 1;
  last_arrival_ = time;
  busy_at_last_arrival_ = {busy_gpu_seconds_, busy_slice_seconds_};
}

void ReplayMetrics::on_start(int /*job*/, double time) {
  interval_at(time).started += 1;
}

void ReplayMetrics::on_finish(int /*job*/, double time) {
  interval_at(time).finished += 1;
}

void ReplayMetrics::on_interrupt(int /*job*/, double time, bool /*requeued*/) {
  interval_at(time).interrupted += 1;
}

void ReplayMetrics::summarize(const ReplayEnd& end, ReplayResult& result) {
  result.first_arrival = first_arrival_;
  result.last_arrival = last_arrival_;
  JobMeasures measures = measure_jobs(end, result);
  result.wait = summary_of(measures.waits);
  result.jct = summary_of(measures.jcts);
  result.bounded_slowdown = summary_of(measures.slowdowns);
  result.recorded_jobs = static_cast<int>(measures.recorded_waits.size());
  result.recorded_wait = summary_of(measures.recorded_waits);
  result.recorded_bounded_slowdown = summary_of(measures.recorded_slowdowns);
  if (!measures.waits.empty()) {
    const double span = result.makespan - measures.first_submit;
    const bool any_gpus = end.total_gpus > 0;  // all nodes may be in MIG mode
    result.utilisation = span > 0 && any_gpus ? measures.busy_gpu_seconds / (span * end.total_gpus) : 0.0;
  }
  summarize_window(end, result);
  summarize_intervals(end, result);
  result.by_group = finish_groups(measures.groups);
  result.by_user = finish_groups(measures.users);
  result.jain_fairness = jain_index(result.by_group);
  if (end.mig != nullptr) summarize_mig(end, result);
}

// Utilisation over the arrival window and over the drain tail, from the busy GPU-seconds integrated up to
// the last arrival and after it (nothing runs before the first arrival).
void ReplayMetrics::summarize_window(const ReplayEnd& end, ReplayResult& result) const {
  const double gpus = end.total_gpus;
  if (result.jobs == 0 || gpus <= 0) return;
  const double window = result.last_arrival - result.first_arrival;
  if (window > 0) result.window_utilisation = busy_at_last_arrival_.first / (window * gpus);
  const double drain = result.makespan - result.last_arrival;
  const double drained = busy_gpu_seconds_ - busy_at_last_arrival_.first;
  result.drain_gpu_hours = drained / 3600.0;
  if (drain > 0) result.drain_utilisation = drained / (drain * gpus);
}

// Moves the rows into the result, folding an empty last row into the one before, and turns the integrals into
// time averages.
void ReplayMetrics::summarize_intervals(const ReplayEnd& end, ReplayResult& result) {
  result.intervals = std::move(intervals_);
  // Events exactly at the makespan open an empty last row; fold its counts into the row before.
  if (result.intervals.size() > 1 && result.intervals.back().start >= result.makespan) {
    const IntervalMetrics last = result.intervals.back();
    result.intervals.pop_back();
    result.intervals.back().submitted += last.submitted;
    result.intervals.back().started += last.started;
    result.intervals.back().finished += last.finished;
    result.intervals.back().interrupted += last.interrupted;
  }
  double stranded_integral = 0;
  for (auto& row : result.intervals) {
    stranded_integral += row.stranded_gpus;
    const double scale = end.options.interval;
    row.utilisation /= scale * std::max(1, end.total_gpus);
    row.queue_length /= scale;
    row.running /= scale;
    row.stranded_gpus /= scale;
    row.down_gpus /= scale;
  }
  if (result.makespan > 0) result.mean_stranded_gpus = stranded_integral / result.makespan;
}

// Fills result.mig and scales the intervals' MIG integrals; after the intervals are final.
void ReplayMetrics::summarize_mig(const ReplayEnd& end, ReplayResult& result) {
  const MigPartition& mig = *end.mig;
  const MigPool& pool = mig.pool();
  MigReplayMetrics metrics;
  metrics.profile_set = pool.profile_set().info.id;
  metrics.layout = pool.layout_name();
  metrics.gpus = pool.gpus();
  metrics.compute_slices = pool.total_compute_slices();
  std::vector<double> waits;
  double first_submit = INFINITY;
  double busy_slice_seconds = 0;
  for (std::size_t j = 0; j < end.jobs.size(); ++j) {
    const JobOutcome& outcome = result.outcomes[j];
    const JobSpec& job = end.jobs[j];
    if (outcome.start >= 0) first_submit = std::min(first_submit, job.submit_time);
    if (outcome.start < 0 || job.mig_profile.empty()) continue;
    waits.push_back(outcome.start - job.submit_time);
    const double slice_seconds = outcome.held_s * mig.compute_slices_of(job);
    busy_slice_seconds += slice_seconds;
    // In the group and user tables a slice counts as its share of one GPU's compute slices.
    const double gpu_hours = slice_seconds / pool.profile_set().compute_slices / 3600.0;
    add_gpu_hours(result.by_group, job.group, gpu_hours);
    add_gpu_hours(result.by_user, job.user, gpu_hours);
  }
  metrics.jobs = static_cast<int>(waits.size()) + mig.waiting_count();
  metrics.completed = static_cast<int>(waits.size()) - mig.running_count();
  metrics.wait = summary_of(waits);
  const double span = result.makespan - first_submit;
  const double slices = std::max(1, metrics.compute_slices);
  if (!waits.empty() && span > 0) metrics.utilisation = busy_slice_seconds / (span * slices);
  const double window = result.last_arrival - result.first_arrival;
  if (window > 0) metrics.window_utilisation = busy_at_last_arrival_.second / (window * slices);
  double stranded_integral = 0;
  for (auto& row : result.intervals) {
    stranded_integral += row.mig_stranded_slices;
    row.mig_utilisation /= end.options.interval * slices;
    row.mig_stranded_slices /= end.options.interval;
  }
  if (result.makespan > 0) metrics.mean_stranded_slices = stranded_integral / result.makespan;
  result.mig = metrics;
}

}  // namespace gputwin
