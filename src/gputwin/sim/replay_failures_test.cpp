// Failures, checkpoints, spares and maintenance in the replay: hand-computed small cases, the seeded failure
// streams, the scopes' units, and the located errors of bad failure options.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "gputwin/sim/checkpoint_interval.hpp"
#include "gputwin/sim/checkpoint_policies.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/maintenance.hpp"
#include "gputwin/sim/out_of_service.hpp"
#include "gputwin/sim/process_failures.hpp"
#include "gputwin/sim/replay_engine.hpp"
#include "gputwin/sim/sim_test_support.hpp"

namespace gputwin {
namespace {

using testing::every;
using testing::job;

ReplayModels checkpointed(std::vector<NodeEvent> events, double interval, double write, double restart) {
  ReplayModels models;
  models.failures = std::make_unique<testing::ScriptedFailures>(std::move(events));
  models.checkpoints = make_checkpoint_policy("interval", CheckpointSettings{interval, write, restart, {}});
  return models;
}

// A 100 s job on node 0 checkpoints every 30 s of work; node 0 fails at t = 70 (work 70 done, 60 kept). It
// restarts at once on node 1, pays the 5 s restart and does the 40 s left: it ends at 115, later than 100 by
// exactly the lost work (10 s) and the restart (5 s).
TEST(ReplayFailures, AJobOnAFailedNodeRestartsFromItsLastCheckpoint) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(
      jobs, GpuPool::uniform(2, 4), std::nullopt, *fifo, every(50),
      checkpointed({{70, 0, false, "gpu", false, false}, {1000, 0, true, "gpu", false, false}}, 30, 0, 5));
  const ReplayResult result = engine.run();
  ASSERT_EQ(result.completed, 1);
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 100 + 10 + 5);
  EXPECT_EQ(result.outcomes[0].interruptions, 1);
  EXPECT_DOUBLE_EQ(result.outcomes[0].held_s, 115);
  ASSERT_TRUE(result.failures);
  const FailureMetrics& failures = *result.failures;
  EXPECT_EQ(failures.interruptions, 1);
  ASSERT_EQ(failures.by_cause.size(), 1U);
  EXPECT_EQ(failures.by_cause[0].cause, "gpu");
  EXPECT_DOUBLE_EQ(failures.lost_work_gpu_hours, 10 * 4 / 3600.0);
  EXPECT_DOUBLE_EQ(failures.restart_gpu_hours, 5 * 4 / 3600.0);
  EXPECT_DOUBLE_EQ(failures.repair_wait_gpu_hours, 0);
  EXPECT_DOUBLE_EQ(failures.allocated_gpu_hours, 115 * 4 / 3600.0);
  EXPECT_DOUBLE_EQ(failures.goodput, 100.0 / 115);
  ASSERT_TRUE(failures.ettr);
  EXPECT_DOUBLE_EQ(*failures.ettr, 100.0 / 115);
}

// The same job on one node: it waits for the repair (t = 70 to 90) before restarting: 20 s x 4 GPUs waiting.
// The summaries count what really ran: 115 s x 4 GPUs, not the trace's 100 s.
TEST(ReplayFailures, SummariesAfterAnInterruptionCountWhatRan) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(
      jobs, GpuPool::uniform(1, 4), std::nullopt, *fifo, every(50),
      checkpointed({{70, 0, false, "gpu", false, false}, {90, 0, true, "gpu", false, false}}, 30, 0, 5));
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 90 + 5 + 40);
  ASSERT_EQ(result.by_group.size(), 1U);
  EXPECT_DOUBLE_EQ(result.by_group[0].gpu_hours, (70 + 45) * 4 / 3600.0);
  EXPECT_DOUBLE_EQ(result.utilisation, (70 + 45) * 4 / (135.0 * 4));
  EXPECT_DOUBLE_EQ(result.failures->repair_wait_gpu_hours, 20 * 4 / 3600.0);
  EXPECT_DOUBLE_EQ(result.failures->availability, (135 - 20) / 135.0);
  EXPECT_EQ(result.jobs_interrupted, 1);
  EXPECT_DOUBLE_EQ(result.wait.mean, 0);  // waits are to the first start
}

