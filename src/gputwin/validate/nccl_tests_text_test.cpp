#include "gputwin/validate/nccl_tests_text.hpp"

#include <gtest/gtest.h>

#include "gputwin/validate/nccl_tests_json.hpp"
#include "gputwin/validate/text_values.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

NcclTestsRun read_fixture(const std::string& name) {
  const auto result = NcclTestsText::read_file(fixture("nccl-tests/" + name));
  EXPECT_TRUE(result.ok()) << result.error_text();
  return result.ok() ? result.value() : NcclTestsRun{};
}

const CollectiveRow& row_of_size(const NcclTestsRun& run, double size_bytes) {
  for (const CollectiveRow& row : run.rows)
    if (row.size.base() == size_bytes) return row;
  ADD_FAILURE() << "no row of " << size_bytes << " bytes in " << run.source;
  static const CollectiveRow none;
  return none;
}

double busbw(const CollectiveTiming& timing) {
  return timing.bus_bandwidth ? in_gigabytes_per_second(*timing.bus_bandwidth) : -1;
}

// Each size doubles from the first row to the last, with no row lost.
void expect_doubling_sizes(const NcclTestsRun& run, double first, double last) {
  ASSERT_FALSE(run.rows.empty());
  EXPECT_EQ(run.rows.front().size.base(), first);
  EXPECT_EQ(run.rows.back().size.base(), last);
  for (std::size_t i = 1; i < run.rows.size(); ++i)
    EXPECT_EQ(run.rows[i].size.base(), 2 * run.rows[i - 1].size.base()) << "line " << run.rows[i].line;
}

TEST(NcclTestsText, ReadsRankPrefixedRowsWithRootAndWrong) {
  const std::string name = "awsome-distributed-training/2x-p4de-A100-EFA_all_reduce__README.md_L157-187.txt";
  GPUTWIN_REQUIRE_FIXTURE(fixture("nccl-tests/" + name));
  const NcclTestsRun run = read_fixture(name);
  expect_doubling_sizes(run, 8, 2147483648.0);
  EXPECT_EQ(run.rows.size(), 29U);  // 2^3 .. 2^31
  const CollectiveRow& largest = row_of_size(run, 2147483648.0);
  EXPECT_DOUBLE_EQ(busbw(largest.out_of_place), 78.33);
  EXPECT_DOUBLE_EQ(busbw(largest.in_place), 78.33);
  EXPECT_EQ(largest.out_of_place.time_us, 51406.0);
  EXPECT_EQ(largest.root, -1);
  EXPECT_EQ(largest.reduction, "sum");
  EXPECT_EQ(largest.out_of_place.wrong, 0);
  EXPECT_EQ(largest.count, 536870912);
  EXPECT_FALSE(run.average_bus_bandwidth.has_value());  // the README cut the footer
}

TEST(NcclTestsText, ReadsOpenMpiPrefixesAndTheFooter) {
  const std::string name =
      "awsome-distributed-training/p5-H100-EFA-awsbatch_all_reduce__aws-batch_README.md_L28-64.txt";
  GPUTWIN_REQUIRE_FIXTURE(fixture("nccl-tests/" + name));
  const NcclTestsRun run = read_fixture(name);
  expect_doubling_sizes(run, 8, 17179869184.0);
  EXPECT_DOUBLE_EQ(busbw(row_of_size(run, 17179869184.0).in_place), 483.35);
  ASSERT_TRUE(run.average_bus_bandwidth.has_value());
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(*run.average_bus_bandwidth), 156.742);
  EXPECT_EQ(run.out_of_bounds, 0);
}

TEST(NcclTestsText, ReadsIndentedNewerLayoutWithZeroSizes) {
  const std::string name =
      "cluster-toolkit/2x-A3Mega-H100-TCPXO_all_gather__gke-a3-megagpu_README.md_L113-148.txt";
  GPUTWIN_REQUIRE_FIXTURE(fixture("nccl-tests/" + name));
  const NcclTestsRun run = read_fixture(name);
  ASSERT_GE(run.rows.size(), 6U);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(run.rows[static_cast<std::size_t>(i)].size.base(), 0.0);
  EXPECT_EQ(run.rows[0].reduction, "none");
  const CollectiveRow& largest = row_of_size(run, 8589934592.0);
  EXPECT_DOUBLE_EQ(busbw(largest.out_of_place), 188.73);
  EXPECT_EQ(largest.in_place.time_us, 42630.7);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(*run.average_bus_bandwidth), 53.8932);
}

TEST(NcclTestsText, ReadsTheOldErrorColumnWithCrlfLines) {
  const std::string name = "deepops/2x-DGX-A100-HDR-IB_all_reduce__nvidia-network-operator.md_L240-276.txt";
  GPUTWIN_REQUIRE_FIXTURE(fixture("nccl-tests/" + name));
  const NcclTestsRun run = read_fixture(name);
  expect_doubling_sizes(run, 8, 4294967296.0);
  const CollectiveRow& gigabyte = row_of_size(run, 1073741824.0);
  EXPECT_DOUBLE_EQ(busbw(gigabyte.out_of_place), 181.62);
  EXPECT_DOUBLE_EQ(busbw(gigabyte.in_place), 183.13);
  EXPECT_FALSE(gigabyte.root.has_value());  // no root column
  EXPECT_FALSE(gigabyte.out_of_place.wrong.has_value());
  EXPECT_DOUBLE_EQ(gigabyte.out_of_place.max_error.value_or(-1), 5e-07);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(*run.average_bus_bandwidth), 53.7098);
}

