#include "gputwin/prometheus/time_params.hpp"

#include <gtest/gtest.h>

namespace gputwin::prometheus {
namespace {

TEST(TimeParams, ReadsRfc3339AndUnixTimes) {
  // 2026-11-26 is day 20,783 since 1970-01-01: 20783 x 86400 + 12 h.
  EXPECT_EQ(parse_time("2026-11-26T12:00:00Z"), 20783.0 * 86400 + 12 * 3600);
  EXPECT_EQ(parse_time("2026-11-26T13:00:00+01:00"), parse_time("2026-11-26T12:00:00Z"));
  EXPECT_EQ(parse_time("2026-11-26T06:30:00.25-05:30"), 20783.0 * 86400 + 12 * 3600 + 0.25);
  EXPECT_EQ(parse_time("1795003200"), 1795003200.0);
  EXPECT_EQ(parse_time("1795003200.5"), 1795003200.5);
  EXPECT_FALSE(parse_time("2026-11-26T12:00:00"));  // no zone: not a time
  EXPECT_FALSE(parse_time("2026-02-30T12:00:00Z"));
  EXPECT_FALSE(parse_time("yesterday"));
  EXPECT_FALSE(parse_time("-5"));
}

TEST(TimeParams, ReadsPrometheusDurations) {
  EXPECT_EQ(parse_duration("5m"), 300.0);
  EXPECT_EQ(parse_duration("24h"), 86400.0);
  EXPECT_EQ(parse_duration("1h30m"), 5400.0);
  EXPECT_EQ(parse_duration("1d"), 86400.0);
  EXPECT_EQ(parse_duration("250ms"), 0.25);
  EXPECT_EQ(parse_duration("1m30s"), 90.0);
  EXPECT_FALSE(parse_duration("30m1h"));  // largest unit first
  EXPECT_FALSE(parse_duration("5"));
  EXPECT_FALSE(parse_duration("0s"));
  EXPECT_FALSE(parse_duration("5 minutes"));
}

TEST(TimeParams, WritesRfc3339InUtc) {
  EXPECT_EQ(rfc3339(20783.0 * 86400 + 12 * 3600), "2026-11-26T12:00:00Z");
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(rfc3339(951782400.5), "2000-02-29T00:00:00.500Z");
  EXPECT_EQ(*parse_time(rfc3339(1795003200.25)), 1795003200.25);
  EXPECT_EQ(duration_text(300), "300s");
  EXPECT_EQ(duration_text(0.25), "250ms");
}

}  // namespace
}  // namespace gputwin::prometheus
