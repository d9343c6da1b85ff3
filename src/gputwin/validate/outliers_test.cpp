#include "gputwin/validate/outliers.hpp"

#include <gtest/gtest.h>

namespace gputwin::validate {
namespace {

OutlierSettings settings() {
  return {3.5, 1.4826, 1.253314, 5};
}

TEST(RobustSpread, MedianAndScaledMad) {
  const RobustSpread spread = robust_spread({1, 2, 3, 4, 100}, settings());
  EXPECT_DOUBLE_EQ(spread.median, 3);
  EXPECT_TRUE(spread.from_mad);
  EXPECT_DOUBLE_EQ(spread.spread, 1.4826 * 1);  // deviations 2 1 0 1 97 -> MAD 1
}

TEST(RobustSpread, EvenCountTakesTheMiddlePair) {
  EXPECT_DOUBLE_EQ(robust_spread({4, 1, 3, 2}, settings()).median, 2.5);
}

TEST(RobustSpread, MadZeroFallsBackToMeanAbsoluteDeviation) {
  const RobustSpread spread = robust_spread({10, 10, 10, 10, 50}, settings());
  EXPECT_FALSE(spread.from_mad);
  EXPECT_NEAR(spread.spread, 1.253314 * 8, 1e-12);  // mean |x - 10| = 40 / 5
}

TEST(GroupOutliers, NamesTheFarValueOnly) {
  const std::vector<Sample> samples = {{"n1", 0, 230}, {"n2", 0, 231}, {"n3", 0, 229},
                                       {"n4", 0, 232}, {"n5", 0, 130}, {"n6", 0, 230.5}};
  const auto found = group_outliers("busbw", "GB/s", "all_reduce", samples, settings());
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].node, "n5");
  EXPECT_DOUBLE_EQ(found[0].median, 230.25);
  EXPECT_LT(found[0].robust_z, -3.5);
  EXPECT_EQ(found[0].group_size, 6);
}

TEST(GroupOutliers, MadZeroStillFindsTheOddOneOut) {
  const std::vector<Sample> samples = {{"a", 0, 1980}, {"b", 0, 1980}, {"c", 0, 1980},
                                       {"d", 0, 1980}, {"e", 0, 1980}, {"f", 1, 1410}};
  const auto found = group_outliers("sm_clock", "MHz", "H100", samples, settings());
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].node, "f");
  EXPECT_FALSE(found[0].spread_from_mad);
}

TEST(GroupOutliers, AllEqualOrTooFewIsNoOutlier) {
  EXPECT_TRUE(group_outliers("t", "C", "g",
                             {{"a", 0, 60}, {"b", 0, 60}, {"c", 0, 60}, {"d", 0, 60}, {"e", 0, 60}},
                             settings())
                  .empty());
  EXPECT_TRUE(group_outliers("t", "C", "g", {{"a", 0, 60}, {"b", 0, 61}, {"c", 0, 99}}, settings()).empty());
}

}  // namespace
}  // namespace gputwin::validate