// Writing a 10 s checkpoint every 30 s of work runs the job at 30 / 40 of its speed: 90 s of work take 120 s.
TEST(ReplayFailures, CheckpointWritesSlowTheJob) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 90)};
  const auto fifo = make_queue_policy("fifo");
  ReplayEngine engine(jobs, GpuPool::uniform(1, 4), std::nullopt, *fifo, every(50),
                      checkpointed({}, 30, 10, 0));
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 120);
  EXPECT_NEAR(result.failures->checkpoint_gpu_hours, 30 * 4 / 3600.0, 1e-12);
  EXPECT_DOUBLE_EQ(result.failures->goodput, 90.0 / 120);
}

// EASY plans a restarted job by the work it has left. 4 nodes x 4 GPUs, perfect foresight. r (1000 s) runs on
// node 0 and l (5000 s) on node 1; node 0 fails at 500 (checkpoints every 100 s: 500 s of work kept) and r
// restarts at once on a free node, paying 50 s: it is expected to end at 500 + 50 + 500 = 1050, not at
// 500 + 1000. Head h (8 GPUs for 5000 s, at 600) reserves the 4 free GPUs and r's 4 at 1050 with none to
// spare, so b (4 GPUs, 700 s, at 601) would end after the reservation and must not backfill; by r's full run
// time (1500) it would. h starts when r ends; b when node 0 is back at 2000.
TEST(ReplayFailures, EasyReservesARestartedJobsGpusForItsRemainingRunTime) {
  const std::vector<JobSpec> jobs{job("r", 0, 4, 1000), job("l", 0, 4, 5000), job("h", 600, 8, 5000),
                                  job("b", 601, 4, 700)};
  const auto easy = make_queue_policy("easy");
  ReplayEngine engine(
      jobs, GpuPool::uniform(4, 4), std::nullopt, *easy, every(3600),
      checkpointed({{500, 0, false, "gpu", false, false}, {2000, 0, true, "gpu", false, false}}, 100, 0, 50));
  const ReplayResult result = engine.run();
  ASSERT_EQ(result.completed, 4);
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 1050);
  EXPECT_DOUBLE_EQ(result.outcomes[2].start, 1050);
  EXPECT_DOUBLE_EQ(result.outcomes[3].start, 2000);
}

std::vector<JobSpec> busy_trace() {
  std::vector<JobSpec> jobs;
  for (int j = 0; j < 200; ++j) {
    jobs.push_back(job("j" + std::to_string(j), 600.0 * j, 1 << (j % 5), 3600.0 * (1 + (j * 7) % 11)));
  }
  return jobs;
}

ReplayTopology leaves(std::vector<int> leaf_of_node) {
  ReplayTopology topology;
  topology.gpus_per_node = 8;
  for (std::size_t n = 0; n < leaf_of_node.size(); ++n)
    topology.domain_of_node.push_back(static_cast<int>(n));
  topology.leaf_of_node = std::move(leaf_of_node);
  return topology;
}

FailureProcess node_process(double mtbf_hours, double repair_hours) {
  FailureProcess process;
  process.cause = "node";
  process.scope = FailureScope::node;
  process.rate_per_unit_hour = 1 / mtbf_hours;
  process.repair_hours = repair_hours;
  return process;
}

ReplayResult replay_with_failures(const std::vector<JobSpec>& jobs, std::uint64_t seed) {
  const auto fifo = make_queue_policy("fifo");
  ReplayModels models;
  models.failures = make_process_failures({node_process(100, 8)}, leaves(std::vector<int>(8, 0)), seed);
  return ReplayEngine(jobs, GpuPool::uniform(8, 8), std::nullopt, *fifo, every(3600), std::move(models))
      .run();
}

