// read_trace refuses what has nothing to replay and recognises sacct's table output (issue 13, item 13).
#include "gputwin/trace/trace_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gputwin/trace/sacct.hpp"

namespace gputwin {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("gputwin-trace-file-test-" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(ReadTrace, AHeaderOnlyJobCsvIsAnErrorNamingTheFile) {
  const std::string path = write_temp("header-only.csv", "id,submit_time,duration,gpus\n");
  const auto trace = read_trace(path);
  ASSERT_FALSE(trace.ok());  // before: 0 jobs, and a replay that reported nothing with exit 0
  EXPECT_NE(trace.error_text().find(path), std::string::npos);
  EXPECT_NE(trace.error_text().find("no jobs"), std::string::npos);
}

TEST(ReadTrace, EveryRecordSkippedIsAnErrorSayingWhy) {
  const std::string path = write_temp("all-skipped.psv",
                                      "JobID|Submit|Start|End|State|AllocTRES\n"
                                      "1|2026-01-01T00:00:00|Unknown|Unknown|PENDING|\n");
  const auto trace = read_trace(path);
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error_text().find("1 never started"), std::string::npos) << trace.error_text();
}

constexpr const char* kSacctTable =
    "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
    "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
    "1                  test      debug       root          1  COMPLETED      0:0 \n";

TEST(ReadTrace, SacctTableOutputIsRecognisedAndRefusedWithTheFix) {
  const std::string path = write_temp("sacct-table.txt", kSacctTable);
  const auto trace = read_trace(path);  // auto-detected as sacct, not "cannot tell the trace format"
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.error_text().find(path + ":1"), std::string::npos) << trace.error_text();
  EXPECT_NE(trace.error_text().find("--parsable2"), std::string::npos);
  EXPECT_NE(trace.error_text().find("--json"), std::string::npos);
  const auto direct = read_sacct(path);
  ASSERT_FALSE(direct.ok());
  EXPECT_NE(direct.error_text().find("table output"), std::string::npos) << direct.error_text();
}

TEST(ReadTrace, ParsableOutputIsNotTakenForATable) {
  EXPECT_FALSE(is_sacct_table_header("JobID|JobName|Submit"));
  EXPECT_TRUE(is_sacct_table_header("       JobID    JobName"));
  EXPECT_FALSE(is_sacct_table_header("id,submit_time,duration"));
}

}  // namespace
}  // namespace gputwin
