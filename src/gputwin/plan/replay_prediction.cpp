#include "gputwin/plan/replay_prediction.hpp"

#include <cmath>
#include <stdexcept>

namespace gputwin {

ReplayPrediction predict_occupancy(const SacctHistory& history, const SacctClock& clock,
                                   const std::vector<double>& times, double step_s, SimulatedCluster cluster,
                                   const QueuePolicy& policy, ReplayOptions options) {
  if (step_s <= 0) throw std::invalid_argument("the step must be positive");
  ReplayPrediction prediction;
  prediction.time_zone = history.local_times ? clock.zone : "Unix seconds (sacct --json)";
  prediction.skipped = history.jobs.skipped;
  prediction.gpus = cluster.whole.total_gpus();  // whole GPUs: validate replays no MIG-mode nodes
  const double first_submit =
      static_cast<double>(history.first_submit) - (history.local_times ? clock.utc_offset_s : 0);
  prediction.first_submit_s = first_submit;
  if (times.empty()) return prediction;

  // The replay's clock starts on the step grid of the measured times, at or before the first submission, so
  // each of its intervals is one measured step: interval i covers [base + i step, base + (i + 1) step).
  double base = times.front() - step_s;
  if (first_submit < base) base -= std::ceil((base - first_submit) / step_s) * step_s;
  std::vector<JobSpec> jobs;
  for (const JobSpec& job : history.jobs.rows) {
    const double submit = first_submit + job.submit_time;
    if (submit > times.back()) {
      ++prediction.jobs_after;
      continue;
    }
    JobSpec shifted = job;
    shifted.submit_time = submit - base;
    jobs.push_back(std::move(shifted));
  }
  prediction.jobs = static_cast<int>(jobs.size());

  options.interval = step_s;
  const ReplayResult result =
      jobs.empty() ? ReplayResult{}
                   : replay(jobs, std::move(cluster.whole), std::move(cluster.mig), policy, options);
  prediction.policy = std::string(policy.name());
  prediction.jobs_rejected = jobs_never_run(result);
  if (!jobs.empty()) {
    if (const auto refusal = no_job_can_run(result)) throw std::invalid_argument(*refusal);
  }
  for (const double time : times) {
    PredictedPoint point;
    point.time_s = time;
    const double index = std::round((time - step_s - base) / step_s);
    if (index >= 0 && index < static_cast<double>(result.intervals.size())) {
      point.occupancy = result.intervals[static_cast<std::size_t>(index)].utilisation;
      point.busy_gpus = point.occupancy * prediction.gpus;
    }
    prediction.points.push_back(point);
  }
  return prediction;
}

}  // namespace gputwin
