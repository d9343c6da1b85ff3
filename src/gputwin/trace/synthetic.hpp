// Synthetic job traces shaped like a real one, for what-if runs and the simulator's speed benchmark.
//
//   SyntheticShape shape = load_synthetic_shape(bundled_data_dir() + "/reference/synthetic-jobs.yaml");
//   SyntheticTrace trace = generate_trace(shape, {.cluster_gpus = 2048, .days = 30, .load = 0.85});
//   trace.jobs, trace.offered_load (0.85), trace.duration_scale (near 1: arrivals reached the load)
//   std::vector<JobSpec> jobs = generate_jobs(shape, {.cluster_gpus = 100000, .jobs = 1000000, .days = 365});
//
// The model (docs/simulate.md): job sizes are drawn from the shape's shares, the same on every cluster (sizes
// larger than the cluster are left out and the rest renormalised); durations are lognormal with the shape's
// parameters; arrivals are a Poisson process over the horizon (N arrival times uniform on [0, days)). The
// offered load (GPU-seconds asked / GPU-seconds the cluster has over the horizon) is reached by the arrival
// rate: N = load x GPUs x horizon / (the shape's expected GPU-seconds per job). A final common factor on the
// durations removes the sampling noise so the load is met exactly; it stays near 1. When the caller fixes the
// job count (`jobs` > 0), the arrival rate is fixed too and that factor is what reaches the load: durations
// are stretched or shrunk, never job sizes. `duration_scale` says by how much.
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
  int jobs = 0;  // 0 = as many as the load needs at the shape's durations (the arrival rate reaches the load)
  double days = 0;
  double load = 0.8;
  std::uint64_t seed = 1;
  int groups = 10;  // jobs are spread evenly over this many virtual clusters (for fair share)
};

struct SyntheticTrace {
  std::vector<JobSpec> jobs;  // in arrival order
  double offered_load = 0;    // as generated (after durations are rounded to whole seconds)
  double duration_scale = 1;  // the common factor applied to the shape's durations to reach the load
  double left_out_share = 0;  // share of the shape's jobs larger than the cluster, left out of the draw
  double arrivals_per_hour = 0;
  // Share of the asked GPU-seconds that falls after the horizon even if every job started on arrival: the
  // heavy tail of durations runs into the drain tail (large when durations were stretched).
  double work_after_horizon_share = 0;
};

[[nodiscard]] Result<SyntheticShape> load_synthetic_shape(const std::string& path);
// Jobs the load needs at the shape's durations on this cluster (what `jobs` = 0 generates).
[[nodiscard]] double jobs_for_load(const SyntheticShape& shape, const SyntheticOptions& options);
[[nodiscard]] SyntheticTrace generate_trace(const SyntheticShape& shape, const SyntheticOptions& options);
[[nodiscard]] std::vector<JobSpec> generate_jobs(const SyntheticShape& shape,
                                                 const SyntheticOptions& options);

}  // namespace gputwin
