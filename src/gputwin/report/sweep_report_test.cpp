// sweep --json read back: the rows of a real sweep come back exactly (the text table they print is the same);
// another schema, a cut document and a missing field are errors naming the file and the field.
#include "gputwin/report/sweep_report.hpp"

#include <gtest/gtest.h>

#include "gputwin/report/report_test_support.hpp"
#include "gputwin/sim/simulated_cluster.hpp"

namespace gputwin {
namespace {

using testing::error_of;

// Two designs x two policies, one design too small for the 8-GPU jobs (so never_run is set); run on jobs that
// arrive over time and on the same jobs arriving at once (so window_utilisation is null).
constexpr const char* kSweep = R"(name: reader test
trace: {path: jobs.csv}
designs:
  - {name: small, nodes: 1, gpus_per_node: 4}
  - {name: large, nodes: 4}
policies: [fifo, easy]
)";

std::vector<SweepRow> real_rows() {
  const SweepSpec sweep = parse_sweep(kSweep, "sweep.yaml").value();
  const std::vector<GpuPool> pools{GpuPool::uniform(1, 4), GpuPool::uniform(4, 8)};
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 12; ++i) {
    JobSpec job;
    job.id = std::to_string(i);
    job.submit_time = 30.0 * i;
    job.duration = 200 + (i * 53) % 400;
    job.gpus = 1 << (i % 4);
    jobs.push_back(job);
  }
  std::vector<SweepRow> rows = run_sweep(sweep, jobs, pools, 1, /*reader_skipped=*/2);
  for (JobSpec& job : jobs) job.submit_time = 0;
  for (const SweepRow& row : run_sweep(sweep, jobs, pools, 1, /*reader_skipped=*/2)) rows.push_back(row);
  return rows;
}

const std::vector<SweepRow>& rows() {
  static const std::vector<SweepRow> rows = real_rows();
  return rows;
}

