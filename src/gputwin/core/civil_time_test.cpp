#include "gputwin/core/civil_time.hpp"

#include <gtest/gtest.h>

namespace gputwin {
namespace {

TEST(UtcOffset, ReadsUtcAndSignedOffsets) {
  EXPECT_EQ(parse_utc_offset("UTC"), 0);
  EXPECT_EQ(parse_utc_offset("Z"), 0);
  EXPECT_EQ(parse_utc_offset("+01:00"), 3600);
  EXPECT_EQ(parse_utc_offset("UTC-05:00"), -5 * 3600);
  EXPECT_EQ(parse_utc_offset("+05:30"), 5 * 3600 + 30 * 60);
  EXPECT_EQ(parse_utc_offset("+14:00"), 14 * 3600);
}

TEST(UtcOffset, RefusesZoneNamesAndMalformedOffsets) {
  for (const char* text : {"Europe/Berlin", "CET", "+1", "+0100", "01:00", "+14:30", "+02:60", "UTC+", ""})
    EXPECT_FALSE(parse_utc_offset(text).has_value()) << text;
}

TEST(UtcOffset, LocalTimeMinusTheOffsetIsUtc) {
  // 12:30 in +01:00 is 11:30 UTC.
  const auto local = parse_timestamp("2026-11-26T12:30:00", 'T');
  const auto utc = parse_timestamp("2026-11-26T11:30:00", 'T');
  ASSERT_TRUE(local && utc);
  EXPECT_EQ(*local - *parse_utc_offset("+01:00"), *utc);
}

}  // namespace
}  // namespace gputwin
