#include "gputwin/sim/replay_failure_metrics.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "gputwin/sim/replay_metrics.hpp"

namespace gputwin {
namespace {

constexpr double kSecondsPerHour = 3600;

// Job sizes the MTTF and ETTR tables group by (GPUs): one GPU, one node of 8, a rack, a scalable unit, more.
// Bucket edges, not figures: what a reader compares with published per-size tables.
const std::vector<std::pair<int, int>>& size_buckets() {
  static const std::vector<std::pair<int, int>> buckets{{1, 1},    {2, 8},      {9, 64},
                                                        {65, 512}, {513, 4096}, {4097, 0}};
  return buckets;
}

std::size_t bucket_of(int gpus) {
  const auto& buckets = size_buckets();
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (buckets[b].second == 0 || gpus <= buckets[b].second) return b;
  }
  return buckets.size() - 1;
}

}  // namespace

FailureAccounting::FailureAccounting(const std::vector<JobSpec>& jobs, FailureSetupNames setup,
                                     int total_gpus, int schedulable_gpus, const MigPartition* mig)
    : jobs_(jobs),
      setup_(std::move(setup)),
      total_gpus_(total_gpus),
      schedulable_gpus_(schedulable_gpus),
      mig_(mig) {}

double FailureAccounting::gpus_of(const JobSpec& job) const {
  if (job.mig_profile.empty() || mig_ == nullptr) return job.gpus;
  return static_cast<double>(mig_->compute_slices_of(job)) / mig_->pool().profile_set().compute_slices;
}

void FailureAccounting::on_submit(int /*job*/, double /*time*/) {
  any_arrival_ = true;
}

// Availability counts from the first arrival: before it nothing is asked of the cluster.
void FailureAccounting::on_span(const ReplaySpan& span) {
  if (!any_arrival_) return;
  const double width = span.to - span.from;
  double down = span.whole.down;
  if (span.mig && span.mig->down > 0)
    down += span.mig->down / static_cast<double>(mig_->pool().profile_set().compute_slices);
  in_service_gpu_seconds_ += (total_gpus_ - down) * width;
  schedulable_gpu_seconds_ += static_cast<double>(schedulable_gpus_) * width;
}

CauseLosses& FailureAccounting::losses_of(std::string_view cause) {
  const auto found = std::find_if(causes_.begin(), causes_.end(),
                                  [&](const CauseLosses& row) { return row.cause == cause; });
  if (found != causes_.end()) return *found;
  causes_.push_back(CauseLosses{std::string(cause)});
  return causes_.back();
}

void FailureAccounting::on_segment(const RunSegment& segment) {
  const double gpus = gpus_of(jobs_[static_cast<std::size_t>(segment.job)]);
  const double held = segment.to - segment.from;
  allocated_gpu_seconds_ += held * gpus;
  checkpoint_gpu_seconds_ += std::max(0.0, held - segment.restart_s - segment.work_done_s) * gpus;
  if (!segment.cause.empty()) {
    CauseLosses& losses = losses_of(segment.cause);
    ++losses.interruptions;
    losses.lost_work_gpu_hours += segment.work_lost_s * gpus;
  }
  if (!segment.restart_cause.empty()) {
    CauseLosses& losses = losses_of(segment.restart_cause);
    losses.restart_gpu_hours += segment.restart_s * gpus;
    losses.repair_wait_gpu_hours += segment.waited_s * gpus;
  }
}

void FailureAccounting::summarize(const ReplayEnd& end, ReplayResult& result) const {
  FailureMetrics metrics;
  metrics.failure_model = setup_.failure_model;
  metrics.checkpoint_policy = setup_.checkpoint_policy;
  metrics.spare_nodes = setup_.spare_nodes;
  metrics.mig_spare_nodes = setup_.mig_spare_nodes;
  metrics.out_of_service_nodes = setup_.out_of_service_nodes;
  metrics.jobs_interrupted = result.jobs_interrupted;
  metrics.interruptions = result.interruptions;
  metrics.allocated_gpu_hours = allocated_gpu_seconds_ / kSecondsPerHour;
  metrics.checkpoint_gpu_hours = checkpoint_gpu_seconds_ / kSecondsPerHour;
  metrics.by_cause = causes_;
  std::sort(metrics.by_cause.begin(), metrics.by_cause.end(),
            [](const CauseLosses& a, const CauseLosses& b) { return a.cause < b.cause; });
  for (auto& row : metrics.by_cause) {
    row.lost_work_gpu_hours /= kSecondsPerHour;
    row.restart_gpu_hours /= kSecondsPerHour;
    row.repair_wait_gpu_hours /= kSecondsPerHour;
    metrics.lost_work_gpu_hours += row.lost_work_gpu_hours;
    metrics.restart_gpu_hours += row.restart_gpu_hours;
    metrics.repair_wait_gpu_hours += row.repair_wait_gpu_hours;
  }
  std::vector<JobSizeFailures> buckets(size_buckets().size());
  std::vector<std::pair<double, double>> bucket_ettr(buckets.size(), {0.0, 0.0});  // work, wall (GPU-s)
  std::vector<double> ettrs;
  double work = 0;
  double wall = 0;
  for (std::size_t j = 0; j < end.jobs.size(); ++j) {
    const JobOutcome& outcome = result.outcomes[j];
    const JobSpec& job = end.jobs[j];
    if (outcome.start < 0) continue;
    const bool sized = job.mig_profile.empty();  // slice jobs are in the totals, not in the by-size table
    const std::size_t b = bucket_of(job.gpus);
    if (sized) {
      buckets[b].jobs += 1;
      buckets[b].interruptions += outcome.interruptions;
      buckets[b].run_hours += outcome.held_s / kSecondsPerHour;
    }
    if (!outcome.finished) continue;
    const double elapsed = outcome.end - outcome.start;
    const double gpus = gpus_of(job);
    metrics.useful_gpu_hours += job.duration * gpus / kSecondsPerHour;
    if (elapsed <= 0) continue;
    ettrs.push_back(std::min(1.0, job.duration / elapsed));
    work += job.duration * gpus;
    wall += elapsed * gpus;
    if (!sized) continue;
    bucket_ettr[b].first += job.duration * job.gpus;
    bucket_ettr[b].second += elapsed * job.gpus;
  }
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    JobSizeFailures& bucket = buckets[b];
    if (bucket.jobs == 0) continue;
    bucket.min_gpus = size_buckets()[b].first;
    bucket.max_gpus = size_buckets()[b].second;
    if (bucket.interruptions > 0) bucket.mttf_hours = bucket.run_hours / bucket.interruptions;
    if (bucket_ettr[b].second > 0) bucket.ettr = std::min(1.0, bucket_ettr[b].first / bucket_ettr[b].second);
    metrics.by_job_size.push_back(bucket);
  }
  if (wall > 0) metrics.ettr = std::min(1.0, work / wall);
  metrics.ettr_by_job = summary_of(std::move(ettrs));
  if (metrics.allocated_gpu_hours > 0)
    metrics.goodput = metrics.useful_gpu_hours / metrics.allocated_gpu_hours;
  metrics.in_service_gpu_hours = in_service_gpu_seconds_ / kSecondsPerHour;
  metrics.schedulable_gpu_hours = schedulable_gpu_seconds_ / kSecondsPerHour;
  if (schedulable_gpu_seconds_ > 0) {
    metrics.availability = std::min(1.0, in_service_gpu_seconds_ / schedulable_gpu_seconds_);
  }
  result.failures = std::move(metrics);
}

}  // namespace gputwin
