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

}  // namespace
}  // namespace gputwin
