// MIG-mode nodes under failures: the MIG pool's nodes go down and come back, a failed node interrupts exactly
// the jobs on its GPUs' slices (which restart from their checkpoint like whole-GPU jobs), and seeded failure
// processes strike MIG-mode nodes as they strike whole-GPU ones.
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/report/replay_report.hpp"
#include "gputwin/sim/checkpoint_policies.hpp"
#include "gputwin/sim/failure_setup.hpp"
#include "gputwin/sim/replay_engine.hpp"
#include "gputwin/sim/sim_test_support.hpp"
#include "gputwin/sim/simulated_cluster.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::every;
using testing::job;

const MigProfileSet& a100_80gb() {
  return bundled_catalog().get<MigProfileSet>("a100-80gb");
}

JobSpec slice_job(const std::string& id, double submit, const std::string& profile, double duration) {
  JobSpec spec;
  spec.id = id;
  spec.submit_time = submit;
  spec.mig_profile = profile;
  spec.duration = duration;
  return spec;
}

ReplayModels checkpointed(std::vector<NodeEvent> events, double interval, double restart) {
  ReplayModels models;
  models.failures = std::make_unique<testing::ScriptedFailures>(std::move(events));
  models.checkpoints = make_checkpoint_policy("interval", CheckpointSettings{interval, 0, restart, {}});
  return models;
}

TEST(MigPoolNodes, ANodeDownTakesNoSliceUntilItIsBack) {
  const int one_g = *mig_profile_index(a100_80gb(), "1g.10gb");
  MigPool pool = MigPool::on_nodes(a100_80gb(), /*nodes=*/2, /*gpus_per_node=*/2);
  ASSERT_EQ(pool.nodes(), 2);
  EXPECT_EQ(pool.node_of(3), 1);
  const std::optional<MigSlice> first = pool.allocate(one_g);
  ASSERT_TRUE(first);
  EXPECT_EQ(pool.node_of(first->gpu), 0);
  pool.set_node_down(0);
  EXPECT_EQ(pool.down_gpus(), 2);
  EXPECT_EQ(pool.busy_compute_slices(), 1);  // the slice stays busy until the caller releases it
  EXPECT_EQ(pool.usable_compute_slices(), 2 * 7);
  EXPECT_EQ(pool.stranded_compute_slices(), 0);  // down GPUs are neither usable nor stranded
  for (int i = 0; i < 14; ++i) {
    const std::optional<MigSlice> slice = pool.allocate(one_g);
    ASSERT_TRUE(slice) << i;
    EXPECT_EQ(pool.node_of(slice->gpu), 1) << i;
  }
  EXPECT_FALSE(pool.allocate(one_g));  // node 1 full, node 0 down
  pool.release(*first);
  EXPECT_EQ(pool.busy_compute_slices(), 14);
  EXPECT_FALSE(pool.allocate(one_g));  // released on a down node: still out of service
  pool.set_node_up(0);
  EXPECT_EQ(pool.down_gpus(), 0);
  EXPECT_EQ(pool.usable_compute_slices(), 14);
  const std::optional<MigSlice> back = pool.allocate(one_g);
  ASSERT_TRUE(back);
  EXPECT_EQ(pool.node_of(back->gpu), 0);
}

