#include "gputwin/sim/replay.hpp"

#include <gtest/gtest.h>

namespace gputwin {
namespace {

JobSpec job(const std::string& id, double submit, int gpus, double duration, const std::string& group = "") {
  JobSpec spec;
  spec.id = id;
  spec.submit_time = submit;
  spec.gpus = gpus;
  spec.duration = duration;
  spec.group = group;
  return spec;
}

ReplayResult run(const std::vector<JobSpec>& jobs, const std::string& policy, GpuPool pool = GpuPool::uniform(1, 4)) {
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
  const std::vector<JobSpec> jobs{job("a", 0, 3, 10), job("b", 1, 4, 10), job("c", 2, 1, 5), job("d", 3, 1, 20)};
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
  const std::vector<JobSpec> jobs{job("x1", 0, 3, 100, "x"), job("y1", 0, 1, 10, "y"), job("x2", 1, 1, 10, "x"),
                                  job("y2", 2, 1, 10, "y")};
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
