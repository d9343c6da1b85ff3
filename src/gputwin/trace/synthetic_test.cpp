// The synthetic job generator keeps the shape's job sizes on every cluster and reaches the offered load by
// the arrival rate (or, with a fixed job count, by the durations), never by multiplying job sizes (issue 13,
// item 9).
#include "gputwin/trace/synthetic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gputwin {
namespace {

const SyntheticShape& philly_shape() {
  static const SyntheticShape shape = [] {
    const auto loaded =
        load_synthetic_shape(std::string(GPUTWIN_SOURCE_DIR) + "/data/reference/synthetic-jobs.yaml");
    if (!loaded.ok()) throw std::runtime_error("synthetic-jobs.yaml: " + loaded.error_text());
    return loaded.value();
  }();
  return shape;
}

// The shape's share of `gpus`-GPU jobs among the sizes that fit `cluster_gpus`.
double expected_share(int gpus, int cluster_gpus) {
  double fitting = 0;
  for (const auto& [size, share] : philly_shape().gpu_count_shares)
    fitting += size <= cluster_gpus ? share : 0.0;
  return philly_shape().gpu_count_shares.at(gpus) / fitting;
}

double share_of(const std::vector<JobSpec>& jobs, int gpus) {
  int count = 0;
  for (const auto& job : jobs) count += job.gpus == gpus ? 1 : 0;
  return static_cast<double>(count) / static_cast<double>(jobs.size());
}

double offered_load(const std::vector<JobSpec>& jobs, const SyntheticOptions& options) {
  double work = 0;
  for (const auto& job : jobs) work += static_cast<double>(job.gpus) * job.duration;
  return work / (options.days * 86400.0 * options.cluster_gpus);
}

TEST(SyntheticJobs, SizesFollowTheShapeAndArrivalsReachTheLoadOnEveryClusterSize) {
  const std::vector<SyntheticOptions> cases{
      {.cluster_gpus = 64, .days = 30, .load = 0.85, .seed = 1},
      {.cluster_gpus = 2048, .days = 3, .load = 0.85, .seed = 2},
      {.cluster_gpus = 16384, .days = 0.5, .load = 0.6, .seed = 3},
  };
  for (const auto& options : cases) {
    SCOPED_TRACE("cluster of " + std::to_string(options.cluster_gpus) + " GPUs");
    const SyntheticTrace trace = generate_trace(philly_shape(), options);
    ASSERT_GT(trace.jobs.size(), 5000u);
    EXPECT_NEAR(static_cast<double>(trace.jobs.size()), jobs_for_load(philly_shape(), options), 1.0);
    // Before: every size was multiplied by a power of two (no job under 16 GPUs on 2,048 GPUs).
    EXPECT_NEAR(share_of(trace.jobs, 1), expected_share(1, options.cluster_gpus), 0.01);
    EXPECT_NEAR(share_of(trace.jobs, 8), expected_share(8, options.cluster_gpus), 0.005);
    for (const auto& job : trace.jobs) ASSERT_LE(job.gpus, options.cluster_gpus);
    EXPECT_NEAR(offered_load(trace.jobs, options), options.load, 0.002);
    EXPECT_NEAR(trace.offered_load, offered_load(trace.jobs, options), 1e-12);
    // The arrival rate reached the load; durations only lose the sampling noise of a heavy-tailed lognormal.
    EXPECT_NEAR(trace.duration_scale, 1.0, 0.35);
    double asked = 0;
    double after = 0;
    for (const auto& job : trace.jobs) {
      asked += job.duration * job.gpus;
      after += std::max(0.0, job.submit_time + job.duration - options.days * 86400.0) * job.gpus;
    }
    EXPECT_NEAR(trace.work_after_horizon_share, after / asked, 1e-9);
  }
}

TEST(SyntheticJobs, AFixedJobCountReachesTheLoadByDurationsNotSizes) {
  const SyntheticOptions options{.cluster_gpus = 100000, .jobs = 20000, .days = 30, .load = 0.8, .seed = 1};
  const SyntheticTrace trace = generate_trace(philly_shape(), options);
  ASSERT_EQ(trace.jobs.size(), 20000u);
  EXPECT_NEAR(share_of(trace.jobs, 1), expected_share(1, options.cluster_gpus), 0.01);
  EXPECT_NEAR(offered_load(trace.jobs, options), 0.8, 0.002);
  EXPECT_GT(trace.duration_scale,
            100);  // 20,000 jobs a month cannot load 100,000 GPUs at the shape's durations
  EXPECT_GT(trace.work_after_horizon_share, 0.3);  // and the stretched tail runs far past the month
  EXPECT_DOUBLE_EQ(trace.left_out_share, 0);
}

TEST(SyntheticJobs, SizesLargerThanTheClusterAreLeftOutAndTheLoadHolds) {
  const SyntheticOptions options{.cluster_gpus = 64, .jobs = 2000, .days = 7, .load = 0.5, .seed = 4};
  const SyntheticTrace trace = generate_trace(philly_shape(), options);
  EXPECT_NEAR(trace.left_out_share, 0.00004, 1e-9);  // the 128-GPU jobs
  for (const auto& job : trace.jobs) ASSERT_LE(job.gpus, 64);
  EXPECT_NEAR(offered_load(trace.jobs, options), options.load, 0.002);
}

TEST(SyntheticJobs, SameSeedSameTraceOtherSeedOtherTrace) {
  const SyntheticOptions options{.cluster_gpus = 512, .days = 2, .load = 0.7, .seed = 11};
  const auto first = generate_trace(philly_shape(), options);
  const auto again = generate_trace(philly_shape(), options);
  ASSERT_EQ(first.jobs.size(), again.jobs.size());
  for (std::size_t j = 0; j < first.jobs.size(); ++j) {
    ASSERT_EQ(first.jobs[j].gpus, again.jobs[j].gpus);
    ASSERT_EQ(first.jobs[j].duration, again.jobs[j].duration);
    ASSERT_EQ(first.jobs[j].submit_time, again.jobs[j].submit_time);
  }
  SyntheticOptions other = options;
  other.seed = 12;
  const auto different = generate_trace(philly_shape(), other);
  EXPECT_NE(different.jobs.front().submit_time, first.jobs.front().submit_time);
}

}  // namespace
}  // namespace gputwin