std::string text() {
  return sweep_json("reader test", rows()).dump(2);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SweepJson, RoundTripOfARealSweep) {
  ASSERT_EQ(rows().size(), 8u);
  const auto read = read_sweep_json(text(), "sweep.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  const SweepTable& table = read.value();
  EXPECT_EQ(table.name, "reader test");
  ASSERT_EQ(table.rows.size(), rows().size());
  bool some_never_run = false;
  bool some_without_window = false;
  for (std::size_t i = 0; i < rows().size(); ++i) {
    const SweepRow& written = rows()[i];
    const SweepRow& back = table.rows[i];
    EXPECT_EQ(back.task, written.task);
    EXPECT_EQ(back.design, written.design);
    EXPECT_EQ(back.policy, written.policy);
    EXPECT_EQ(back.variant, written.variant);
    EXPECT_EQ(back.jobs, written.jobs);
    EXPECT_EQ(back.never_run, written.never_run);
    EXPECT_EQ(back.reader_skipped, 2);
    EXPECT_EQ(back.mean_wait_s, written.mean_wait_s);  // exact: shortest round-trip form
    EXPECT_EQ(back.window_utilisation, written.window_utilisation);
    EXPECT_EQ(back.makespan_s, written.makespan_s);
    some_never_run = some_never_run || written.never_run > 0;
    some_without_window = some_without_window || !written.window_utilisation;
  }
  EXPECT_TRUE(some_never_run);
  EXPECT_TRUE(some_without_window);
  EXPECT_EQ(sweep_text(table.name, table.rows), sweep_text("reader test", rows()));
}

TEST(SweepJson, TaskResultIsAnotherSchema) {
  const std::string task = sweep_task_json("sweep.yaml", rows().front()).dump(2);
  const std::string error = error_of(read_sweep_json(task, "task-0.json"));
  EXPECT_TRUE(contains(error, "task-0.json:2:")) << error;
  EXPECT_TRUE(
      contains(error, "/schema: expected gputwin.sweep/1 (sweep --json), found 'gputwin.sweep-task/1'"))
      << error;
}

TEST(SweepJson, TruncatedDocumentIsMalformedJsonWithItsLine) {
  const std::string error = error_of(read_sweep_json(testing::truncated(text()), "sweep.json"));
  EXPECT_TRUE(contains(error, "sweep.json:")) << error;
  EXPECT_TRUE(contains(error, "malformed JSON")) << error;
}

TEST(SweepJson, MissingFieldIsNamedByItsPointer) {
  const std::string error =
      error_of(read_sweep_json(testing::without(text(), "/rows/3/policy"), "sweep.json"));
  EXPECT_TRUE(contains(error, "/rows/3: missing field 'policy'")) << error;
  const std::string no_rows = error_of(read_sweep_json(testing::without(text(), "/rows"), "sweep.json"));
  EXPECT_TRUE(contains(no_rows, "/: missing field 'rows'")) << no_rows;
}

// A sweep with failures: its rows carry the failure figures, which come back exactly (a Slurm array task's
// result is this JSON, so merged tables keep them), and the text and CSV gain their columns.
TEST(SweepJson, FailureFiguresRoundTrip) {
  const auto parsed = parse_sweep(
      "name: failures\ntrace: {path: jobs.csv}\ndesigns: [{name: small, nodes: 2, gpus_per_node: 4}, "
      "{name: large, nodes: 4}]\npolicies: [fifo, easy]\nfailures: {node_mtbf: 20h, repair: 2h, "
      "checkpoint_intervals: [5min, none], spare_nodes: [0, 1]}\n",
      "sweep.yaml");
  ASSERT_TRUE(parsed.ok()) << parsed.error_text();
  const SweepSpec& sweep = parsed.value();
  const SimulatedCluster small = uniform_simulated_cluster(2, 4);
  const SimulatedCluster large = uniform_simulated_cluster(4, 8);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 12; ++i) {
    JobSpec job;
    job.id = std::to_string(i);
    job.submit_time = 600.0 * i;
    job.duration = 36000;
    job.gpus = 4;
    jobs.push_back(job);
  }
  const auto written =
      run_sweep(sweep, jobs, {small.whole, large.whole}, 1, 0, {small.topology, large.topology});
  ASSERT_EQ(written.size(), 16u);
  const auto read = read_sweep_json(sweep_json("failures", written).dump(2), "sweep.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  int interrupted = 0;
  for (std::size_t i = 0; i < written.size(); ++i) {
    ASSERT_TRUE(read.value().rows[i].failures) << i;
    const SweepFailureRow& back = *read.value().rows[i].failures;
    EXPECT_EQ(back.checkpoint_interval, written[i].failures->checkpoint_interval);
    EXPECT_EQ(back.spare_nodes, written[i].failures->spare_nodes);
    EXPECT_EQ(back.interruptions, written[i].failures->interruptions);
    EXPECT_EQ(back.goodput, written[i].failures->goodput);
    EXPECT_EQ(back.ettr, written[i].failures->ettr);
    EXPECT_EQ(back.availability, written[i].failures->availability);
    interrupted += back.interruptions;
  }
  EXPECT_GT(interrupted, 0);
  const auto task = sweep_row_from_json(sweep_task_json("sweep.yaml", written[5]).dump(2), "task-5.json");
  ASSERT_TRUE(task.ok()) << task.error_text();
  EXPECT_EQ(task.value().failures->goodput, written[5].failures->goodput);
  EXPECT_EQ(sweep_text("failures", read.value().rows), sweep_text("failures", written));
  EXPECT_TRUE(contains(sweep_csv(written),
                       ",checkpoint_interval,spare_nodes,interruptions,goodput,ettr,availability\n"));
  // A sweep without failures writes no failure column or member.
  EXPECT_FALSE(contains(sweep_csv(rows()), "goodput"));
  EXPECT_FALSE(contains(text(), "failures"));
}

}  // namespace
}  // namespace gputwin