// One whole-GPU node (node 0) and two MIG-mode nodes of one A100-80GB each (nodes 1 and 2). Fourteen 1g.10gb
// jobs of 100 s fill both GPUs; node 1 fails at t = 50. The seven jobs on its slices (and only they) are
// interrupted, keep 40 s of work (20 s checkpoints), wait for node 2's slices to free at t = 100, pay the
// 5 s restart and do their 60 s left: they end at 165.
TEST(MigFailures, AFailedMigNodeInterruptsExactlyTheJobsOnItsSlices) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 14; ++i) jobs.push_back(slice_job("s" + std::to_string(i), 0, "1g.10gb", 100));
  jobs.push_back(job("whole", 0, 8, 30));
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(
      jobs, GpuPool::uniform(1, 8), MigPool::on_nodes(a100_80gb(), 2, 1), *fifo, every(50),
      checkpointed({{50, 1, false, "gpu", false, false}, {1000, 1, true, "gpu", false, false}},
                   /*interval=*/20, /*restart=*/5));
  ASSERT_EQ(engine.node_count(), 3);
  engine.run_until(49);
  ASSERT_NE(engine.mig(), nullptr);
  const std::vector<int> on_node_1 = engine.mig()->jobs_on_node(0);
  ASSERT_EQ(on_node_1.size(), 7U);
  const std::set<int> hit(on_node_1.begin(), on_node_1.end());
  const ReplayResult result = engine.run();
  EXPECT_EQ(result.completed, 15);
  EXPECT_EQ(result.interruptions, 7);
  for (int i = 0; i < 14; ++i) {
    const bool was_hit = hit.count(i) > 0;
    EXPECT_EQ(result.outcomes[i].interruptions, was_hit ? 1 : 0) << i;
    EXPECT_DOUBLE_EQ(result.outcomes[i].end, was_hit ? 165 : 100) << i;
  }
  EXPECT_EQ(result.outcomes[14].interruptions, 0);  // the whole-GPU node did not fail
  ASSERT_TRUE(result.failures);
  const FailureMetrics& failures = *result.failures;
  ASSERT_EQ(failures.by_cause.size(), 1U);
  EXPECT_EQ(failures.by_cause[0].interruptions, 7);
  // A 1g slice is 1/7 of a GPU: 7 jobs x 10 s lost, 5 s restarting, 50 s waiting, each at 1/7 GPU.
  EXPECT_NEAR(failures.lost_work_gpu_hours, 10 / 3600.0, 1e-12);
  EXPECT_NEAR(failures.restart_gpu_hours, 5 / 3600.0, 1e-12);
  EXPECT_NEAR(failures.repair_wait_gpu_hours, 50 / 3600.0, 1e-12);
  // 10 GPUs from t = 0 to 165; node 1's GPU out from 50 on.
  EXPECT_NEAR(failures.availability, 1 - 115.0 / (10 * 165.0), 1e-12);
  // The interval rows count the MIG GPU out of service: half of [50, 100) and [100, 150), the rest of 150+.
  ASSERT_GE(result.intervals.size(), 3U);
  EXPECT_DOUBLE_EQ(result.intervals[0].down_gpus, 0);
  EXPECT_DOUBLE_EQ(result.intervals[1].down_gpus, 1);
}

// A job-only fault (software) on a MIG-mode node restarts the jobs on its slices; the node stays in service,
// so they start again at once, on the same GPU.
TEST(MigFailures, AJobOnlyFaultRestartsTheSliceJobsInPlace) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(slice_job("s" + std::to_string(i), 0, "2g.20gb", 100));
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 8), MigPool::on_nodes(a100_80gb(), 2, 1), *fifo, every(50),
                      checkpointed({{30, 2, false, "software", true, false}}, 20, 5));
  engine.run_until(29);
  const std::vector<int> on_node_2 = engine.mig()->jobs_on_node(1);
  const std::vector<int> on_node_1 = engine.mig()->jobs_on_node(0);
  ASSERT_EQ(on_node_1.size() + on_node_2.size(), 3U);
  const ReplayResult result = engine.run();
  EXPECT_EQ(result.interruptions, static_cast<int>(on_node_2.size()));
  for (const int index : on_node_2) EXPECT_DOUBLE_EQ(result.outcomes[index].end, 30 + 5 + 80) << index;
  for (const int index : on_node_1) EXPECT_DOUBLE_EQ(result.outcomes[index].end, 100) << index;
}

ReplayResult seeded_mig_replay(std::uint64_t seed) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 60; ++i) {
    jobs.push_back(
        slice_job("s" + std::to_string(i), i * 600.0, i % 3 == 0 ? "3g.40gb" : "1g.10gb", 20 * 3600));
  }
  for (int i = 0; i < 10; ++i) jobs.push_back(job("w" + std::to_string(i), i * 3600.0, 8, 30 * 3600));
  MigNodes mig{2, a100_80gb(), std::nullopt};
  SimulatedCluster cluster = uniform_simulated_cluster(/*nodes=*/4, /*gpus_per_node=*/8, mig);
  EXPECT_EQ(cluster.topology.leaf_of_node.size(), 4U);  // MIG-mode nodes are in the failure topology
  FailureSetup setup;
  setup.node_mtbf = "40h";
  setup.repair = "6h";
  setup.failure_seed = seed;
  setup.checkpoint_interval = "30min";
  setup.restart = "5min";
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, cluster.whole, cluster.mig, *fifo, every(3600),
                      make_replay_models(setup, cluster.topology, std::nullopt));
  return engine.run();
}

