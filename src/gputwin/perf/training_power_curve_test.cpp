#include "gputwin/perf/training_power_curve.hpp"

#include <gtest/gtest.h>

#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/perf/system_power.hpp"

namespace gputwin {
namespace {

using testing::bundled_power_model;
using testing::perf_setup;
using testing::source_path;

const Accelerator& accelerator(const std::string& id) {
  return perf_setup().catalog.get<Accelerator>(id);
}

TEST(TrainingPowerCurve, RunsFromTheMinimumSettableLimitToTheDefault) {
  const Accelerator& h100 = accelerator("h100-sxm");
  const auto curve = training_power_curve(bundled_power_model(), h100, Power::from_base(10));
  ASSERT_GE(curve.size(), 2U);
  EXPECT_EQ(in_watts(curve.front().limit),
            in_watts(*bundled_power_model().accelerators.at("h100-sxm").min_limit));
  EXPECT_EQ(in_watts(curve.back().limit), in_watts(h100.tdp));
  EXPECT_EQ(curve.back().throughput, 1.0);
  // At the default limit a busy GPU draws what plan's typical power counts for it.
  EXPECT_NEAR(in_watts(curve.back().gpu_draw),
              in_watts(typical_training_gpu_draw(bundled_power_model(), h100)), 1e-6);
  for (std::size_t i = 1; i < curve.size(); ++i) {
    EXPECT_GT(curve[i].limit, curve[i - 1].limit);
    EXPECT_GE(curve[i].throughput, curve[i - 1].throughput) << "a higher limit never runs slower";
    EXPECT_GE(curve[i].gpu_draw, curve[i - 1].gpu_draw) << "a higher limit never draws less";
  }
  for (const auto& point : curve) {
    EXPECT_LE(point.gpu_draw, point.limit) << "the average draw stays under the limit";
    EXPECT_GT(point.throughput, 0.0);
  }
  EXPECT_LT(curve.front().throughput, 0.9) << "a 200 W cap on a 700 W GPU costs training throughput";
}

TEST(TrainingPowerCurve, AGpuWithoutASettableRangeHasItsDefaultOnly) {
  const Accelerator& b200 = accelerator("b200");
  const auto curve = training_power_curve(bundled_power_model(), b200, Power::from_base(10));
  ASSERT_EQ(curve.size(), 1U);
  EXPECT_EQ(curve.front().limit, b200.tdp);
  EXPECT_EQ(curve.front().throughput, 1.0);
}

}  // namespace
}  // namespace gputwin