TEST(NcclTestsText, ReadsAnEmptyRedopColumnByPosition) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nccl-tests/superbenchmark/nccl_alltoall.log"));
  const NcclTestsRun run = read_fixture("superbenchmark/nccl_alltoall.log");
  const CollectiveRow& gigabyte = row_of_size(run, 1073741824.0);
  EXPECT_FALSE(gigabyte.reduction.has_value());
  EXPECT_EQ(gigabyte.type, "float");
  EXPECT_EQ(gigabyte.out_of_place.time_us, 4335.5);
  EXPECT_DOUBLE_EQ(busbw(gigabyte.out_of_place), 216.71);
  EXPECT_DOUBLE_EQ(busbw(gigabyte.in_place), 219.81);
  EXPECT_FALSE(gigabyte.out_of_place.max_error.has_value());  // "N/A"
  EXPECT_EQ(run.devices.size(), 8U);
  EXPECT_EQ(run.devices[0], "A100-SXM4-40GB");
}

TEST(NcclTestsText, CountsTheInterleavedNcclInfoLineAsSkipped) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nccl-tests/superbenchmark/nccl_allreduce.log"));
  const NcclTestsRun run = read_fixture("superbenchmark/nccl_allreduce.log");
  ASSERT_EQ(run.skipped.size(), 1U);
  EXPECT_EQ(run.skipped[0].line, 16);
  EXPECT_DOUBLE_EQ(busbw(row_of_size(run, 8589934592.0).out_of_place), 235.26);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(*run.average_bus_bandwidth), 68.4048);
}

TEST(NcclTestsText, ReadsEveryTextFixture) {
  const std::string folder = fixture("nccl-tests");
  GPUTWIN_REQUIRE_FIXTURE(folder);
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".json") continue;
    const auto result = NcclTestsText::read_file(entry.path().string());
    ASSERT_TRUE(result.ok()) << result.error_text();
    for (const CollectiveRow& row : result.value().rows)
      EXPECT_TRUE(row.out_of_place.bus_bandwidth.has_value());
    ++files;
  }
  EXPECT_EQ(files, 8);
}

TEST(NcclTestsText, ReadsWrongCountsAndElidedLines) {
  const std::string log =
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s) "
      " (GB/s)\n"
      "            8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    "
      "0.00    0.00      0\n"
      "...\n"
      "          128            32     float     sum      -1    10.00    0.01    0.02      3    10.00    "
      "0.01    0.02      0\n";
  const auto result = NcclTestsText::parse(log, "inline.log");
  ASSERT_TRUE(result.ok()) << result.error_text();
  ASSERT_EQ(result.value().rows.size(), 2U);
  EXPECT_EQ(result.value().rows[1].out_of_place.wrong, 3);
  ASSERT_EQ(result.value().skipped.size(), 1U);
  EXPECT_EQ(result.value().skipped[0].line, 5);
}

TEST(NcclTestsText, NamesTheLineOfARowCutShort) {
  const std::string log =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\n"
      "            8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    "
      "0.00    0.00      0\n"
      "           16             4     float     sum      -1    10.0";
  const auto result = NcclTestsText::parse(log, "cut.log");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 3);
}

TEST(NcclTestsText, NamesTheColumnOfAWordWhereANumberBelongs) {
  const std::string log =
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
      "  busbw #wrong\n"
      "            8             2     float     sum      -1    10.00    fast    0.00      0    10.00    "
      "0.00    0.00      0\n";
  const auto result = NcclTestsText::parse(log, "word.log");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 2);
  EXPECT_EQ(result.errors()[0].field, "algbw");
}

TEST(NcclTestsJson, ReadsTheJsonOutput) {
  const std::string path = fixture("nccl-tests/gpu-systems-lab/allreduce-nccl-tests.json");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const auto result = NcclTestsJson::read_file(path);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const NcclTestsRun& run = result.value();
  EXPECT_EQ(run.collective, "all_reduce");
  EXPECT_EQ(run.nccl_version, 22903);
  ASSERT_EQ(run.rows.size(), 1U);
  const CollectiveRow& row = run.rows[0];
  EXPECT_EQ(row.size.base(), 134217728.0);
  EXPECT_EQ(row.type, "half");
  EXPECT_EQ(row.root, -1);  // written as the text "    -1"
  EXPECT_DOUBLE_EQ(busbw(row.out_of_place), 5.731221);
  EXPECT_DOUBLE_EQ(busbw(row.in_place), 5.717374);
  EXPECT_EQ(row.in_place.wrong, 0);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(*run.average_bus_bandwidth), 5.724297);
  ASSERT_FALSE(run.devices.empty());
  EXPECT_EQ(run.devices[0], "Tesla T4");
  EXPECT_EQ(run.ranks, 2);  // one process (one device entry) driving -g 2 GPUs
}

TEST(NcclTestsJson, NamesTheJsonPathOfAWrongType) {
  const auto result =
      NcclTestsJson::parse("{\"results\": [\n  {\"count\": 1,\n   \"size\": \"big\"}]}", "t.json");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].field, "/results/0/size");
  EXPECT_EQ(result.errors()[0].where.line, 3);  // where "big" is
  EXPECT_EQ(result.errors()[0].where.column, 12);
}

TEST(NcclTestsJson, NamesLineAndColumnOfMalformedJson) {
  const auto result = NcclTestsJson::parse("{\n  \"results\": [\n    {\"size\": 8,,}\n", "m.json");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 3);
}

}  // namespace
}  // namespace gputwin::validate
