#include "gputwin/trace/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "gputwin/core/random.hpp"
#include "gputwin/core/yaml_input.hpp"

namespace gputwin {

Result<SyntheticShape> load_synthetic_shape(const std::string& path) {
  try {
    const YamlField root = YamlDocument::load(path).root();
    SyntheticShape shape;
    for (const auto& [count, share] : root.child("gpu_count_shares").entries()) {
      const int gpus = std::stoi(count);
      if (gpus <= 0) share.fail("GPU counts are positive");
      shape.gpu_count_shares[gpus] = share.positive_number();
    }
    shape.duration_log_mean = root.child("duration_log_mean").number();
    shape.duration_log_sd = root.child("duration_log_sd").positive_number();
    return shape;
  } catch (const InputFailure& failure) {
    return failure.error();
  } catch (const std::exception& error) {
    return InputError{{path, 0, 0}, "gpu_count_shares", error.what()};
  }
}

namespace {

constexpr double kSecondsPerDay = 86400.0;

// The shape's sizes that fit the cluster, with their shares renormalised to sum to 1.
std::map<int, double> fitting_shares(const SyntheticShape& shape, int cluster_gpus) {
  std::map<int, double> shares;
  double total = 0;
  for (const auto& [gpus, share] : shape.gpu_count_shares) {
    if (gpus > cluster_gpus) continue;
    shares[gpus] = share;
    total += share;
  }
  for (auto& [gpus, share] : shares) share /= total;
  return shares;
}

double share_total(const SyntheticShape& shape) {
  double total = 0;
  for (const auto& [gpus, share] : shape.gpu_count_shares) total += share;
  return total;
}

// Standard normal by Box-Muller on our deterministic source.
double normal(Random& random) {
  const double u = 1.0 - random.unit();  // (0, 1]: log is finite
  const double v = random.unit();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

int draw_gpus(const std::map<int, double>& shares, Random& random) {
  double pick = random.unit();
  for (const auto& [gpus, share] : shares) {
    if (pick < share) return gpus;
    pick -= share;
  }
  return shares.rbegin()->first;
}

}  // namespace

double jobs_for_load(const SyntheticShape& shape, const SyntheticOptions& options) {
  const auto shares = fitting_shares(shape, options.cluster_gpus);
  double mean_gpus = 0;
  for (const auto& [gpus, share] : shares) mean_gpus += gpus * share;
  // Sizes and durations are drawn independently, so a job's expected GPU-seconds is the product of the means;
  // a lognormal's mean is exp(mu + sd^2 / 2).
  const double mean_duration =
      std::exp(shape.duration_log_mean + shape.duration_log_sd * shape.duration_log_sd / 2.0);
  const double capacity = options.load * options.cluster_gpus * options.days * kSecondsPerDay;
  return mean_gpus > 0 ? capacity / (mean_gpus * mean_duration) : 0.0;
}

SyntheticTrace generate_trace(const SyntheticShape& shape, const SyntheticOptions& options) {
  SyntheticTrace trace;
  const auto shares = fitting_shares(shape, options.cluster_gpus);
  if (shares.empty() || options.days <= 0) return trace;
  const double total = share_total(shape);
  double fitting = 0;
  for (const auto& [gpus, share] : shape.gpu_count_shares)
    fitting += gpus <= options.cluster_gpus ? share : 0.0;
  trace.left_out_share = total > 0 ? 1.0 - fitting / total : 0.0;
  const double count =
      options.jobs > 0 ? options.jobs : std::max(1.0, std::round(jobs_for_load(shape, options)));
  Random random(options.seed);
  const double horizon = options.days * kSecondsPerDay;
  trace.jobs.resize(static_cast<std::size_t>(count));
  double work = 0;  // GPU-seconds asked
  for (std::size_t j = 0; j < trace.jobs.size(); ++j) {
    JobSpec& job = trace.jobs[j];
    job.id = "job-" + std::to_string(j + 1);
    job.gpus = draw_gpus(shares, random);
    job.duration = std::exp(shape.duration_log_mean + shape.duration_log_sd * normal(random));
    job.submit_time = random.unit() * horizon;  // N uniform arrival times: a Poisson process given N
    job.group = "vc" + std::to_string(j % static_cast<std::size_t>(std::max(1, options.groups)) + 1);
    job.user = "user" + std::to_string(random.below(1000) + 1);
    job.state = "completed";
    work += job.duration * job.gpus;
  }
  const double capacity = horizon * options.cluster_gpus;
  trace.duration_scale = work > 0 ? options.load * capacity / work : 1.0;
  double asked = 0;
  double after_horizon = 0;
  for (auto& job : trace.jobs) {
    job.duration = std::max(1.0, std::round(job.duration * trace.duration_scale));
    asked += job.duration * job.gpus;
    after_horizon += std::max(0.0, job.submit_time + job.duration - horizon) * job.gpus;
  }
  trace.offered_load = asked / capacity;
  trace.work_after_horizon_share = asked > 0 ? after_horizon / asked : 0.0;
  trace.arrivals_per_hour = count / (horizon / 3600.0);
  std::stable_sort(trace.jobs.begin(), trace.jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_time < b.submit_time; });
  return trace;
}

std::vector<JobSpec> generate_jobs(const SyntheticShape& shape, const SyntheticOptions& options) {
  return generate_trace(shape, options).jobs;
}

}  // namespace gputwin
