#include "gputwin/sim/replay.hpp"

#include <gtest/gtest.h>

#include "gputwin/sim/sim_test_support.hpp"

namespace gputwin {
namespace {

using testing::job;

ReplayResult run(const std::vector<JobSpec>& jobs, const std::string& policy,
                 GpuPool pool = GpuPool::uniform(1, 4)) {
  ReplayOptions options;
  options.interval = 10;
  return replay(jobs, std::move(pool), *make_queue_policy(policy), options);
}

TEST(GpuPool, BestFitKeepsWholeNodesFree) {
  GpuPool pool = GpuPool::uniform(3, 8);
  auto first = pool.allocate(4, 0);
  ASSERT_TRUE(first);
  auto second = pool.allocate(2, 0);  // goes to the node already in use, not a fresh one
  ASSERT_TRUE(second);
  EXPECT_EQ(first->parts[0].first, second->parts[0].first);
  EXPECT_EQ(pool.free_gpus(), 18);
  EXPECT_EQ(pool.stranded_gpus(), 2);
  auto gang = pool.allocate(16, 0);  // two whole free nodes
  ASSERT_TRUE(gang);
  EXPECT_EQ(gang->parts.size(), 2u);
  EXPECT_FALSE(pool.allocate(3, 0));  // only 2 free GPUs left
  pool.release(*gang);
  EXPECT_EQ(pool.free_gpus(), 18);
}

TEST(IndexSet, VisitsMembersInAscendingOrderAcrossWords) {
  IndexSet set(5000);
  for (const int index : {4999, 0, 64, 4096, 63, 4095}) set.insert(index);
  set.erase(64);
  std::vector<int> members;
  set.visit_until([&](int index) {
    members.push_back(index);
    return false;
  });
  EXPECT_EQ(members, (std::vector<int>{0, 63, 4095, 4096, 4999}));
  EXPECT_EQ(set.first(), 0);
}

TEST(GpuPool, TiesGoToTheLowestNodeIndex) {
  GpuPool pool(std::vector<int>(200, 8), std::vector<int>(200, 0));
  for (int node = 0; node < 130; ++node) ASSERT_TRUE(pool.allocate(8, 0));
  pool.release(Allocation{{{70, 8}, {3, 8}}, 16});
  auto job = pool.allocate(24, 0);  // the two freed nodes, then the lowest untouched one
  ASSERT_TRUE(job);
  EXPECT_EQ(job->parts, (std::vector<std::pair<int, int>>{{3, 8}, {70, 8}, {130, 8}}));
}

TEST(GpuPool, GangJobsStayUnderOneLeafWhenTheyFit) {
  // Nodes 0-3 under leaf 0, nodes 4-7 under leaf 1; leaf 0 partly used.
  GpuPool pool(std::vector<int>(8, 8), {0, 0, 0, 0, 1, 1, 1, 1});
  ASSERT_TRUE(pool.allocate(8, 0));  // node 0 (leaf 0)
  auto job = pool.allocate(24, 0);   // fits in leaf 0's three free nodes
  ASSERT_TRUE(job);
  EXPECT_EQ(pool.leaves_used(*job), 1);
  auto wide = pool.allocate(40, 0);  // more than one leaf holds: spans
  ASSERT_FALSE(wide);                // only 32 free
  auto big = pool.allocate(32, 0);
  ASSERT_TRUE(big);
  EXPECT_EQ(pool.leaves_used(*big), 1);
}

TEST(GpuPool, ForcedSplitPerNode) {
  GpuPool pool = GpuPool::uniform(4, 8);
  auto job = pool.allocate(8, 4);  // two nodes, four each
  ASSERT_TRUE(job);
  EXPECT_EQ(job->parts.size(), 2u);
  EXPECT_EQ(job->parts[0].second, 4);
  EXPECT_FALSE(pool.allocate(6, 4));  // not a multiple of the split
}

TEST(Replay, FifoStartsInArrivalOrder) {
  const auto result = run({job("a", 0, 4, 10), job("b", 1, 2, 5), job("c", 2, 1, 1)}, "fifo");
  EXPECT_EQ(result.outcomes[0].start, 0);
  EXPECT_EQ(result.outcomes[1].start, 10);
  EXPECT_EQ(result.outcomes[2].start, 10);
  EXPECT_DOUBLE_EQ(result.wait.mean, (0 + 9 + 8) / 3.0);
  EXPECT_EQ(result.completed, 3);
  EXPECT_DOUBLE_EQ(result.makespan, 15);
}

TEST(Replay, EasyBackfillsShortJobsWithoutDelayingTheHead) {
  const std::vector<JobSpec> jobs{job("a", 0, 3, 10), job("b", 1, 4, 10), job("c", 2, 1, 5),
                                  job("d", 3, 1, 20)};
  const auto easy = run(jobs, "easy");
  EXPECT_EQ(easy.outcomes[2].start, 2);   // backfilled: ends at 7, before b's reservation at 10
  EXPECT_EQ(easy.outcomes[1].start, 10);  // the head is not delayed
  EXPECT_EQ(easy.outcomes[3].start, 20);  // would end after 10 and no GPU is spare at 10
  const auto fifo = run(jobs, "fifo");
  EXPECT_EQ(fifo.outcomes[2].start, 20);
  EXPECT_LT(easy.wait.mean, fifo.wait.mean);
}

TEST(Replay, ShortestJobFirstReordersTheQueue) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 10), job("long", 1, 4, 100), job("short", 2, 4, 1)};
  const auto sjf = run(jobs, "sjf");
  EXPECT_EQ(sjf.outcomes[2].start, 10);
  EXPECT_EQ(sjf.outcomes[1].start, 11);
}

