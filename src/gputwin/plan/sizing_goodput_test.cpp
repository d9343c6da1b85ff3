#include "gputwin/plan/sizing_goodput.hpp"

#include <gtest/gtest.h>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

FailureRates bundled_rates() {
  auto rates = load_failure_rates(bundled_data_dir() + "/reliability/failure-rates.yaml");
  EXPECT_TRUE(rates.ok()) << rates.error_text();
  return std::move(rates).value();
}

SizingRow row(const std::string& accelerator, const std::string& system, int gpus, double days) {
  SizingRow r;
  r.accelerator = accelerator;
  r.system = system;
  r.gpus = gpus;
  r.days = days;
  return r;
}

// A sized run takes longer than its failure-free days, the more so the larger it is; rows without an answer
// get no goodput line.
TEST(SizingGoodput, LargerRunsLoseMoreAndNeedMoreSpares) {
  const FailureRates rates = bundled_rates();
  const std::vector<SizingRow> rows = {row("h100-sxm", "dgx-h100", 16384, 20),
                                       row("h100-sxm", "dgx-h100", 1024, 20), row("mi300x", "", 0, 0)};
  const auto goodput = goodput_of_sizing(rows, testing::perf_setup().catalog, rates, "llama3-table5", 10);
  ASSERT_EQ(goodput.size(), 2U);
  EXPECT_NEAR(goodput[0].mttf_hours, 1296.0 / 419.0, 1e-9);  // Llama 3's own scale
  EXPECT_LT(goodput[0].ettr, goodput[1].ettr);
  EXPECT_LT(goodput[0].ettr, 1.0);
  EXPECT_GT(goodput[0].wall_days, 20.0);
  EXPECT_NEAR(goodput[0].wall_days, 20.0 / goodput[0].ettr, 0.5);
  EXPECT_GT(goodput[0].spare_nodes, goodput[1].spare_nodes);
  EXPECT_TRUE(goodput_of_sizing(rows, testing::perf_setup().catalog, rates, "no-such-profile", 10).empty());
}

// The deadline rule perf size and plan share is the goodput table's own number: the time-to-train it hands
// the sizing for a run is the table's, longer than the work days; an unknown profile gives none (the sizing
// then says it held work days).
TEST(SizingGoodput, TheDeadlineRuleIsTheGoodputTablesTimeToTrain) {
  const FailureRates rates = bundled_rates();
  const Catalog& catalog = testing::perf_setup().catalog;
  const System& dgx = catalog.get<System>("dgx-h100");
  const TimeToTrain rule = time_to_train_under_failures(rates, "llama3-table5", 10);
  const auto table =
      goodput_of_sizing({row("h100-sxm", "dgx-h100", 8192, 19.4)}, catalog, rates, "llama3-table5", 10);
  ASSERT_EQ(table.size(), 1U);
  const auto wall = rule(dgx, 8192, 19.4);
  ASSERT_TRUE(wall.has_value());
  EXPECT_DOUBLE_EQ(*wall, table[0].wall_days);
  EXPECT_GT(*wall, 19.4 / 0.95);  // Llama 3's rates on 1,024 nodes cost more than 5 %
  EXPECT_FALSE(time_to_train_under_failures(rates, "no-such-profile", 10)(dgx, 8192, 19.4).has_value());
}

}  // namespace
}  // namespace gputwin
