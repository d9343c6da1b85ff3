// sweep --json read back: the rows of a real sweep come back exactly (the text table they print is the same);
// another schema, a cut document and a missing field are errors naming the file and the field.
#include "gputwin/report/sweep_report.hpp"

#include <gtest/gtest.h>

#include "gputwin/report/report_test_support.hpp"

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

}  // namespace
}  // namespace gputwin
