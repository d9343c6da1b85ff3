// Replays with jobs on MIG slices: small cases whose outcome follows from the MIG rules by hand.
#include <gtest/gtest.h>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/sim/replay.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;

const MigProfileSet& a100_80gb() {
  return bundled_catalog().get<MigProfileSet>("a100-80gb");
}

JobSpec slice_job(const std::string& id, double submit, const std::string& profile, double duration) {
  JobSpec job;
  job.id = id;
  job.submit_time = submit;
  job.mig_profile = profile;
  job.duration = duration;
  return job;
}

JobSpec gpu_job(const std::string& id, double submit, int gpus, double duration) {
  JobSpec job;
  job.id = id;
  job.submit_time = submit;
  job.gpus = gpus;
  job.duration = duration;
  return job;
}

ReplayResult run(const std::vector<JobSpec>& jobs, std::optional<MigPool> mig,
                 const std::string& policy = "fifo", GpuPool whole = GpuPool::uniform(1, 8)) {
  ReplayOptions options;
  options.interval = 100;
  return replay(jobs, std::move(whole), std::move(mig), *make_queue_policy(policy), options);
}

TEST(MigReplay, EightGpusRunFiftySixOneSliceJobsAndTheNextWaits) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 57; ++i) jobs.push_back(slice_job("s" + std::to_string(i), 0, "1g.10gb", 100));
  jobs.push_back(gpu_job("whole", 0, 8, 50));  // on the whole-GPU node: not held up by the waiting slice
  const ReplayResult result = run(jobs, MigPool(a100_80gb(), 8));
  for (int i = 0; i < 56; ++i) EXPECT_EQ(result.outcomes[i].start, 0) << i;
  EXPECT_EQ(result.outcomes[56].start, 100);
  EXPECT_EQ(result.outcomes[57].start, 0);
  EXPECT_EQ(result.completed, 58);
  ASSERT_TRUE(result.mig);
  EXPECT_EQ(result.mig->gpus, 8);
  EXPECT_EQ(result.mig->compute_slices, 56);
  EXPECT_EQ(result.mig->jobs, 57);
  EXPECT_DOUBLE_EQ(result.mig->wait.max, 100);
  // 56 slices busy for 100 s, then one for 100 s, over 56 slices x 200 s.
  EXPECT_NEAR(result.mig->utilisation, (56 * 100.0 + 100.0) / (56 * 200.0), 1e-12);
  EXPECT_DOUBLE_EQ(result.mig->mean_stranded_slices, 0);
  ASSERT_EQ(result.intervals.size(), 2u);
  EXPECT_DOUBLE_EQ(result.intervals[0].mig_utilisation, 1.0);
  EXPECT_NEAR(result.intervals[1].mig_utilisation, 1.0 / 56, 1e-12);
  EXPECT_NEAR(result.utilisation, 8 * 50.0 / (8 * 200.0), 1e-12);  // whole GPUs only
  ASSERT_EQ(result.by_group.size(), 1u);  // a slice-second counts as 1/7 of a GPU-second
  EXPECT_NEAR(result.by_group[0].gpu_hours, (8 * 50.0 + 57 * 100.0 / 7) / 3600, 1e-12);
}

TEST(MigReplay, TwoHalvesStrandTheSeventhSlice) {
  const ReplayResult result = run({slice_job("a", 0, "3g.40gb", 100), slice_job("b", 0, "3g.40gb", 100),
                                   slice_job("c", 0, "1g.10gb", 10)},
                                  MigPool(a100_80gb(), 1));
  EXPECT_EQ(result.outcomes[0].start, 0);
  EXPECT_EQ(result.outcomes[1].start, 0);
  EXPECT_EQ(result.outcomes[2].start, 100);  // a free compute slice, but no free memory slot
  ASSERT_TRUE(result.mig);
  EXPECT_NEAR(result.mig->mean_stranded_slices, 100.0 / 110, 1e-12);  // 1 slice for the first 100 of 110 s
  EXPECT_NEAR(result.mig->utilisation, (6 * 100.0 + 10) / (7 * 110.0), 1e-12);
}