TEST(Replay, FairShareFavoursTheGroupUsingLess) {
  // Group x holds 3 GPUs; when one frees, y's job goes before x's older one.
  const std::vector<JobSpec> jobs{job("x1", 0, 3, 100, "x"), job("y1", 0, 1, 10, "y"),
                                  job("x2", 1, 1, 10, "x"), job("y2", 2, 1, 10, "y")};
  const auto fair = run(jobs, "fair");
  EXPECT_EQ(fair.outcomes[3].start, 10);
  EXPECT_EQ(fair.outcomes[2].start, 20);
  const auto fifo = run(jobs, "fifo");
  EXPECT_EQ(fifo.outcomes[2].start, 10);
}

TEST(Replay, JobsTooLargeAreRejectedAndCounted) {
  const auto result = run({job("huge", 0, 5, 1), job("none", 0, 0, 1), job("ok", 0, 4, 1)}, "fifo");
  EXPECT_EQ(result.jobs, 1);
  EXPECT_EQ(result.rejected.at("larger than the whole cluster"), 1);
  EXPECT_EQ(result.rejected.at("requests no GPUs"), 1);
}

TEST(Replay, UtilisationOverTimeIntegratesBusyGpus) {
  // One 4-GPU node; 2 GPUs busy for 10 s then 4 GPUs for 10 s.
  const auto result = run({job("a", 0, 2, 20), job("b", 10, 2, 10)}, "fifo");
  ASSERT_EQ(result.intervals.size(), 2u);
  EXPECT_DOUBLE_EQ(result.intervals[0].utilisation, 0.5);
  EXPECT_DOUBLE_EQ(result.intervals[1].utilisation, 1.0);
  EXPECT_DOUBLE_EQ(result.utilisation, 0.75);
}

TEST(Replay, UnknownPolicyNamesTheKnownOnes) {
  try {
    (void)make_queue_policy("lottery");
    FAIL() << "accepted an unknown policy";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("fifo, sjf, easy, fair"), std::string::npos);
  }
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// Utilisation over the arrival window and the drain tail (issue 13, item 10).

ReplayResult run_with(const std::vector<JobSpec>& jobs, const std::string& policy, GpuPool pool,
                      const RunTimeEstimate& estimate = {}) {
  ReplayOptions options;
  options.interval = 10;
  options.run_time_estimate = estimate;
  return replay(jobs, std::move(pool), *make_queue_policy(policy), options);
}

TEST(ReplayUtilisation, WindowIsFirstToLastArrivalAndTheDrainTailIsApart) {
  // 2 GPUs. a: 1 GPU from 0 to 100. b arrives at 100 (the last arrival) and holds both GPUs until 400.
  // Window [0, 100]: 100 busy GPU-s of 200 = 0.5. Drain [100, 400]: 600 of 600 = 1. First arrival to
  // makespan: 700 of 800 = 0.875: the old single figure, which mixes both.
  const auto result = run_with({job("a", 0, 1, 100), job("b", 100, 2, 300)}, "fifo", GpuPool::uniform(1, 2));
  EXPECT_DOUBLE_EQ(result.first_arrival, 0);
  EXPECT_DOUBLE_EQ(result.last_arrival, 100);
  ASSERT_TRUE(result.window_utilisation);
  EXPECT_DOUBLE_EQ(*result.window_utilisation, 0.5);
  ASSERT_TRUE(result.drain_utilisation);
  EXPECT_DOUBLE_EQ(*result.drain_utilisation, 1.0);
  EXPECT_DOUBLE_EQ(result.drain_gpu_hours, 600 / 3600.0);
  EXPECT_DOUBLE_EQ(result.utilisation, 0.875);
  EXPECT_DOUBLE_EQ(result.makespan, 400);
}

