// The rank count of an nccl-tests run that prints no "Rank N ... device" lines, from busbw/algbw.
#include "gputwin/validate/nccl_busbw.hpp"

#include <gtest/gtest.h>

#include "gputwin/validate/nccl_tests_text.hpp"
#include "gputwin/validate/text_values.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

// One out-of-place row with the given bandwidths (GB/s, as nccl-tests prints them).
NcclTestsRun run_of(const std::string& collective, double algbw, double busbw) {
  NcclTestsRun run;
  run.source = "run.log";
  run.collective = collective;
  CollectiveRow row;
  row.size = bytes(1 << 30);
  row.out_of_place.algorithm_bandwidth = gigabytes_per_second(algbw);
  row.out_of_place.bus_bandwidth = gigabytes_per_second(busbw);
  run.rows.push_back(row);
  return run;
}

TEST(RanksFromBandwidths, FollowsEachCollectivesBusbwFactor) {
  EXPECT_EQ(rank_count(run_of("all_reduce", 247.94, 433.90)), 8);     // 2(n-1)/n = 1.75
  EXPECT_EQ(rank_count(run_of("all_gather", 201.32, 188.73)), 16);    // (n-1)/n = 0.9375
  EXPECT_EQ(rank_count(run_of("reduce_scatter", 100.00, 75.00)), 4);  // (n-1)/n = 0.75
  EXPECT_EQ(rank_count(run_of("alltoall", 64.00, 56.00)), 8);
}

TEST(RanksFromBandwidths, BroadcastAndReduceDoNotTell) {
  EXPECT_EQ(ranks_from_bandwidths(run_of("broadcast", 180.0, 180.0)), std::nullopt);
  EXPECT_EQ(ranks_from_bandwidths(run_of("reduce", 180.0, 180.0)), std::nullopt);
  EXPECT_EQ(rank_count(run_of("broadcast", 180.0, 180.0)), 0);
}

TEST(RanksFromBandwidths, TwoPrintedDecimalsThatDoNotDecideGiveNoCount) {
  // 1024 ranks of all_gather: r = 0.99902; +-0.005 on 2.00 GB/s spans hundreds of rank counts.
  EXPECT_EQ(ranks_from_bandwidths(run_of("all_gather", 2.00, 1.99)), std::nullopt);
}

TEST(RanksFromBandwidths, RankLinesWinOverTheRatio) {
  NcclTestsRun run = run_of("all_reduce", 247.94, 433.90);
  run.devices = {"a", "b"};
  EXPECT_EQ(rank_count(run), 2);
}

TEST(RanksFromBandwidths, ReadsTheRanksOfFixturesWithoutRankLines) {
  const std::string gather = fixture(
      "nccl-tests/cluster-toolkit/2x-A3Mega-H100-TCPXO_all_gather__gke-a3-megagpu_README.md_L113-148.txt");
  const std::string reduce = fixture(
      "nccl-tests/awsome-distributed-training/"
      "p5-H100-EFA-awsbatch_all_reduce__aws-batch_README.md_L28-64.txt");
  GPUTWIN_REQUIRE_FIXTURE(gather);
  const auto two_a3_mega = NcclTestsText::read_file(gather);
  ASSERT_TRUE(two_a3_mega.ok()) << two_a3_mega.error_text();
  EXPECT_TRUE(two_a3_mega.value().devices.empty());
  EXPECT_EQ(rank_count(two_a3_mega.value()), 16);  // 2 nodes x 8 H100
  const auto one_p5 = NcclTestsText::read_file(reduce);
  ASSERT_TRUE(one_p5.ok()) << one_p5.error_text();
  EXPECT_EQ(rank_count(one_p5.value()), 8);
}

}  // namespace
}  // namespace gputwin::validate