TEST(MigReplay, FixedLayoutOnlyRunsItsInstances) {
  const MigLayout layout = parse_mig_layout("3g.40gb+2g.20gb+1g.10gb+1g.10gb", a100_80gb());
  const std::vector<JobSpec> jobs{slice_job("a", 0, "1g.10gb", 10), slice_job("b", 0, "1g.10gb", 10),
                                  slice_job("c", 0, "1g.10gb", 10), slice_job("d", 0, "4g.40gb", 10)};
  const ReplayResult fixed = run(jobs, MigPool(a100_80gb(), 1, layout));
  EXPECT_EQ(fixed.outcomes[0].start, 0);
  EXPECT_EQ(fixed.outcomes[1].start, 0);
  EXPECT_EQ(fixed.outcomes[2].start, 10);  // the layout has two 1g.10gb instances
  EXPECT_EQ(fixed.outcomes[3].start, -1);
  EXPECT_EQ(fixed.rejected.at("MIG profile not in the fixed layout"), 1);
  EXPECT_EQ(fixed.mig->layout, "3g.40gb+2g.20gb+1g.10gb+1g.10gb");

  const ReplayResult dynamic = run(jobs, MigPool(a100_80gb(), 1));  // slices made on demand: all fit at once
  for (int i = 0; i < 4; ++i) EXPECT_EQ(dynamic.outcomes[i].start, 0) << i;
  EXPECT_EQ(dynamic.mig->layout, "");
}

TEST(MigReplay, SliceJobsNeedMigModeGpus) {
  const ReplayResult result = run({slice_job("a", 0, "1g.10gb", 10), gpu_job("b", 0, 1, 10)}, std::nullopt);
  EXPECT_EQ(result.rejected.at("asks for a MIG slice; no GPU is in MIG mode"), 1);
  EXPECT_EQ(result.jobs, 1);
  EXPECT_FALSE(result.mig);
  const ReplayResult unknown = run({slice_job("a", 0, "1g.5gb", 10)}, MigPool(a100_80gb(), 1));
  EXPECT_EQ(unknown.rejected.at("MIG profile not in the MIG-mode GPUs' set (a100-80gb)"), 1);
}

TEST(MigReplay, EasyBackfillsSlicesAroundAReservedWholeGpuInstance) {
  const std::vector<JobSpec> jobs{slice_job("a", 0, "4g.40gb", 100), slice_job("b", 1, "7g.80gb", 10),
                                  slice_job("c", 2, "1g.10gb", 50), slice_job("d", 3, "1g.10gb", 200)};
  const ReplayResult easy = run(jobs, MigPool(a100_80gb(), 1), "easy");
  EXPECT_EQ(easy.outcomes[2].start, 2);    // ends at 52, before b's reservation at 100
  EXPECT_EQ(easy.outcomes[1].start, 100);  // the head is not delayed
  EXPECT_EQ(easy.outcomes[3].start, 110);  // would run past 100 on a slice b needs
  const ReplayResult fifo = run(jobs, MigPool(a100_80gb(), 1), "fifo");
  EXPECT_EQ(fifo.outcomes[2].start, 110);
}

TEST(MigReplay, WithoutMigJobsTheResultIsUnchanged) {
  const std::vector<JobSpec> jobs{gpu_job("a", 0, 3, 10), gpu_job("b", 1, 4, 10), gpu_job("c", 2, 1, 5)};
  ReplayOptions options;
  options.interval = 10;
  const ReplayResult plain = replay(jobs, GpuPool::uniform(1, 4), *make_queue_policy("easy"), options);
  const ReplayResult with_pool =
      replay(jobs, GpuPool::uniform(1, 4), MigPool(a100_80gb(), 8), *make_queue_policy("easy"), options);
  ASSERT_EQ(plain.outcomes.size(), with_pool.outcomes.size());
  for (std::size_t i = 0; i < jobs.size(); ++i)
    EXPECT_EQ(plain.outcomes[i].start, with_pool.outcomes[i].start);
  EXPECT_EQ(plain.utilisation, with_pool.utilisation);
  EXPECT_EQ(with_pool.mig->utilisation, 0);
}

}  // namespace
}  // namespace gputwin
