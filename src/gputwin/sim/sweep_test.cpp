#include "gputwin/sim/sweep.hpp"

#include <gtest/gtest.h>

#include <set>

#include "gputwin/core/test_text.hpp"
#include "gputwin/sim/simulated_cluster.hpp"

namespace gputwin {
namespace {

const std::string kSweep = R"(name: test sweep
trace: {path: jobs.csv}
designs:
  - {name: a, nodes: 2}
  - {name: b, nodes: 4, gpus_per_node: 4}
policies: [fifo, easy]
variants:
  - {name: recorded}
  - {name: half, sample: 0.5, time_scale: 0.5}
seeds: [7, 8]
)";

std::string replaced(const std::string& from, const std::string& to) {
  return testing::replaced(kSweep, from, to);
}

std::vector<JobSpec> synthetic_jobs(int count) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < count; ++i) {
    JobSpec job;
    job.id = std::to_string(i);
    job.submit_time = 10.0 * i;
    job.duration = 100 + (i * 37) % 500;
    job.gpus = 1 << (i % 4);
    jobs.push_back(job);
  }
  return jobs;
}

TEST(Sweep, GridOrderDesignsThenPoliciesVariantsSeeds) {
  const auto sweep = parse_sweep(kSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(sweep.ok()) << sweep.error_text();
  const auto tasks = sweep_tasks(sweep.value());
  ASSERT_EQ(tasks.size(), 16u);
  EXPECT_EQ(tasks[5].design, 0);
  EXPECT_EQ(tasks[5].policy, 1);
  EXPECT_EQ(tasks[5].variant, 0);
  EXPECT_EQ(tasks[5].seed, 1);
  EXPECT_EQ(tasks[15].design, 1);
  EXPECT_EQ(sweep.value().trace_path, "/tmp/jobs.csv");  // relative to the sweep file
  EXPECT_EQ(sweep.value().designs[1].gpus_per_node, 4);
}

TEST(Sweep, BadFilesNameTheLineAndField) {
  const std::pair<std::string, std::string> cases[] = {
      {replaced("[fifo, easy]", "[fifo, lifo]"), "sweep.yaml:6:18: policies[1]: unknown queue policy 'lifo'"},
      {replaced("{name: a, nodes: 2}", "{name: a, nodes: 2, spec: x.yaml}"),
       "designs[0]: give exactly one of"},
      {replaced("{name: b,", "{name: a,"), "designs[1].name: the name 'a' is used twice"},
      {replaced("sample: 0.5", "sample: 1.5"), "variants[1].sample: a sample is a fraction"},
      {replaced("trace: {path: jobs.csv}\n", ""), "trace: missing required field"},
      {replaced("{name: a, nodes: 2}", "{name: a, spec: missing.yaml}"), "designs[0].spec: no such file"},
  };
  for (const auto& [text, message] : cases) {
    const auto sweep = parse_sweep(text, "sweep.yaml");
    ASSERT_FALSE(sweep.ok()) << text;
    EXPECT_NE(sweep.error_text().find(message), std::string::npos) << sweep.error_text();
  }
}

TEST(Sweep, VariantsAreSeededSamplesAndScaledArrivals) {
  const auto jobs = synthetic_jobs(10000);
  const TraceVariant half{"half", 0.5, 0.5};
  const auto first = apply_variant(jobs, half, 7);
  EXPECT_EQ(apply_variant(jobs, half, 7).size(), first.size());  // the same seed keeps the same jobs
  EXPECT_EQ(apply_variant(jobs, half, 7).front().id, first.front().id);
  EXPECT_NEAR(static_cast<double>(first.size()) / jobs.size(), 0.5, 0.02);
  EXPECT_NE(apply_variant(jobs, half, 8).front().id + std::to_string(apply_variant(jobs, half, 8).size()),
            first.front().id + std::to_string(first.size()));
  EXPECT_DOUBLE_EQ(first.front().submit_time, 10.0 * std::stoi(first.front().id) * 0.5);
  EXPECT_EQ(apply_variant(jobs, TraceVariant{"all"}, 1).size(), jobs.size());
}

TEST(Sweep, RowsDoNotDependOnTheNumberOfThreads) {
  const auto sweep = parse_sweep(kSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(sweep.ok());
  const auto jobs = synthetic_jobs(400);
  const std::vector<GpuPool> pools{GpuPool::uniform(2, 8), GpuPool::uniform(4, 4)};
  const auto one = run_sweep(sweep.value(), jobs, pools, 1);
  const auto three = run_sweep(sweep.value(), jobs, pools, 3);
  ASSERT_EQ(one.size(), 16u);
  ASSERT_EQ(three.size(), 16u);
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].task, static_cast<int>(i));
    EXPECT_EQ(three[i].task, static_cast<int>(i));
    EXPECT_EQ(one[i].mean_wait_s, three[i].mean_wait_s) << i;
    EXPECT_EQ(one[i].utilisation, three[i].utilisation) << i;
  }
  // The policy matters on a loaded cluster: EASY backfilling waits less than FIFO on the same jobs.
  EXPECT_EQ(one[0].policy, "fifo");
  EXPECT_EQ(one[4].policy, "easy");  // the same design, variant and seed as task 0
  EXPECT_LT(one[4].mean_wait_s, one[0].mean_wait_s);
}

