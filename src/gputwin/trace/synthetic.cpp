#include "gputwin/trace/synthetic.hpp"

#include <algorithm>
#include <cmath>
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

// Standard normal by Box-Muller on our deterministic source.
double normal(Random& random) {
  const double u = 1.0 - random.unit();  // (0, 1]: log is finite
  const double v = random.unit();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

int draw_gpus(const SyntheticShape& shape, double total_share, Random& random) {
  double pick = random.unit() * total_share;
  for (const auto& [gpus, share] : shape.gpu_count_shares) {
    if (pick < share) return gpus;
    pick -= share;
  }
  return shape.gpu_count_shares.rbegin()->first;
}

}  // namespace

std::vector<JobSpec> generate_jobs(const SyntheticShape& shape, const SyntheticOptions& options) {
  Random random(options.seed);
  double total_share = 0;
  for (const auto& [gpus, share] : shape.gpu_count_shares) total_share += share;
  const double horizon = options.days * 86400.0;
  std::vector<JobSpec> jobs(static_cast<std::size_t>(std::max(0, options.jobs)));
  double work = 0;  // GPU-seconds asked
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    JobSpec& job = jobs[j];
    job.id = "job-" + std::to_string(j + 1);
    job.gpus = draw_gpus(shape, total_share, random);
    job.duration = std::exp(shape.duration_log_mean + shape.duration_log_sd * normal(random));
    job.submit_time = random.unit() * horizon;
    job.group = "vc" + std::to_string(j % static_cast<std::size_t>(std::max(1, options.groups)) + 1);
    job.user = "user" + std::to_string(random.below(1000) + 1);
    job.state = "completed";
    work += job.duration * job.gpus;
  }
  // Scale GPU counts by a power of two (keeping jobs no larger than the cluster), then durations, to the load.
  const double wanted = options.load * horizon * options.cluster_gpus;
  int multiplier = 1;
  while (work > 0 && work * multiplier * 2 <= wanted) multiplier *= 2;
  double capped_work = 0;
  for (auto& job : jobs) {
    job.gpus = std::min(job.gpus * multiplier, options.cluster_gpus);
    capped_work += job.duration * job.gpus;
  }
  const double stretch = capped_work > 0 ? wanted / capped_work : 1.0;  // after capping, so the load holds
  for (auto& job : jobs) job.duration = std::max(1.0, std::round(job.duration * stretch));
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.submit_time < b.submit_time;
  });
  return jobs;
}

}  // namespace gputwin
