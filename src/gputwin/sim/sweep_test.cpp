#include "gputwin/sim/sweep.hpp"

#include <gtest/gtest.h>

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
  std::string text = kSweep;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
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

}  // namespace
}  // namespace gputwin
