// Replay at the scale of real traces (the Philly-derived Pollux trace, the KTH SP2 SWF log; skipped when ../shared
// is absent), replay determinism, and the synthetic job generator's determinism and offered load.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gputwin/report/replay_report.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/trace/job_traces.hpp"
#include "gputwin/trace/synthetic.hpp"

namespace gputwin {
namespace {

std::string shared_trace(const std::string& relative) {
  return std::string(GPUTWIN_SHARED_DIR) + "/traces/" + relative;
}

const SyntheticShape& philly_shape() {
  static const SyntheticShape shape = [] {
    const auto loaded = load_synthetic_shape(std::string(GPUTWIN_SOURCE_DIR) + "/data/reference/synthetic-jobs.yaml");
    if (!loaded.ok()) throw std::runtime_error("synthetic-jobs.yaml: " + loaded.error_text());
    return loaded.value();
  }();
  return shape;
}

ReplayResult replay_with(const std::vector<JobSpec>& jobs, GpuPool pool, const std::string& policy) {
  return replay(jobs, std::move(pool), *make_queue_policy(policy), ReplayOptions{});
}

int rejected_total(const ReplayResult& result) {
  int total = 0;
  for (const auto& [reason, count] : result.rejected) total += count;
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// Real traces.

TEST(ReplayScale, PhillyOn64NodesOf8GpusFifoAndEasy) {
  const std::string path = shared_trace("pollux-osdi21/traces/philly.csv");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "Philly trace is absent: " << path;
  const auto trace = read_philly_jobs(path);
  ASSERT_TRUE(trace.ok()) << trace.error_text();
  const auto& jobs = trace.value().rows;
  ASSERT_EQ(jobs.size(), 82247u);

  const ReplayResult fifo = replay_with(jobs, GpuPool::uniform(64, 8), "fifo");
  const ReplayResult easy = replay_with(jobs, GpuPool::uniform(64, 8), "easy");
  for (const ReplayResult* result : {&fifo, &easy}) {
    SCOPED_TRACE(result->policy);
    EXPECT_EQ(rejected_total(*result), 0);  // no Philly job asks for more than 512 GPUs
    EXPECT_EQ(result->jobs, static_cast<int>(jobs.size()));
    EXPECT_EQ(result->completed, result->jobs);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const JobOutcome& outcome = result->outcomes[j];
      ASSERT_GE(outcome.start, jobs[j].submit_time) << "job " << jobs[j].id << " started before it arrived";
      ASSERT_DOUBLE_EQ(outcome.end, outcome.start + jobs[j].duration) << "job " << jobs[j].id;
    }
    EXPECT_GT(result->utilisation, 0.0);
    EXPECT_LE(result->utilisation, 1.0);
    EXPECT_GE(result->wait.mean, 0.0);
  }
  EXPECT_LE(easy.wait.mean, fifo.wait.mean);
  std::cout << "[ philly ] mean wait fifo " << fifo.wait.mean << " s, easy " << easy.wait.mean
            << " s; utilisation fifo " << fifo.utilisation << ", easy " << easy.utilisation << "\n";
}

TEST(ReplayScale, KthSwfOn100ProcessorsWithEasy) {
  const std::string path = shared_trace("swf/KTH-SP2-1996-2.1-cln.swf");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "KTH SP2 log is absent: " << path;
  const auto trace = read_swf(path);
  ASSERT_TRUE(trace.ok()) << trace.error_text();
  ASSERT_EQ(trace.value().max_procs, 100);
  const auto& jobs = trace.value().jobs.rows;
  ASSERT_FALSE(jobs.empty());

  const ReplayResult easy = replay_with(jobs, GpuPool::uniform(100, 1), "easy");
  EXPECT_GT(easy.jobs, 0);
  EXPECT_EQ(easy.jobs + rejected_total(easy), static_cast<int>(jobs.size()));
  EXPECT_EQ(easy.completed, easy.jobs);
  EXPECT_GT(easy.recorded_jobs, 0);  // SWF field 3 holds the trace's own waits
  EXPECT_GT(easy.utilisation, 0.0);
  EXPECT_LE(easy.utilisation, 1.0);

  const ReplayResult again = replay_with(jobs, GpuPool::uniform(100, 1), "easy");
  EXPECT_EQ(replay_json(easy).dump(), replay_json(again).dump());
}

// ---------------------------------------------------------------------------------------------------------------
// Determinism of replay (no randomness: exact repeats) and of the generator.

TEST(ReplayScale, TwoRunsGiveIdenticalJsonForEveryPolicy) {
  const auto jobs = generate_jobs(philly_shape(), {.cluster_gpus = 256, .jobs = 5000, .days = 14, .load = 0.9, .seed = 3});
  for (const auto& policy : queue_policy_names()) {
    SCOPED_TRACE(policy);
    const ReplayResult first = replay_with(jobs, GpuPool::uniform(32, 8), policy);
    const ReplayResult second = replay_with(jobs, GpuPool::uniform(32, 8), policy);
    EXPECT_EQ(first.completed, first.jobs);
    const std::string dump = replay_json(first).dump(2);
    EXPECT_EQ(dump, replay_json(second).dump(2));
    EXPECT_EQ(replay_intervals_csv(first), replay_intervals_csv(second));
  }
}

bool same_jobs(const std::vector<JobSpec>& a, const std::vector<JobSpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t j = 0; j < a.size(); ++j) {
    const JobSpec& x = a[j];
    const JobSpec& y = b[j];
    if (x.id != y.id || x.submit_time != y.submit_time || x.duration != y.duration ||
        x.requested_time != y.requested_time || x.gpus != y.gpus || x.gpus_per_node != y.gpus_per_node ||
        x.user != y.user || x.group != y.group || x.state != y.state || x.recorded_wait != y.recorded_wait) {
      return false;
    }
  }
  return true;
}

TEST(SyntheticJobs, SameSeedSameJobsOtherSeedOtherJobs) {
  const SyntheticOptions options{.cluster_gpus = 4096, .jobs = 20000, .days = 30, .load = 0.8, .seed = 11};
  const auto first = generate_jobs(philly_shape(), options);
  const auto again = generate_jobs(philly_shape(), options);
  ASSERT_EQ(first.size(), 20000u);
  EXPECT_TRUE(same_jobs(first, again));
  SyntheticOptions other = options;
  other.seed = 12;
  const auto different = generate_jobs(philly_shape(), other);
  ASSERT_EQ(different.size(), first.size());
  EXPECT_FALSE(same_jobs(first, different));
  for (std::size_t j = 1; j < first.size(); ++j) ASSERT_LE(first[j - 1].submit_time, first[j].submit_time);
}

double offered_load(const std::vector<JobSpec>& jobs, const SyntheticOptions& options) {
  double work = 0;
  for (const auto& job : jobs) work += static_cast<double>(job.gpus) * job.duration;
  return work / (options.days * 86400.0 * options.cluster_gpus);
}

TEST(SyntheticJobs, OfferedLoadIsWithinFivePercentOfTheRequest) {
  const std::vector<SyntheticOptions> cases{
      {.cluster_gpus = 100000, .jobs = 100000, .days = 30, .load = 0.8, .seed = 1},
      {.cluster_gpus = 512, .jobs = 20000, .days = 30, .load = 0.6, .seed = 2},
      {.cluster_gpus = 4096, .jobs = 50000, .days = 60, .load = 0.95, .seed = 3},
      {.cluster_gpus = 64, .jobs = 2000, .days = 7, .load = 0.5, .seed = 1},
  };
  for (const auto& options : cases) {
    SCOPED_TRACE("cluster " + std::to_string(options.cluster_gpus) + " GPUs, " + std::to_string(options.jobs) +
                 " jobs, load " + std::to_string(options.load));
    const auto jobs = generate_jobs(philly_shape(), options);
    ASSERT_EQ(jobs.size(), static_cast<std::size_t>(options.jobs));
    for (const auto& job : jobs) {
      ASSERT_GE(job.gpus, 1);
      ASSERT_LE(job.gpus, options.cluster_gpus);
      ASSERT_GE(job.duration, 1.0);
      ASSERT_GE(job.submit_time, 0.0);
      ASSERT_LT(job.submit_time, options.days * 86400.0);
    }
    const double load = offered_load(jobs, options);
    EXPECT_NEAR(load, options.load, 0.05 * options.load);
  }
}

// Sizes larger than the cluster are now left out of the draw instead of capped, and the load holds:
// trace/synthetic_test.cpp, SyntheticJobs.SizesLargerThanTheClusterAreLeftOutAndTheLoadHolds.

}  // namespace
}  // namespace gputwin