// A sweep's EASY never plans with true durations unless told to: the data default, or the file's factor.
TEST(Sweep, RunTimeEstimateIsTheDataDefaultOrTheFilesFactor) {
  const auto by_default = parse_sweep(kSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(by_default.ok()) << by_default.error_text();
  EXPECT_GT(by_default.value().replay.run_time_estimate.factor, 1.0);
  EXPECT_NE(by_default.value().replay.run_time_estimate.source.find("runtime-estimates.yaml"),
            std::string::npos);
  const auto given = parse_sweep(kSweep + "runtime_estimate_factor: 1\n", "/tmp/sweep.yaml");
  ASSERT_TRUE(given.ok()) << given.error_text();
  EXPECT_DOUBLE_EQ(given.value().replay.run_time_estimate.factor, 1.0);
  EXPECT_NE(given.value().replay.run_time_estimate.source.find("perfect foresight"), std::string::npos);
  EXPECT_FALSE(parse_sweep(kSweep + "runtime_estimate_factor: 0\n", "/tmp/sweep.yaml").ok());
}

TEST(Sweep, JobsADesignCanNeverRunAreCountedAndADesignThatRunsNothingIsRefused) {
  auto sweep = parse_sweep(kSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(sweep.ok()) << sweep.error_text();
  std::vector<JobSpec> jobs = synthetic_jobs(20);  // 1, 2, 4 or 8 GPUs
  const std::vector<GpuPool> pools = {GpuPool::uniform(1, 2), GpuPool::uniform(4, 4)};
  const auto rows = run_sweep(sweep.value(), jobs, pools, 2, /*reader_skipped=*/3);
  for (const SweepRow& row : rows) {
    EXPECT_EQ(row.reader_skipped, 3);
    // Design a has 2 GPUs: the 4- and 8-GPU jobs can never run there; design b has 16.
    if (row.design == "a" && row.variant == "recorded") {
      EXPECT_EQ(row.never_run, 10);
    }
    if (row.design == "b") {
      EXPECT_EQ(row.never_run, 0);
    }
  }
  EXPECT_TRUE(sweep_refusals(rows).empty());

  std::vector<JobSpec> large = jobs;
  for (JobSpec& job : large) job.gpus = 8;
  const std::vector<GpuPool> small = {GpuPool::uniform(1, 2), GpuPool::uniform(4, 4)};
  const auto refused = sweep_refusals(run_sweep(sweep.value(), large, small, 2));
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0], "design 'a': no job can run on this cluster (20 in the trace can never run on it)");
}

// Sweeps with failures: seeds x checkpoint intervals x spare pools.

const std::string kFailureSweep = R"(name: failure sweep
trace: {path: jobs.csv}
designs:
  - {name: ten, nodes: 10}
policies: [fifo]
seeds: [1, 2, 3]
failures:
  node_mtbf: 300h
  repair: 24h
  checkpoint_write: 1min
  restart: 5min
  checkpoint_intervals: [30min, 4h, young-daly]
  spare_nodes: [0, 1, 2]
)";

// Long training jobs of 8 to 48 GPUs, so node failures strike them and 2 spares still leave room.
std::vector<JobSpec> training_jobs() {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 12; ++i) {
    JobSpec job;
    job.id = "train" + std::to_string(i);
    job.submit_time = 3600.0 * i;
    job.duration = 86400.0 * (1 + i % 3);
    job.gpus = 8 * (1 + i % 6);
    jobs.push_back(job);
  }
  return jobs;
}

std::string failure_sweep_with(const std::string& from, const std::string& to) {
  return testing::replaced(kFailureSweep, from, to);
}

