// Synthetic job traces shaped like a real one, for what-if runs and the simulator's speed benchmark.
//
//   SyntheticShape shape = load_synthetic_shape(bundled_data_dir() + "/reference/synthetic-jobs.yaml");
//   std::vector<JobSpec> jobs = generate_jobs(shape, {.cluster_gpus = 100000, .jobs = 1000000, .days = 365,
//                                                     .load = 0.8, .seed = 1});
//
// GPU counts follow the shape's shares; durations are lognormal; arrivals are a Poisson process over the
// horizon. To reach the offered load (GPU-seconds asked / GPU-seconds available) on a cluster larger than the
// trace's, GPU counts are first scaled by a power of two, then durations by the remaining factor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct SyntheticShape {
  std::map<int, double> gpu_count_shares;
  double duration_log_mean = 0;
  double duration_log_sd = 0;
};

struct SyntheticOptions {
  int cluster_gpus = 0;
  int jobs = 0;
  double days = 0;
  double load = 0.8;
  std::uint64_t seed = 1;
  int groups = 10;  // jobs are spread evenly over this many virtual clusters (for fair share)
};

[[nodiscard]] Result<SyntheticShape> load_synthetic_shape(const std::string& path);
[[nodiscard]] std::vector<JobSpec> generate_jobs(const SyntheticShape& shape,
                                                 const SyntheticOptions& options);

}  // namespace gputwin
