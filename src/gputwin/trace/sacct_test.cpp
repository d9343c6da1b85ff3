#include "gputwin/trace/sacct.hpp"

#include <gtest/gtest.h>

#include <map>

namespace gputwin {
namespace {

std::string capture(const std::string& file) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/tests/slurm/captures/" + file;
}

std::map<std::string, JobSpec> by_id(const TraceRows<JobSpec>& trace) {
  std::map<std::string, JobSpec> jobs;
  for (const JobSpec& job : trace.rows) jobs[job.id] = job;
  return jobs;
}

// The real 22.05.8 captures (tests/slurm/captures/README.md lists the jobs): both shapes give the same jobs.
TEST(Sacct, RealParsableCaptureGivesEveryAllocationWithItsGpusAndState) {
  const auto read = read_sacct(capture("sacct-allocations.psv"));
  ASSERT_TRUE(read.ok()) << read.error_text();
  auto jobs = by_id(read.value());
  ASSERT_EQ(jobs.size(), 8u);
  EXPECT_EQ(read.value().skipped_total(), 0);
  EXPECT_EQ(jobs["1"].gpus, 2);  // gres/gpu=2 and gres/gpu:h100=2: counted once
  EXPECT_EQ(jobs["1"].state, "completed");
  EXPECT_EQ(jobs["2"].state, "failed");
  EXPECT_EQ(jobs["3"].state, "timeout");
  EXPECT_EQ(jobs["3"].duration, 87);        // 00:01:27
  EXPECT_EQ(jobs["3"].requested_time, 60);  // Timelimit 00:01:00
  EXPECT_EQ(jobs["4"].state, "cancelled");  // "CANCELLED by 0"
  EXPECT_EQ(jobs["4"].gpus, 8);
  EXPECT_EQ(jobs["5"].gpus, 16);
  EXPECT_EQ(jobs["5"].gpus_per_node, 8);  // 2 nodes
  EXPECT_EQ(jobs["6_2"].gpus, 1);
  EXPECT_EQ(jobs["1"].user, "root");
  EXPECT_EQ(jobs["1"].group, "gputwin");  // the account
  EXPECT_EQ(jobs["1"].submit_time, 0);
  EXPECT_EQ(jobs["1"].recorded_wait, 2);  // submitted 04:33:01, started 04:33:03
  EXPECT_EQ(jobs["1"].qos, "normal");     // the QOS column
}

TEST(Sacct, RealStepRowsAreSkippedAndCounted) {
  const auto read = read_sacct(capture("sacct-steps.psv"));
  ASSERT_TRUE(read.ok()) << read.error_text();
  EXPECT_EQ(read.value().rows.size(), 8u);
  EXPECT_GT(read.value().skipped.at("job step rows"), 0);
}

TEST(Sacct, RealJsonCaptureMatchesTheParsableOne) {
  const auto json = read_sacct(capture("sacct.json"));
  const auto parsable = read_sacct(capture("sacct-allocations.psv"));
  ASSERT_TRUE(json.ok()) << json.error_text();
  ASSERT_TRUE(parsable.ok());
  auto from_json = by_id(json.value());
  auto from_text = by_id(parsable.value());
  ASSERT_EQ(from_json.size(), from_text.size());
  for (const auto& [id, job] : from_text) {
    ASSERT_TRUE(from_json.contains(id)) << id;
    const JobSpec& other = from_json[id];
    EXPECT_EQ(other.gpus, job.gpus) << id;
    EXPECT_EQ(other.gpus_per_node, job.gpus_per_node) << id;
    EXPECT_EQ(other.state, job.state) << id;
    EXPECT_EQ(other.duration, job.duration) << id;
    EXPECT_EQ(other.submit_time, job.submit_time) << id;
    EXPECT_EQ(other.requested_time, job.requested_time) << id;
    EXPECT_EQ(other.user, job.user) << id;
    EXPECT_EQ(other.qos, job.qos) << id;
  }
}

TEST(Sacct, NewerJsonShapeWithStateListsAndNumberObjects) {
  const std::string text = R"({"jobs": [
    {"job_id": 41, "user": "ana", "account": "ml", "state": {"current": ["CANCELLED"], "reason": "None"},
     "array": {"job_id": 40, "task_id": {"set": true, "infinite": false, "number": 3}},
     "time": {"submission": 1000, "start": 1010, "end": 1070, "elapsed": 60,
              "limit": {"set": true, "infinite": false, "number": 30}},
     "allocation_nodes": 2,
     "tres": {"allocated": [{"type": "gres", "name": "gpu:a100", "count": 4},
                            {"type": "gres", "name": "gpu", "count": 4},
                            {"type": "cpu", "name": null, "count": 8}]}},
    {"job_id": 42, "state": {"current": ["PENDING"]},
     "time": {"submission": 1005, "start": 0, "end": 0, "limit": {"set": true, "infinite": true, "number": 0}},
     "tres": {"requested": [{"type": "gres", "name": "gpu", "count": 1}]}}
  ]})";
  const auto read = parse_sacct_json(text, "new.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  ASSERT_EQ(read.value().rows.size(), 1u);
  const JobSpec& job = read.value().rows.front();
  EXPECT_EQ(job.id, "40_3");
  EXPECT_EQ(job.state, "cancelled");
  EXPECT_EQ(job.gpus, 4);
  EXPECT_EQ(job.gpus_per_node, 2);
  EXPECT_EQ(job.duration, 60);
  EXPECT_EQ(job.requested_time, 1800);
  EXPECT_EQ(job.recorded_wait, 10);
  EXPECT_EQ(read.value().skipped.at("never started"), 1);
}