TEST(ReplayFailures, TheSameSeedGivesTheSameReplayAndAnotherSeedAnother) {
  const std::vector<JobSpec> jobs = busy_trace();
  const ReplayResult first = replay_with_failures(jobs, 7);
  const ReplayResult again = replay_with_failures(jobs, 7);
  const ReplayResult other = replay_with_failures(jobs, 8);
  ASSERT_GT(first.interruptions, 0);
  EXPECT_EQ(first.interruptions, again.interruptions);
  bool same_as_other = first.interruptions == other.interruptions;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_EQ(first.outcomes[j].end, again.outcomes[j].end) << j;
    same_as_other = same_as_other && first.outcomes[j].end == other.outcomes[j].end;
  }
  EXPECT_FALSE(same_as_other);
  EXPECT_EQ(first.completed, 200);
}

// A unit's failure times come from its own stream: they do not depend on what else is drawn, and their mean
// is the process's (1 / rate), exponential or Weibull.
// The shortcut to a stream's first draw is the standard engine's first output, for seeds across the range.
TEST(ReplayFailures, TheFirstDrawShortcutIsTheEnginesFirstOutput) {
  std::uint64_t seed = 0;
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(first_mt19937_64(seed), std::mt19937_64(seed)()) << "seed " << seed;
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;  // spread the seeds over 64 bits
  }
  EXPECT_EQ(first_mt19937_64(UINT64_MAX), std::mt19937_64(UINT64_MAX)());
}

TEST(ReplayFailures, FailureTimesHaveTheProcesssMean) {
  FailureProcess weibull = node_process(50, 1);
  weibull.weibull_shape = 0.7;
  for (const FailureProcess& process : {node_process(50, 1), weibull}) {
    double sum = 0;
    const int draws = 20000;
    for (int d = 0; d < draws; ++d)
      sum += time_to_failure_s(process, 3, 0, d % 10, static_cast<std::uint64_t>(d));
    EXPECT_NEAR(sum / draws / 3600, 50, 50 * 0.05) << process.weibull_shape;
  }
  EXPECT_EQ(time_to_failure_s(node_process(50, 1), 3, 1, 2, 5),
            time_to_failure_s(node_process(50, 1), 3, 1, 2, 5));
}

TEST(ReplayFailures, ALeafSwitchFailureTakesOutExactlyItsLeafsNodes) {
  FailureProcess leaf;
  leaf.cause = "leaf-switch";
  leaf.scope = FailureScope::leaf_switch;
  leaf.rate_per_unit_hour = 0.01;
  leaf.repair_hours = 4;
  const ReplayTopology topology = leaves({0, 0, 0, 1, 1, 2, 2, 2});
  auto model = make_process_failures({leaf}, topology, 11);
  const NodeEvent first = *model->next_event(0);
  std::set<int> down{first.node};
  std::optional<NodeEvent> event;
  while ((event = model->next_event(0)) && event->time == first.time && !event->up) down.insert(event->node);
  const int struck = topology.leaf_of_node[static_cast<std::size_t>(first.node)];
  std::set<int> expected;
  for (int n = 0; n < 8; ++n) {
    if (topology.leaf_of_node[static_cast<std::size_t>(n)] == struck) expected.insert(n);
  }
  EXPECT_EQ(down, expected);
  EXPECT_EQ(first.cause, "leaf-switch");
}

TEST(ReplayFailures, AJobFaultInterruptsTheJobAndLeavesTheNodeInService) {
  const std::vector<JobSpec> jobs{job("a", 0, 4, 100)};
  const auto fifo = make_queue_policy("fifo");
  NodeEvent fault{40, 0, false, "nccl-timeout", true, false};
  ReplayEngine engine(jobs, GpuPool::uniform(1, 4), std::nullopt, *fifo, every(50),
                      checkpointed({fault}, 25, 0, 2));
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 40 + 2 + 75);  // 25 kept, 75 left; restarted at once on node 0
  EXPECT_DOUBLE_EQ(result.failures->availability, 1);
  EXPECT_EQ(result.failures->by_cause.at(0).cause, "nccl-timeout");
}

