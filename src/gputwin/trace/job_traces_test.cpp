#include "gputwin/trace/job_traces.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gputwin {
namespace {

std::string shared_trace(const std::string& relative) {
  return std::string(GPUTWIN_SHARED_DIR) + "/traces/" + relative;
}

// Lines that hold a record: non-empty and, for SWF, not a ';' header comment.
int count_record_lines(const std::string& path, bool has_csv_header) {
  std::ifstream in(path);
  std::string line;
  int count = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] != ';') ++count;
  }
  return has_csv_header ? count - 1 : count;
}

bool sorted_by_submit_then_file_order(const std::vector<JobSpec>& jobs) {
  for (std::size_t i = 1; i < jobs.size(); ++i) {
    if (jobs[i].submit_time < jobs[i - 1].submit_time) return false;
    // Philly ids are line numbers, so equal submit times must keep increasing ids.
    if (jobs[i].submit_time == jobs[i - 1].submit_time && std::stoi(jobs[i].id) < std::stoi(jobs[i - 1].id)) {
      return false;
    }
  }
  return true;
}

const JobSpec* find_job(const std::vector<JobSpec>& jobs, const std::string& id) {
  for (const auto& job : jobs) {
    if (job.id == id) return &job;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------------------------
// Real traces from ../shared/traces.

TEST(PhillyJobs, PolluxTraceReadsEveryRowSortedFromZero) {
  const std::string path = shared_trace("pollux-osdi21/traces/philly.csv");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "Philly trace is absent: " << path;
  const auto result = read_philly_jobs(path);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& jobs = result.value().rows;

  // 82,248 non-empty lines: the header and 82,247 jobs (the file ends with one blank line).
  EXPECT_EQ(count_record_lines(path, true), 82247);
  EXPECT_EQ(static_cast<int>(jobs.size()) + result.value().skipped_total(), count_record_lines(path, true));
  EXPECT_EQ(jobs.size(), 82247u);
  EXPECT_EQ(result.value().skipped_total(), 0);

  EXPECT_TRUE(sorted_by_submit_then_file_order(jobs));
  // The earliest row, 2017-09-04 10:30:41 on line 31,568, is an 8-GPU job of virtual cluster 7f04ca.
  EXPECT_EQ(jobs.front().id, "31568");
  EXPECT_EQ(jobs.front().submit_time, 0);
  EXPECT_EQ(jobs.front().gpus, 8);
  EXPECT_EQ(jobs.front().duration, 2240194);
  EXPECT_EQ(jobs.front().group, "7f04ca");
  // The latest, 2017-12-22 08:02:11: 109 days minus 2:28:30 after the first, across three month ends.
  EXPECT_EQ(jobs.back().submit_time, 109 * 86400 - (2 * 3600 + 28 * 60 + 30));
}

TEST(SwfJobs, KthSp2ReadsEveryRecordAndTheMachineSize) {
  const std::string path = shared_trace("swf/KTH-SP2-1996-2.1-cln.swf");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "KTH SP2 log is absent: " << path;
  const auto result = read_swf(path);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const SwfTrace& trace = result.value();

  EXPECT_EQ(count_record_lines(path, false), 28476);  // the header's MaxRecords
  EXPECT_EQ(static_cast<int>(trace.jobs.rows.size()) + trace.jobs.skipped_total(), 28476);
  // Job 27313 records neither allocated nor requested processors; every other job is replayable.
  EXPECT_EQ(trace.jobs.rows.size(), 28475u);
  EXPECT_EQ(trace.jobs.skipped.count("no processor count (allocated and requested both unknown or 0)"), 1u);
  EXPECT_EQ(trace.max_procs, 100);
  EXPECT_EQ(trace.max_nodes, 100);

  // The cleaned log starts with job 15 (jobs 1-14 were filtered out), submitted at 599850 s.
  EXPECT_EQ(trace.jobs.rows.front().id, "15");
  EXPECT_EQ(trace.jobs.rows.front().submit_time, 0);
  // "17 600476 364560 215337 5 -1 -1 5 215400 -1 0 14 14 -1 -1 -1 -1 -1"
  const JobSpec* job = find_job(trace.jobs.rows, "17");
  ASSERT_NE(job, nullptr);
  EXPECT_EQ(job->submit_time, 600476 - 599850);
  EXPECT_EQ(job->recorded_wait, 364560);
  EXPECT_EQ(job->duration, 215337);
  EXPECT_EQ(job->gpus, 5);
  EXPECT_EQ(job->requested_time, 215400);
  EXPECT_EQ(job->state, "failed");
  EXPECT_EQ(job->user, "14");
  EXPECT_EQ(job->group, "");  // queue is -1 (unknown) throughout this log
}

// ---------------------------------------------------------------------------------------------------------------
// Philly, inline.

const std::string kPhillyHeader = "timestamp,duration,num_gpus,gpu_time,cluster\n";

TEST(PhillyJobs, SortsByTimeKeepsTiesInFileOrderAndCrossesLeapDays) {
  const auto result = parse_philly_jobs(kPhillyHeader +
                                            "2020-03-01 00:00:00,10.0,2,20.0,b\n"  // line 2
                                            "2020-02-28 23:00:00,5.0,1,5.0,a\n"    // line 3: the first
                                            "2020-03-01 00:00:00,7.0,4,28.0,c\n",  // line 4: ties line 2
                                        "philly.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& jobs = result.value().rows;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].id, "3");
  EXPECT_EQ(jobs[0].submit_time, 0);
  EXPECT_EQ(jobs[1].id, "2");
  EXPECT_EQ(jobs[1].submit_time, 25 * 3600);  // 2020 is a leap year: Feb 29 lies between
  EXPECT_EQ(jobs[2].id, "4");
  EXPECT_EQ(jobs[2].gpus, 4);
  EXPECT_EQ(jobs[2].group, "c");
}

TEST(PhillyJobs, CountsNegativeDurationsInsteadOfReplayingThem) {
  const auto result = parse_philly_jobs(kPhillyHeader +
                                            "2017-10-01 00:00:00,-3.0,1,-3.0,a\n"
                                            "2017-10-01 00:00:05,3.0,1,3.0,a\n",
                                        "philly.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  EXPECT_EQ(result.value().rows.size(), 1u);
  EXPECT_EQ(result.value().skipped.at("negative duration"), 1);
  EXPECT_EQ(result.value().rows[0].submit_time, 0);  // the clock starts at the first job kept
}

TEST(PhillyJobs, TruncatedRowNamesFileAndLine) {
  const auto result = parse_philly_jobs(kPhillyHeader +
                                            "2017-10-01 00:00:00,3.0,1,3.0,a\n"
                                            "2017-10-01 00:00:05,3.0\n",
                                        "philly.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("philly.csv:3:"), std::string::npos) << result.error_text();
  EXPECT_NE(result.error_text().find("expected 5 columns, found 2"), std::string::npos)
      << result.error_text();
}

TEST(PhillyJobs, ImpossibleDateNamesTheColumn) {
  const auto result = parse_philly_jobs(kPhillyHeader + "2017-02-29 00:00:00,3.0,1,3.0,a\n", "philly.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("philly.csv:2: timestamp: expected a date"), std::string::npos)
      << result.error_text();
}

// ---------------------------------------------------------------------------------------------------------------
// SWF, inline.

const std::string kSwfHeader =
    "; Version: 2.2\n"
    "; MaxNodes: 64\n"
    ";   MaxProcs:  128\n";

TEST(SwfJobs, MapsFieldsAndFallsBackToRequestedProcessors) {
  const auto result = parse_swf(kSwfHeader +
                                    "1 100 5 60 -1 -1 -1 8 120 -1 5 3 2 -1 7 1 -1 -1\n"  // allocation unknown
                                    "2 90 -1 0 4 -1 -1 4 -1 -1 1 3 2 -1 -1 -1 -1 -1\n",  // ran 0 s: kept
                                "t.swf");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const SwfTrace& trace = result.value();
  EXPECT_EQ(trace.max_procs, 128);
  EXPECT_EQ(trace.max_nodes, 64);
  ASSERT_EQ(trace.jobs.rows.size(), 2u);
  const JobSpec& early = trace.jobs.rows[0];
  EXPECT_EQ(early.id, "2");
  EXPECT_EQ(early.state, "completed");
  EXPECT_EQ(early.recorded_wait, -1);
  EXPECT_EQ(early.requested_time, 0);
  const JobSpec& late = trace.jobs.rows[1];
  EXPECT_EQ(late.submit_time, 10);
  EXPECT_EQ(late.gpus, 8);
  EXPECT_EQ(late.state, "cancelled");
  EXPECT_EQ(late.group, "7");
  EXPECT_EQ(late.user, "3");
  EXPECT_EQ(late.recorded_wait, 5);
}

TEST(SwfJobs, CountsUnreplayableJobsByReason) {
  const auto result =
      parse_swf(kSwfHeader +
                    "1 0 0 -1 4 -1 -1 4 -1 -1 5 1 1 -1 -1 -1 -1 -1\n"  // cancelled before start
                    "2 0 0 -5 4 -1 -1 4 -1 -1 0 1 1 -1 -1 -1 -1 -1\n"  // negative run time
                    "3 0 0 10 0 -1 -1 0 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"  // zero processors
                    "4 0 0 10 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n",
                "t.swf");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& jobs = result.value().jobs;
  ASSERT_EQ(jobs.rows.size(), 1u);
  EXPECT_EQ(jobs.rows[0].id, "4");
  EXPECT_EQ(jobs.skipped.at("unknown run time"), 1);
  EXPECT_EQ(jobs.skipped.at("negative run time"), 1);
  EXPECT_EQ(jobs.skipped.at("no processor count (allocated and requested both unknown or 0)"), 1);
}

TEST(SwfJobs, WrongFieldCountNamesFileAndLine) {
  const auto result = parse_swf(kSwfHeader + "1 0 0 10 2 -1 -1 2 -1 -1 1 1 1\n", "t.swf");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("t.swf:4:"), std::string::npos) << result.error_text();
  EXPECT_NE(result.error_text().find("expected 18 whitespace-separated fields, found 13"), std::string::npos)
      << result.error_text();
}

TEST(SwfJobs, NonNumericValueNamesTheField) {
  const auto result = parse_swf(kSwfHeader + "1 0 0 ten 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("t.swf:4: run_time: expected a number, got 'ten'"), std::string::npos)
      << result.error_text();
}

TEST(SwfJobs, FractionalProcessorCountIsAnError) {
  const auto result = parse_swf(kSwfHeader + "1 0 0 10 2.5 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("allocated_processors: expected a whole number"), std::string::npos)
      << result.error_text();
}

// ---------------------------------------------------------------------------------------------------------------
// Helios, inline: the three example rows of the HeliosData README.

const std::string kHeliosSample =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
    "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 "
    "04:55:09,36848,0\n"
    "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n"
    "1425513,uzqls,vcpDC,1,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 "
    "14:15:21,675233,0\n";

TEST(HeliosJobs, ReadsTheReadmeSample) {
  const auto result = parse_helios_jobs(kHeliosSample, "cluster_log.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& jobs = result.value().rows;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].id, "1425511");
  EXPECT_EQ(jobs[0].submit_time, 0);
  EXPECT_EQ(jobs[0].duration, 36848);
  EXPECT_EQ(jobs[0].user, "uXBbc");
  EXPECT_EQ(jobs[0].group, "vcJkd");
  EXPECT_EQ(jobs[0].state, "completed");
  EXPECT_EQ(jobs[0].recorded_wait, 0);
  EXPECT_EQ(jobs[1].submit_time, 26);
  EXPECT_EQ(jobs[1].gpus, 4);
  EXPECT_EQ(jobs[1].gpus_per_node, 4);
  EXPECT_EQ(jobs[1].state, "failed");
  EXPECT_EQ(jobs[2].submit_time, 27);
  EXPECT_EQ(jobs[2].state, "cancelled");
}

TEST(HeliosJobs, DerivesDurationAndWaitFromTimesAndKeepsCpuJobs) {
  // An extra column (jobname) is ignored; without a duration column the run time is end_time - start_time.
  const auto result = parse_helios_jobs(
      "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time\n"
      "7,u1,vcA,train,16,64,2,COMPLETED,2020-04-30 23:59:00,2020-05-01 00:01:00,2020-05-01 01:01:00\n"
      "8,u1,vcA,prep,0,8,1,COMPLETED,2020-05-01 00:00:00,2020-05-01 00:00:00,2020-05-01 00:00:30\n"
      "9,u2,vcB,odd,3,8,2,RUNNING,2020-05-01 00:00:10,,\n",
      "cluster_log.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& jobs = result.value().rows;
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].duration, 3600);
  EXPECT_EQ(jobs[0].recorded_wait, 120);
  EXPECT_EQ(jobs[0].gpus_per_node, 8);
  EXPECT_EQ(jobs[1].gpus, 0);  // CPU-only: kept, the simulator decides
  EXPECT_EQ(jobs[1].submit_time, 60);
  EXPECT_EQ(result.value().skipped.at("unknown duration"), 1);
}

TEST(HeliosJobs, NonNumericGpuCountNamesTheColumn) {
  const auto result = parse_helios_jobs(
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
      "1,u,vc,four,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n",
      "cluster_log.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("cluster_log.csv:2: gpu_num: expected a number, got 'four'"),
            std::string::npos)
      << result.error_text();
}

TEST(HeliosJobs, CountsNegativeDurations) {
  const auto result = parse_helios_jobs(
      "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
      "1,u,vc,1,1,1,FAILED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-09 18:40:01,-60,0\n",
      "cluster_log.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  EXPECT_TRUE(result.value().rows.empty());
  EXPECT_EQ(result.value().skipped.at("negative duration"), 1);
}

// ---------------------------------------------------------------------------------------------------------------
// gputwin's job CSV.

TEST(JobCsv, WriteThenReadGivesBackTheSameJobs) {
  JobSpec quoted;
  quoted.id = "sweep,\"3\"";
  quoted.submit_time = 0.1;  // not exact in binary: the text must still round-trip
  quoted.duration = 1e7 / 3;
  quoted.gpus = 16;
  quoted.gpus_per_node = 8;
  quoted.requested_time = 7200;
  quoted.user = "alice";
  quoted.group = "vc, research";
  quoted.state = "completed";
  quoted.recorded_wait = 42.5;
  JobSpec plain;
  plain.id = "eval-7";
  plain.submit_time = 12.5;
  plain.duration = 90;
  plain.gpus = 1;
  const std::vector<JobSpec> jobs{quoted, plain};

  std::ostringstream written;
  write_job_csv(jobs, written);
  const auto result = parse_job_csv(written.str(), "jobs.csv");
  ASSERT_TRUE(result.ok()) << result.error_text() << written.str();
  const auto& read = result.value().rows;
  ASSERT_EQ(read.size(), 2u);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(read[i].id, jobs[i].id);
    EXPECT_EQ(read[i].submit_time, jobs[i].submit_time);
    EXPECT_EQ(read[i].duration, jobs[i].duration);
    EXPECT_EQ(read[i].gpus, jobs[i].gpus);
    EXPECT_EQ(read[i].gpus_per_node, jobs[i].gpus_per_node);
    EXPECT_EQ(read[i].requested_time, jobs[i].requested_time);
    EXPECT_EQ(read[i].user, jobs[i].user);
    EXPECT_EQ(read[i].group, jobs[i].group);
    EXPECT_EQ(read[i].state, jobs[i].state);
    EXPECT_EQ(read[i].recorded_wait, jobs[i].recorded_wait);
  }
}

TEST(JobCsv, OptionalColumnsTakeTheirDefaults) {
  const auto result = parse_job_csv("gpus,id,duration,submit_time\n8,a,60,30\n2,b,10,5\n", "jobs.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& jobs = result.value().rows;
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "b");  // sorted by submit time, which is kept as written
  EXPECT_EQ(jobs[0].submit_time, 5);
  EXPECT_EQ(jobs[1].gpus, 8);
  EXPECT_EQ(jobs[1].gpus_per_node, 0);
  EXPECT_EQ(jobs[1].recorded_wait, -1);
  EXPECT_EQ(jobs[1].user, "");
}

TEST(JobCsv, NegativeDurationIsAnErrorNamingLineAndColumn) {
  const auto result = parse_job_csv("id,submit_time,duration,gpus\na,0,60,1\nb,0,-5,1\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("jobs.csv:3: duration: must not be negative, got '-5'"),
            std::string::npos)
      << result.error_text();
}

TEST(JobCsv, NegativeGpusIsAnError) {
  const auto result = parse_job_csv("id,submit_time,duration,gpus\na,0,60,-1\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("jobs.csv:2: gpus: must not be negative"), std::string::npos)
      << result.error_text();
}

TEST(JobCsv, WrongColumnCountNamesTheLine) {
  const auto result = parse_job_csv("id,submit_time,duration,gpus\na,0,60,1\nb,0,60\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("jobs.csv:3: expected 4 columns, found 3"), std::string::npos)
      << result.error_text();
}

TEST(JobCsv, NonNumericValueNamesTheColumn) {
  const auto result = parse_job_csv("id,submit_time,duration,gpus\na,soon,60,1\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("jobs.csv:2: submit_time: expected a number, got 'soon'"),
            std::string::npos)
      << result.error_text();
}

TEST(JobCsv, MissingRequiredColumnIsAnError) {
  const auto result = parse_job_csv("id,submit_time,duration\na,0,60\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("gpus: missing column"), std::string::npos) << result.error_text();
}

TEST(JobCsv, MisspeltOptionalColumnIsAnError) {
  const auto result = parse_job_csv("id,submit_time,duration,gpus,gpu_per_node\na,0,60,8,8\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("gpu_per_node: unknown column"), std::string::npos)
      << result.error_text();
}

TEST(JobCsv, DuplicateIdIsAnError) {
  const auto result = parse_job_csv("id,submit_time,duration,gpus\na,0,60,1\na,5,60,1\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("jobs.csv:3: id: duplicate job id 'a'"), std::string::npos)
      << result.error_text();
}

TEST(JobCsv, UnevenSplitAcrossNodesIsAnError) {
  const auto result = parse_job_csv("id,submit_time,duration,gpus,gpus_per_node\na,0,60,12,8\n", "jobs.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("gpus (12) is not a multiple of gpus_per_node (8)"), std::string::npos)
      << result.error_text();
}

TEST(JobCsv, ConvertsARealTraceLosslessly) {
  const std::string path = shared_trace("swf/KTH-SP2-1996-2.1-cln.swf");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "KTH SP2 log is absent: " << path;
  const auto swf = read_swf(path);
  ASSERT_TRUE(swf.ok()) << swf.error_text();
  std::ostringstream written;
  write_job_csv(swf.value().jobs.rows, written);
  const auto back = parse_job_csv(written.str(), "kth.csv");
  ASSERT_TRUE(back.ok()) << back.error_text();
  ASSERT_EQ(back.value().rows.size(), swf.value().jobs.rows.size());
  std::ostringstream rewritten;
  write_job_csv(back.value().rows, rewritten);
  EXPECT_EQ(rewritten.str(), written.str());
}

// ---------------------------------------------------------------------------------------------------------------
// MIG slices in gputwin's job CSV.

std::string job_csv_error(const std::string& text, const std::vector<std::string>& known = {}) {
  const auto result = parse_job_csv(text, "jobs.csv", known);
  return result.ok() ? std::string("(read without error)") : result.error_text();
}

TEST(JobCsv, MigProfileColumnIsOptional) {
  const auto result = parse_job_csv(
      "id,submit_time,duration,gpus,mig_profile\nwhole,0,60,8,\nslice,5,60,0,1g.10gb\n"
      "media,6,60,0,1g.10gb+me\n",
      "jobs.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& jobs = result.value().rows;
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].mig_profile, "");
  EXPECT_EQ(jobs[0].gpus, 8);
  EXPECT_EQ(jobs[1].mig_profile, "1g.10gb");
  EXPECT_EQ(jobs[1].gpus, 0);
  EXPECT_EQ(jobs[2].mig_profile, "1g.10gb+me");
}

TEST(JobCsv, MalformedMigProfileNamesLineAndField) {
  EXPECT_NE(job_csv_error("id,submit_time,duration,gpus,mig_profile\na,0,60,0,1g.10gb\nb,0,60,0,1g10gb\n")
                .find("jobs.csv:3: mig_profile: expected a MIG profile name such as '1g.10gb', got '1g10gb'"),
            std::string::npos);
  EXPECT_NE(job_csv_error("id,submit_time,duration,gpus,mig_profile\na,0,60,0,3g.40gb+\n")
                .find("jobs.csv:2: mig_profile: expected a MIG profile name"),
            std::string::npos);
  EXPECT_NE(job_csv_error("id,submit_time,duration,gpus,mig_profile\na,0,60,0,half\n").find("got 'half'"),
            std::string::npos);
}

TEST(JobCsv, MigProfileOutsideTheKnownSetIsAnError) {
  const std::vector<std::string> a100_80gb{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"};
  const std::string text = "id,submit_time,duration,gpus,mig_profile\na,0,60,0,1g.10gb\nb,0,60,0,1g.5gb\n";
  const std::string expected =
      "jobs.csv:3: mig_profile: '1g.5gb' is not a profile of the MIG-mode GPUs; they have 1g.10gb, 1g.20gb";
  EXPECT_NE(job_csv_error(text, a100_80gb).find(expected), std::string::npos);
  EXPECT_EQ(job_csv_error(text), "(read without error)");  // no set given: only the name's shape is checked
}

TEST(JobCsv, MigJobAskingForWholeGpusIsAnError) {
  EXPECT_NE(job_csv_error("id,submit_time,duration,gpus,mig_profile\na,0,60,1,1g.10gb\n")
                .find("jobs.csv:2: gpus: a job on a MIG slice (1g.10gb) takes no whole GPUs"),
            std::string::npos);
  EXPECT_NE(job_csv_error("id,submit_time,duration,gpus,gpus_per_node,mig_profile\na,0,60,0,8,2g.20gb\n")
                .find("must be 0, got 0 and 8"),
            std::string::npos);
}

TEST(JobCsv, MigColumnIsWrittenOnlyWhenAJobUsesIt) {
  JobSpec whole;
  whole.id = "w";
  whole.gpus = 8;
  JobSpec slice;
  slice.id = "s";
  slice.mig_profile = "3g.40gb";
  std::ostringstream without;
  write_job_csv({whole}, without);
  EXPECT_EQ(without.str().substr(0, without.str().find('\n')),
            "id,submit_time,duration,gpus,gpus_per_node,requested_time,user,group,state,recorded_wait");
  std::ostringstream with;
  write_job_csv({whole, slice}, with);
  EXPECT_NE(with.str().find(",recorded_wait,mig_profile\n"), std::string::npos);
  const auto back = parse_job_csv(with.str(), "jobs.csv");
  ASSERT_TRUE(back.ok()) << back.error_text();
  EXPECT_EQ(back.value().rows[0].mig_profile, "");
  EXPECT_EQ(back.value().rows[1].mig_profile, "3g.40gb");
}

TEST(JobCsv, QosColumnIsWrittenOnlyWhenAJobHasOneAndReadBack) {
  JobSpec plain;
  plain.id = "p";
  plain.gpus = 8;
  JobSpec scavenger = plain;
  scavenger.id = "s";
  scavenger.qos = "scavenger";
  std::ostringstream without;
  write_job_csv({plain}, without);
  EXPECT_EQ(without.str().find("qos"), std::string::npos);
  std::ostringstream with;
  write_job_csv({plain, scavenger}, with);
  EXPECT_NE(with.str().find(",recorded_wait,qos\n"), std::string::npos);
  const auto back = parse_job_csv(with.str(), "jobs.csv");
  ASSERT_TRUE(back.ok()) << back.error_text();
  EXPECT_EQ(back.value().rows[0].qos, "");
  EXPECT_EQ(back.value().rows[1].qos, "scavenger");
  EXPECT_FALSE(back.value().rows[1].low_priority);  // which classes are low is decided later
}

}  // namespace
}  // namespace gputwin