TEST(Sacct, ParsableEdgeCases) {
  const std::string text =
      "JobID|User|Account|Submit|Start|End|Elapsed|Timelimit|State|NNodes|NodeList|AllocTRES|ReqTRES\n"
      "7|bo|ml|2026-01-01T00:00:00|2026-01-01T00:10:00|2026-01-03T00:10:00|2-00:00:00|UNLIMITED|COMPLETED|"
      "4|gpu[01-04]|cpu=8,gres/gpu=32,node=4|cpu=8,gres/gpu=32\n"
      "8|bo|ml|2026-01-01T00:05:00|Unknown|Unknown|00:00:00|01:00:00|PENDING|1|None "
      "assigned||cpu=1,gres/gpu=1\n"
      "9|bo|ml|2026-01-01T00:06:00|2026-01-01T00:07:00|Unknown|00:03:00|01:00:00|RUNNING|1|gpu05|cpu=1,gres/"
      "gpu=1|\n"
      "10|cy|ml|2026-01-01T00:08:00|2026-01-01T00:08:00|2026-01-01T00:09:00|00:01:00|1-12:00:00|OUT_OF_"
      "MEMORY|1|"
      "gpu06|cpu=4,node=1|cpu=4\n"
      "10.batch||ml|2026-01-01T00:08:00|2026-01-01T00:08:00|2026-01-01T00:09:00|00:01:00||OUT_OF_MEMORY|1|"
      "gpu06|"
      "cpu=4|\n";
  const auto read = parse_sacct_parsable(text, "edge.psv");
  ASSERT_TRUE(read.ok()) << read.error_text();
  auto jobs = by_id(read.value());
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs["7"].duration, 2 * 86400);
  EXPECT_EQ(jobs["7"].requested_time, 0);  // UNLIMITED
  EXPECT_EQ(jobs["7"].gpus_per_node, 8);
  EXPECT_EQ(jobs["10"].gpus, 0);  // a CPU-only job is kept: replaying it is the simulator's choice
  EXPECT_EQ(jobs["10"].requested_time, 36 * 3600);
  EXPECT_EQ(jobs["10"].state, "out_of_memory");
  EXPECT_EQ(read.value().skipped.at("never started"), 1);
  EXPECT_EQ(read.value().skipped.at("not ended (still running)"), 1);
  EXPECT_EQ(read.value().skipped.at("job step rows"), 1);
}

TEST(Sacct, TresAndDurations) {
  EXPECT_EQ(gpus_in_tres("billing=2,cpu=2,gres/gpu:h100=2,gres/gpu=2,node=1"), 2);
  EXPECT_EQ(gpus_in_tres("gres/gpu:h100=2"), 0);  // typed only: never counted
  EXPECT_EQ(gpus_in_tres(""), 0);
  EXPECT_EQ(gpus_in_tres("cpu"), std::nullopt);
  EXPECT_EQ(gpus_in_tres("gres/gpu=two"), std::nullopt);
  EXPECT_EQ(parse_slurm_duration("00:01:27"), 87);
  EXPECT_EQ(parse_slurm_duration("1-02:03:04"), 93784);
  EXPECT_EQ(parse_slurm_duration("05:30"), 330);
  EXPECT_EQ(parse_slurm_duration("2-12"), 216000);
  EXPECT_EQ(parse_slurm_duration("1:2:3:4"), std::nullopt);
  EXPECT_EQ(parse_slurm_duration("abc"), std::nullopt);
}

TEST(Sacct, BadInputNamesFileLineAndColumn) {
  const std::string header = "JobID|Submit|Start|End|State|AllocTRES\n";
  const std::pair<std::string, std::string> cases[] = {
      {header + "1|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|COMPLETED\n",
       "bad.psv:2: expected 6 '|'-separated fields as the header has, found 5"},
      {header + "1|2026-13-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|COMPLETED|gres/gpu=1\n",
       "bad.psv:2: Submit: expected a date as YYYY-MM-DDTHH:MM:SS, got '2026-13-01T00:00:00'"},
      {header + "1|2026-01-01T00:00:00|2026-01-01T00:00:01|2026-01-01T00:00:02|COMPLETED|gpus\n",
       "bad.psv:2: AllocTRES: expected a TRES list"},
      {"JobID|Start|End|State|AllocTRES\n", "bad.psv:1: Submit: missing column"},
      {"", "bad.psv: empty file"},
  };
  for (const auto& [text, message] : cases) {
    const auto read = parse_sacct_parsable(text, "bad.psv");
    ASSERT_FALSE(read.ok()) << text;
    EXPECT_NE(read.error_text().find(message), std::string::npos) << read.error_text();
  }
  const auto json =
      parse_sacct_json(R"({"jobs": [{"job_id": 1, "state": {"current": 5}, "time": {}}]})", "bad.json");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.error_text().find("bad.json:1:"), std::string::npos) << json.error_text();
  EXPECT_NE(json.error_text().find("/jobs/0/state/current"), std::string::npos) << json.error_text();
  const auto truncated = parse_sacct_json(R"({"jobs": [{"job_id": 1,)", "cut.json");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error_text().find("cut.json:1:"), std::string::npos) << truncated.error_text();
}

}  // namespace
}  // namespace gputwin