int slice_interruptions(const ReplayResult& result) {
  int count = 0;
  for (int i = 0; i < 60; ++i) count += result.outcomes[i].interruptions;
  return count;
}

TEST(MigFailures, SeededNodeFailuresStrikeMigNodesTheSameWayEachRun) {
  const ReplayResult first = seeded_mig_replay(7);
  const ReplayResult again = seeded_mig_replay(7);
  const ReplayResult other = seeded_mig_replay(8);
  EXPECT_GT(slice_interruptions(first), 0);
  EXPECT_EQ(first.completed, 70);
  EXPECT_EQ(replay_json(first).dump(), replay_json(again).dump());
  EXPECT_NE(replay_json(first).dump(), replay_json(other).dump());
}

// MIG hot spares. One whole-GPU node (node 0) and MIG-mode nodes of one A100-80GB each; fourteen 1g.10gb jobs
// of 1000 s fill two MIG GPUs; node 1 fails at t = 50 and is repaired at t = 300. Its seven jobs keep 40 s of
// work (20 s checkpoints) and pay a 5 s restart. Without a spare they wait for the repair: 300 + 5 + 960 =
// 1265. With the last MIG-mode node held as a spare it stands in at t = 50 and they restart there at once:
// 50 + 5 + 960 = 1015.
struct MigSpareRun {
  ReplayResult result;
  std::set<int> hit;                // the jobs on node 1 before it failed
  std::vector<int> on_spare_at_60;  // the jobs on the spare (MIG-mode node 2) at t = 60
};

MigSpareRun mig_spare_run(int mig_nodes, int mig_spares) {
  static std::vector<JobSpec> jobs = [] {
    std::vector<JobSpec> list;
    for (int i = 0; i < 14; ++i) list.push_back(slice_job("s" + std::to_string(i), 0, "1g.10gb", 1000));
    return list;
  }();
  const auto fifo = make_queue_policy("fifo");
  ReplayModels models =
      checkpointed({{50, 1, false, "gpu", false, false}, {300, 1, true, "gpu", false, false}},
                   /*interval=*/20, /*restart=*/5);
  models.mig_spare_nodes = mig_spares;
  ReplayEngine engine(jobs, GpuPool::uniform(1, 8), MigPool::on_nodes(a100_80gb(), mig_nodes, 1), *fifo,
                      every(100), std::move(models));
  MigSpareRun run;
  engine.run_until(49);
  for (const int index : engine.mig()->jobs_on_node(0)) run.hit.insert(index);
  engine.run_until(60);
  if (mig_nodes > 2) run.on_spare_at_60 = engine.mig()->jobs_on_node(2);
  run.result = engine.run();
  return run;
}

TEST(MigSpares, AFailedMigNodesSliceJobsRestartOnTheSpareAtOnce) {
  const MigSpareRun run = mig_spare_run(/*mig_nodes=*/3, /*mig_spares=*/1);
  ASSERT_EQ(run.hit.size(), 7U);
  EXPECT_EQ(std::set<int>(run.on_spare_at_60.begin(), run.on_spare_at_60.end()), run.hit);
  const ReplayResult& result = run.result;
  EXPECT_EQ(result.completed, 14);
  EXPECT_EQ(result.interruptions, 7);
  for (int i = 0; i < 14; ++i) {
    EXPECT_DOUBLE_EQ(result.outcomes[i].end, run.hit.count(i) > 0 ? 1015 : 1000) << i;
  }
  ASSERT_TRUE(result.failures);
  EXPECT_EQ(result.failures->mig_spare_nodes, 1);
  EXPECT_EQ(result.failures->spare_nodes, 0);
  EXPECT_NEAR(result.failures->repair_wait_gpu_hours, 0, 1e-12);  // no wait: the spare stood in
  // 11 GPUs, one held as a spare; one GPU is out at every moment (the spare, then node 1, then node 1 as the
  // new spare), so every schedulable GPU-hour is in service.
  EXPECT_NEAR(result.failures->availability, 1, 1e-12);
  EXPECT_EQ(replay_json(result)["failures"]["mig_spare_nodes"], 1);
}