TEST(ReplayUtilisation, NoWindowWhenEveryJobArrivesAtOnce) {
  const auto result = run_with({job("a", 5, 1, 10), job("b", 5, 1, 20)}, "fifo", GpuPool::uniform(1, 2));
  EXPECT_FALSE(result.window_utilisation);  // no span to divide by: no figure, not 0 or 100 %
  ASSERT_TRUE(result.drain_utilisation);
  EXPECT_DOUBLE_EQ(*result.drain_utilisation, 30.0 / (20 * 2));
}

TEST(ReplayUtilisation, PoliciesDifferInTheWindowOfALoadedTrace) {
  // 4 GPUs. a holds 2 until 100; b (4 GPUs) waits for it; 1-GPU jobs of 40 s keep arriving until t = 90.
  // FIFO lets them wait behind b; EASY backfills them on the 2 idle GPUs. Over the window the difference is
  // plain; over first arrival to makespan both runs end up doing the same work.
  std::vector<JobSpec> jobs{job("a", 0, 2, 100), job("b", 1, 4, 100)};
  for (int i = 0; i < 10; ++i)
    jobs.push_back(job("s" + std::to_string(i), 2 + 10 * i - (i == 9 ? 2 : 0), 1, 40));
  const auto fifo = run_with(jobs, "fifo", GpuPool::uniform(1, 4));
  const auto easy = run_with(jobs, "easy", GpuPool::uniform(1, 4));
  ASSERT_TRUE(fifo.window_utilisation && easy.window_utilisation);
  EXPECT_NEAR(*fifo.window_utilisation, 0.5, 1e-9);  // only a runs while jobs arrive
  EXPECT_GT(*easy.window_utilisation, *fifo.window_utilisation + 0.2);
}

// ---------------------------------------------------------------------------------------------------------------
// EASY's expected run times without a requested time (issue 13, item 11).

TEST(ReplayRunTimeEstimate, EasyPlansWithTheEstimateNotTheTrueDuration) {
  // 4 GPUs. a (2 GPUs, 100 s) runs; b (4 GPUs) waits, reserved for when a ends; c (2 GPUs, 60 s) arrives
  // at 50. Perfect foresight: c would end at 110, after a's true end at 100: not backfilled, b starts at 100.
  // Estimates at 2 x: a is expected to end at 200 and c at 170, so c is backfilled at 50, and b, the head,
  // actually starts at 110 - the cost of planning with what a scheduler really knows.
  const std::vector<JobSpec> jobs{job("a", 0, 2, 100), job("b", 1, 4, 100), job("c", 50, 2, 60)};
  const auto foresight = run_with(jobs, "easy", GpuPool::uniform(1, 4));
  const auto estimated = run_with(jobs, "easy", GpuPool::uniform(1, 4), RunTimeEstimate::factor_given(2.0));
  EXPECT_EQ(foresight.outcomes[2].start, 200);
  EXPECT_EQ(foresight.outcomes[1].start, 100);
  EXPECT_EQ(estimated.outcomes[2].start, 50);
  EXPECT_EQ(estimated.outcomes[1].start, 110);
  EXPECT_EQ(estimated.jobs_estimated, 3);
  EXPECT_EQ(estimated.jobs_with_requested_time, 0);
  EXPECT_TRUE(estimated.policy_plans_with_run_times);
  EXPECT_DOUBLE_EQ(estimated.run_time_estimate.factor, 2.0);
  EXPECT_EQ(estimated.run_time_estimate.source, "set by the user");
  EXPECT_NE(foresight.run_time_estimate.source.find("perfect foresight"), std::string::npos);
}

TEST(ReplayRunTimeEstimate, RequestedTimesAreUsedAsGivenAndCounted) {
  std::vector<JobSpec> jobs{job("a", 0, 2, 100), job("b", 1, 4, 100), job("c", 50, 2, 60)};
  jobs[0].requested_time = 100;  // a exact: its reservation stays at 100
  const auto result = run_with(jobs, "easy", GpuPool::uniform(1, 4), RunTimeEstimate::factor_given(2.0));
  EXPECT_EQ(result.outcomes[2].start, 200);  // c (estimated 120 s) would end at 170 > 100
  EXPECT_EQ(result.jobs_with_requested_time, 1);
  EXPECT_EQ(result.jobs_estimated, 2);
}

TEST(ReplayRunTimeEstimate, DefaultFactorAndItsSourceComeFromData) {
  const auto estimate =
      load_run_time_estimate(std::string(GPUTWIN_SOURCE_DIR) + "/data/reference/runtime-estimates.yaml");
  ASSERT_TRUE(estimate.ok()) << estimate.error_text();
  EXPECT_GT(estimate.value().factor, 1.0);
  EXPECT_NE(estimate.value().source.find("KTH"), std::string::npos);
  EXPECT_NE(estimate.value().source.find("runtime-estimates.yaml"), std::string::npos);
}

}  // namespace
}  // namespace gputwin