// Three nodes, one a hot spare. Node 0 fails at t = 10: the spare stands in at once and the 2-node job
// restarts at t = 10, not when node 0 is repaired (t = 500); node 0 then joins the spares.
TEST(ReplayFailures, SparesKeepCapacity) {
  const std::vector<JobSpec> jobs{job("a", 0, 2, 100), job("b", 200, 2, 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayModels models;
  models.failures = std::make_unique<testing::ScriptedFailures>(
      std::vector<NodeEvent>{{10, 0, false, "gpu", false, false}, {250, 0, true, "gpu", false, false}});
  models.spare_nodes = 1;
  ReplayEngine engine(jobs, GpuPool::uniform(3, 1), std::nullopt, *fifo, every(50), std::move(models));
  engine.run_until(5);
  EXPECT_TRUE(engine.pool().node_down(2));  // held as a spare
  engine.run_until(11);
  EXPECT_FALSE(engine.pool().node_down(2));
  EXPECT_EQ(engine.job_run(0).state, JobRunState::running);
  engine.run_until(260);
  EXPECT_TRUE(engine.pool().node_down(0));  // repaired, back among the spares
  const ReplayResult result = engine.run();
  EXPECT_DOUBLE_EQ(result.outcomes[0].end, 110);
  EXPECT_DOUBLE_EQ(result.failures->availability, 1);
  EXPECT_EQ(result.failures->spare_nodes, 1);
}

TEST(ReplayFailures, MaintenanceDrainsByMode) {
  const ReplayTopology topology = leaves({0, 0, 1, 1});
  const MaintenanceWindows rolling = parse_maintenance("every=10d,duration=8h,mode=rolling");
  auto model = make_maintenance(rolling, topology);
  const double opens = 10 * 86400.0;
  const double hours8 = 8 * 3600.0;
  const std::vector<std::tuple<double, int, bool>> expected{{opens, 0, false},
                                                            {opens, 1, false},
                                                            {opens + hours8, 0, true},
                                                            {opens + hours8, 1, true},
                                                            {opens + hours8, 2, false},
                                                            {opens + hours8, 3, false},
                                                            {opens + 2 * hours8, 2, true},
                                                            {opens + 2 * hours8, 3, true},
                                                            {2 * opens, 0, false}};
  for (const auto& [time, node, up] : expected) {
    const NodeEvent event = *model->next_event(0);
    EXPECT_EQ(event.time, time);
    EXPECT_EQ(event.node, node);
    EXPECT_EQ(event.up, up);
    EXPECT_TRUE(event.planned);
    EXPECT_EQ(event.cause, "maintenance");
  }
  auto all = make_maintenance(parse_maintenance("every=10d,duration=8h,mode=all"), topology);
  for (int node = 0; node < 4; ++node) {
    const NodeEvent event = *all->next_event(0);
    EXPECT_EQ(event.time, opens);
    EXPECT_EQ(event.node, node);
    EXPECT_FALSE(event.up);
  }
  EXPECT_EQ(all->next_event(0)->time, opens + hours8);
}

TEST(ReplayFailures, BadFailureOptionsAreRefusedNamingTheOption) {
  EXPECT_DOUBLE_EQ(parse_failure_rate_per_hour("6.5/1000/day", "--node-failure-rate"), 6.5 / 1000 / 24);
  EXPECT_DOUBLE_EQ(parse_duration_s("48h", "--repair"), 48 * 3600);
  for (const char* rate : {"6.5", "6.5/1000", "6.5/1000/fortnight", "x/day"}) {
    try {
      (void)parse_failure_rate_per_hour(rate, "--node-failure-rate");
      FAIL() << rate << " must be refused";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()).rfind("--node-failure-rate: ", 0), 0U) << error.what();
    }
  }
  EXPECT_THROW((void)parse_duration_s("48", "--repair"), std::invalid_argument);
  EXPECT_THROW((void)parse_maintenance("every=8h,duration=9h,mode=all"), std::invalid_argument);
  EXPECT_THROW((void)parse_maintenance("every=90d,duration=8h"), std::invalid_argument);
  EXPECT_THROW(
      (void)make_maintenance(parse_maintenance("every=1d,duration=10h,mode=rolling"), leaves({0, 1, 2})),
      std::invalid_argument);  // three 10 h drains do not fit in a day
  EXPECT_THROW((void)make_process_failures({node_process(100, 0)}, leaves({0}), 1), std::invalid_argument);
}