TEST(MigSpares, WithoutASpareTheSliceJobsWaitForTheRepair) {
  const MigSpareRun run = mig_spare_run(/*mig_nodes=*/2, /*mig_spares=*/0);
  ASSERT_EQ(run.hit.size(), 7U);
  const ReplayResult& result = run.result;
  EXPECT_EQ(result.interruptions, 7);
  for (int i = 0; i < 14; ++i) {
    EXPECT_DOUBLE_EQ(result.outcomes[i].end, run.hit.count(i) > 0 ? 1265 : 1000) << i;
  }
  ASSERT_TRUE(result.failures);
  // 7 jobs x 250 s waiting for the repair, at 1/7 GPU each.
  EXPECT_NEAR(result.failures->repair_wait_gpu_hours, 250 / 3600.0, 1e-12);
  EXPECT_FALSE(replay_json(result)["failures"].contains("mig_spare_nodes"));
}

// Whole-GPU spares do not stand in for MIG-mode nodes, nor MIG spares for whole-GPU nodes.
TEST(MigSpares, SparesStandInOnlyForNodesOfTheirKind) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 7; ++i) jobs.push_back(slice_job("s" + std::to_string(i), 0, "1g.10gb", 1000));
  jobs.push_back(job("whole", 0, 8, 1000));
  const auto fifo = make_queue_policy("fifo");
  ReplayModels models = checkpointed({{50, 0, false, "gpu", false, false},
                                      {50, 2, false, "gpu", false, false},
                                      {300, 0, true, "gpu", false, false},
                                      {300, 2, true, "gpu", false, false}},
                                     20, 5);
  models.spare_nodes = 1;      // node 1: a whole-GPU spare
  models.mig_spare_nodes = 1;  // node 3: a MIG spare
  ReplayEngine engine(jobs, GpuPool::uniform(2, 8), MigPool::on_nodes(a100_80gb(), 2, 1), *fifo, every(100),
                      std::move(models));
  engine.run_until(60);
  EXPECT_EQ(engine.pool().owners_on(1), (std::vector<int>{7}));  // the whole-GPU job on the whole-GPU spare
  EXPECT_EQ(engine.mig()->jobs_on_node(1).size(), 7U);           // the slice jobs on the MIG spare
  const ReplayResult result = engine.run();
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(result.outcomes[i].end, 1015) << i;
}

TEST(MigSpares, AsManySparesAsMigNodesAreRefused) {
  const std::vector<JobSpec> jobs{slice_job("s", 0, "1g.10gb", 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayModels models;
  models.mig_spare_nodes = 2;
  EXPECT_THROW(ReplayEngine(jobs, GpuPool::uniform(1, 8), MigPool::on_nodes(a100_80gb(), 2, 1), *fifo,
                            every(50), std::move(models)),
               std::invalid_argument);
}

ReplayResult seeded_mig_spare_replay(std::uint64_t seed, int mig_spares) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 60; ++i) {
    jobs.push_back(
        slice_job("s" + std::to_string(i), i * 600.0, i % 3 == 0 ? "3g.40gb" : "1g.10gb", 20 * 3600));
  }
  MigNodes mig{3, a100_80gb(), std::nullopt};
  SimulatedCluster cluster = uniform_simulated_cluster(/*nodes=*/4, /*gpus_per_node=*/8, mig);
  FailureSetup setup;
  setup.node_mtbf = "40h";
  setup.repair = "12h";
  setup.failure_seed = seed;
  setup.checkpoint_interval = "30min";
  setup.restart = "5min";
  setup.mig_spare_nodes = mig_spares;
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, cluster.whole, cluster.mig, *fifo, every(3600),
                      make_replay_models(setup, cluster.topology, std::nullopt));
  return engine.run();
}

TEST(MigSpares, SeededReplaysWithMigSparesAreDeterministic) {
  const ReplayResult first = seeded_mig_spare_replay(7, 1);
  const ReplayResult again = seeded_mig_spare_replay(7, 1);
  EXPECT_GT(first.interruptions, 0);
  EXPECT_EQ(first.completed, 60);
  EXPECT_EQ(replay_json(first).dump(), replay_json(again).dump());
  EXPECT_NE(replay_json(first).dump(), replay_json(seeded_mig_spare_replay(7, 0)).dump());
}

TEST(MigFailures, NodesOutsideTheClusterAreRefused) {
  const std::vector<JobSpec> jobs{slice_job("s", 0, "1g.10gb", 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 8), MigPool::on_nodes(a100_80gb(), 1, 8), *fifo, every(50));
  EXPECT_THROW(engine.set_node_down(2), std::invalid_argument);
  EXPECT_EQ(engine.set_node_down(1), (std::vector<int>{}));  // the MIG node, before the job arrives
}

}  // namespace
}  // namespace gputwin
