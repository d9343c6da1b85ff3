#include "gputwin/plan/replay_prediction.hpp"

#include <gtest/gtest.h>

#include "gputwin/core/civil_time.hpp"

namespace gputwin {
namespace {

// Three jobs before 12:00 UTC and one after, written as sacct --parsable2 prints them in a cluster at +01:00.
constexpr const char* kHistory =
    "JobID|User|Account|Submit|Start|End|Elapsed|Timelimit|State|NNodes|AllocTRES\n"
    "104|carol|ml|2026-11-26T11:05:00|2026-11-26T11:05:00|2026-11-26T12:05:00|01:00:00|02:00:00|COMPLETED|1|"
    "cpu=8,gres/gpu=2,node=1\n"
    "101|alice|ml|2026-11-26T11:50:00|2026-11-26T11:50:00|2026-11-26T13:50:00|02:00:00|04:00:00|COMPLETED|1|"
    "cpu=8,gres/gpu=2,node=1\n"
    "101.batch|||2026-11-26T11:50:00|2026-11-26T11:50:00|2026-11-26T13:50:00|02:00:00||COMPLETED|1|"
    "cpu=8,gres/gpu=2,node=1\n"
    "102|bob|ml|2026-11-26T12:15:00|2026-11-26T12:15:00|2026-11-26T12:45:00|00:30:00|01:00:00|COMPLETED|1|"
    "cpu=8,gres/gpu=2,node=1\n"
    "103|bob|ml|2026-11-26T14:00:00|2026-11-26T14:00:00|2026-11-26T14:30:00|00:30:00|01:00:00|COMPLETED|1|"
    "cpu=8,gres/gpu=2,node=1\n";

SacctHistory history() {
  auto read = parse_sacct_history(kHistory, "sacct.psv");
  EXPECT_TRUE(read.ok()) << read.error_text();
  return std::move(read).value();
}

// 11:00 to 12:00 UTC every 15 min, as a 1 h range at 15 min steps.
std::vector<double> quarter_hours() {
  const double start = static_cast<double>(*parse_timestamp("2026-11-26T11:00:00", 'T'));
  return {start, start + 900, start + 1800, start + 2700, start + 3600};
}

ReplayPrediction predicted(const std::string& zone) {
  const SacctClock clock{*parse_utc_offset(zone), zone};
  return predict_occupancy(history(), clock, quarter_hours(), 900, uniform_simulated_cluster(2, 2),
                           *make_queue_policy("fifo"), ReplayOptions{});
}

TEST(ReplayPrediction, SacctHistoryKeepsItsFirstSubmissionAndSaysItsTimesAreLocal) {
  const SacctHistory read = history();
  EXPECT_TRUE(read.local_times);
  EXPECT_EQ(read.first_submit, *parse_timestamp("2026-11-26T11:05:00", 'T'));
  ASSERT_EQ(read.jobs.rows.size(), 4U);
  EXPECT_EQ(read.jobs.rows.front().submit_time, 0);  // read_sacct's clock, unchanged
  EXPECT_EQ(read.jobs.skipped.at("job step rows"), 1);
}

// Each point is the replay's mean allocated GPUs over the 15 min ending there, in UTC.
TEST(ReplayPrediction, BusyGpusByStepFromTheHistoryInItsZone) {
  const ReplayPrediction p = predicted("+01:00");
  EXPECT_EQ(p.gpus, 4);
  EXPECT_EQ(p.jobs, 3);
  EXPECT_EQ(p.jobs_after, 1);  // 103 at 13:00 UTC
  EXPECT_EQ(p.policy, "fifo");
  EXPECT_EQ(p.time_zone, "+01:00");
  EXPECT_EQ(p.first_submit_s, *parse_timestamp("2026-11-26T10:05:00", 'T'));
  const std::vector<double> busy = {2 + 2 * 10.0 / 15,  // 104 all the step, 101 from 10:50
                                    2 * 5.0 / 15 + 2,   // 104 until 11:05, 101
                                    4, 4,               // 101 and 102 (11:15 to 11:45)
                                    2};                 // 101
  ASSERT_EQ(p.points.size(), busy.size());
  for (std::size_t i = 0; i < busy.size(); ++i) {
    EXPECT_NEAR(p.points[i].busy_gpus, busy[i], 1e-9) << i;
    EXPECT_NEAR(p.points[i].occupancy, busy[i] / 4, 1e-9) << i;
    EXPECT_EQ(p.points[i].time_s, quarter_hours()[i]);
  }
}

// The same wall-clock times read as UTC are an hour later: a different prediction, so the zone matters.
TEST(ReplayPrediction, TheZoneMovesTheHistoryOnTheMeasuredClock) {
  const ReplayPrediction p = predicted("UTC");
  EXPECT_EQ(p.jobs, 2);        // 104 at 11:05, 101 at 11:50
  EXPECT_EQ(p.jobs_after, 2);  // 102 at 12:15, 103 at 14:00
  EXPECT_NEAR(p.points[0].busy_gpus, 0, 1e-9);
  EXPECT_NEAR(p.points[1].busy_gpus, 2 * 10.0 / 15, 1e-9);
  EXPECT_NEAR(p.points[4].busy_gpus, 2 + 2 * 10.0 / 15, 1e-9);
}

// sacct --json times are Unix seconds: the zone is not applied and the prediction says so.
TEST(ReplayPrediction, JsonTimesIgnoreTheZone) {
  SacctHistory json = history();
  json.local_times = false;
  json.first_submit = *parse_timestamp("2026-11-26T10:05:00", 'T');
  const ReplayPrediction p =
      predict_occupancy(json, SacctClock{3600, "+01:00"}, quarter_hours(), 900,
                        uniform_simulated_cluster(2, 2), *make_queue_policy("fifo"), {});
  EXPECT_EQ(p.time_zone, "Unix seconds (sacct --json)");
  EXPECT_NEAR(p.points[2].busy_gpus, 4, 1e-9);
}

TEST(ReplayPrediction, AHistoryNoJobOfWhichFitsIsRefused) {
  try {
    (void)predict_occupancy(history(), SacctClock{3600, "+01:00"}, quarter_hours(), 900,
                            uniform_simulated_cluster(1, 1), *make_queue_policy("fifo"), {});
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("no job can run"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace gputwin