TEST(SweepFailures, AxesMultiplyTheTasksSeedsInnermost) {
  const auto sweep = parse_sweep(kFailureSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(sweep.ok()) << sweep.error_text();
  const auto tasks = sweep_tasks(sweep.value());
  ASSERT_EQ(tasks.size(), 27u);  // 3 intervals x 3 spare pools x 3 seeds
  EXPECT_EQ(tasks[1].seed, 1);
  EXPECT_EQ(tasks[1].spares, 0);
  EXPECT_EQ(tasks[3].spares, 1);
  EXPECT_EQ(tasks[3].checkpoint, 0);
  EXPECT_EQ(tasks[9].checkpoint, 1);
  EXPECT_EQ(tasks[26].checkpoint, 2);
  EXPECT_EQ(tasks[26].spares, 2);
  EXPECT_EQ(tasks[26].seed, 2);
  // Without a failures block the grid is what it was.
  EXPECT_EQ(sweep_tasks(parse_sweep(kSweep, "/tmp/sweep.yaml").value()).size(), 16u);
}

TEST(SweepFailures, RowsAreDeterministicAndVaryAsTheyMust) {
  const auto sweep = parse_sweep(kFailureSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(sweep.ok()) << sweep.error_text();
  const SimulatedCluster cluster = uniform_simulated_cluster(10, 8);
  const std::vector<GpuPool> pools{cluster.whole};
  const std::vector<ReplayTopology> topologies{cluster.topology};
  const auto jobs = training_jobs();
  const auto one = run_sweep(sweep.value(), jobs, pools, 1, 0, topologies);
  const auto two = run_sweep(sweep.value(), jobs, pools, 2, 0, topologies);
  ASSERT_EQ(one.size(), 27u);
  std::set<int> interruptions_by_seed;
  for (std::size_t i = 0; i < one.size(); ++i) {
    ASSERT_TRUE(one[i].failures) << i;
    ASSERT_TRUE(two[i].failures) << i;
    EXPECT_EQ(one[i].failures->interruptions, two[i].failures->interruptions) << i;
    EXPECT_EQ(one[i].failures->goodput, two[i].failures->goodput) << i;
    EXPECT_EQ(one[i].mean_wait_s, two[i].mean_wait_s) << i;
    EXPECT_EQ(one[i].completed, 12) << i;
    if (i < 3) interruptions_by_seed.insert(one[i].failures->interruptions);
  }
  EXPECT_GT(interruptions_by_seed.size(), 1u) << "another seed, other failures";
  EXPECT_EQ(one[0].failures->checkpoint_interval, "30min");
  EXPECT_EQ(one[9].failures->checkpoint_interval, "4h");
  EXPECT_EQ(one[18].failures->checkpoint_interval, "young-daly");
  int interrupted = 0;
  for (int interval = 0; interval < 3; ++interval) {
    for (int seed = 0; seed < 3; ++seed) {
      const SweepRow& none = one[interval * 9 + seed];
      const SweepRow& some = one[interval * 9 + 3 + seed];
      const SweepRow& more = one[interval * 9 + 6 + seed];
      EXPECT_EQ(none.failures->spare_nodes, 0);
      EXPECT_EQ(more.failures->spare_nodes, 2);
      // The same failures on the same seed: more spares never lower availability.
      EXPECT_LE(none.failures->availability, some.failures->availability);
      EXPECT_LE(some.failures->availability, more.failures->availability);
      interrupted += none.failures->interruptions;
    }
  }
  EXPECT_GT(interrupted, 0);
  // Checkpoints every 30 min lose less work to the same failures than every 4 h: more goodput, summed over
  // the spare pools and seeds.
  double goodput_30min = 0;
  double goodput_4h = 0;
  for (int i = 0; i < 9; ++i) {
    goodput_30min += one[i].failures->goodput;
    goodput_4h += one[9 + i].failures->goodput;
  }
  EXPECT_GT(goodput_30min, goodput_4h);
}

TEST(SweepFailures, NeedsTheTopologyOfEveryDesign) {
  const auto sweep = parse_sweep(kFailureSweep, "/tmp/sweep.yaml");
  ASSERT_TRUE(sweep.ok()) << sweep.error_text();
  EXPECT_THROW((void)run_sweep(sweep.value(), training_jobs(), {GpuPool::uniform(10, 8)}, 1),
               std::invalid_argument);
}

TEST(SweepFailures, BadFailureBlocksNameTheLineAndField) {
  const std::pair<std::string, std::string> cases[] = {
      {failure_sweep_with("node_mtbf: 300h", "node_mtbf: 300"), "sweep.yaml:8:14: failures.node_mtbf:"},
      {failure_sweep_with("repair: 24h", "repair: 0h"), "failures: repair:"},
      {failure_sweep_with("  repair: 24h\n", ""), "failures: repair: give how long a failed node is out"},
      {failure_sweep_with("[30min, 4h, young-daly]", "[30min, soon]"), "failures.checkpoint_intervals[1]:"},
      {failure_sweep_with("[30min, 4h, young-daly]", "[30min, 30min]"), "'30min' is listed twice"},
      {failure_sweep_with("spare_nodes: [0, 1, 2]", "spare_nodes: [0, 10]"),
       "failures.spare_nodes: 10 spares leave no node of design 'ten' (10 nodes)"},
      {failure_sweep_with("restart: 5min", "retsart: 5min"), "failures.retsart: unknown field"},
      {failure_sweep_with("node_mtbf: 300h\n  repair: 24h", "profile: no-such-profile"),
       "unknown profile 'no-such-profile'"},
  };
  for (const auto& [text, message] : cases) {
    const auto sweep = parse_sweep(text, "sweep.yaml");
    ASSERT_FALSE(sweep.ok()) << text;
    EXPECT_NE(sweep.error_text().find(message), std::string::npos) << sweep.error_text();
  }
  // young-daly needs a failure rate to take its optimum from.
  const std::string no_rate =
      "name: s\ntrace: {path: jobs.csv}\ndesigns: [{name: a, nodes: 2}]\n"
      "policies: [fifo]\nfailures: {checkpoint_write: 1min, checkpoint_intervals: "
      "[young-daly]}\n";
  const auto refused = parse_sweep(no_rate, "sweep.yaml");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error_text().find("checkpoint_intervals young-daly: give a failure rate"),
            std::string::npos)
      << refused.error_text();
}

}  // namespace
}  // namespace gputwin