// A job on more nodes sees more failures, so Daly's optimum interval shrinks with its size.
TEST(CheckpointInterval, YoungDalyPolicyUsesTheMtbfTheJobsNodesSee) {
  const std::vector<FailureProcess> processes{node_process(1000, 8)};
  const ReplayTopology topology = leaves(std::vector<int>(16, 0));
  EXPECT_DOUBLE_EQ(failures_per_hour_seen(processes, topology, 64), 8 / 1000.0);
  CheckpointSettings settings{
      0, 60, 0, [&](const JobSpec& spec) { return failures_per_hour_seen(processes, topology, spec.gpus); }};
  const auto policy = make_checkpoint_policy("young-daly", settings);
  const double small = 3600 * daly_interval_hours(60 / 3600.0, 1000);
  const double large = 3600 * daly_interval_hours(60 / 3600.0, 1000 / 8.0);
  EXPECT_NEAR(policy->rate(job("s", 0, 8, 1)), small / (small + 60), 1e-12);
  EXPECT_NEAR(policy->rate(job("l", 0, 64, 1)), large / (large + 60), 1e-12);
  EXPECT_NEAR(policy->work_kept(job("l", 0, 64, 1), 2.5 * large), 2 * large, 1e-6);
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

ReplayTopology named(std::vector<std::string> hosts) {
  ReplayTopology topology = leaves(std::vector<int>(hosts.size(), 0));
  topology.host_names = std::move(hosts);
  return topology;
}

TEST(ReplayOutOfService, DrainWorthyFindingsPutTheirNodesOut) {
  const std::string text = R"({"schema": "gputwin.validate/1", "findings": [
    {"rule": "dcgm-diag-fail", "node": "n2"}, {"rule": "ecc-uncorrectable", "node": "n2"},
    {"rule": "clocks-throttled", "node": "n1"}, {"rule": "row-remap-failure", "node": "n3"}]})";
  const auto nodes = out_of_service_nodes(text, "v.json", named({"n1", "n2", "n3"}));
  ASSERT_TRUE(nodes.ok()) << nodes.error_text();
  const std::vector<std::pair<int, std::string>> expected{{1, "dcgm-diag-fail on n2"},
                                                          {2, "row-remap-failure on n3"}};
  EXPECT_EQ(nodes.value(), expected);
}

TEST(ReplayOutOfService, AnUnknownHostIsALocatedError) {
  const std::string text =
      "{\"schema\": \"gputwin.validate/1\",\n\"findings\": [\n{\"rule\": \"dcgm-diag-fail\", "
      "\"node\": \"n9\"}]}";
  const auto nodes = out_of_service_nodes(text, "v.json", named({"n1"}));
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.error_text().find("v.json"), std::string::npos) << nodes.error_text();
  EXPECT_NE(nodes.error_text().find("findings/0/node"), std::string::npos) << nodes.error_text();
  EXPECT_NE(nodes.error_text().find("n9"), std::string::npos) << nodes.error_text();
}

TEST(ReplayOutOfService, OutOfServiceNodesStayOutAndCountAgainstAvailability) {
  const std::vector<JobSpec> jobs{job("a", 0, 8, 100)};
  const auto fifo = make_queue_policy("fifo");
  ReplayModels models;
  models.out_of_service = {{0, "ecc-uncorrectable on n1"}};
  ReplayEngine engine(jobs, GpuPool::uniform(2, 8), std::nullopt, *fifo, every(50), std::move(models));
  const ReplayResult result = engine.run();
  EXPECT_TRUE(engine.pool().node_down(0));
  EXPECT_DOUBLE_EQ(result.failures->availability, 0.5);
  EXPECT_EQ(result.failures->out_of_service_nodes, 1);
}

}  // namespace
}  // namespace gputwin
