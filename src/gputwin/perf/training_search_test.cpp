#include "gputwin/perf/training_search.hpp"

#include <gtest/gtest.h>

#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::model_presets;
using testing::source_path;

const testing::PerfSetup& setup() { return testing::perf_setup(); }

TrainingConfig base(int global_batch) {
  TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = global_batch;
  return c;
}

TEST(TrainingSearch, BestFitsAndNoOtherFittingSplitIsFaster) {
  const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 8).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  const auto search = search_training(hw, setup().collectives, setup().calibration, llama, base(64), 64);
  ASSERT_TRUE(search.best.has_value());
  EXPECT_TRUE(search.best->memory.fits());
  EXPECT_EQ(search.best->config.gpus(), 64);
  EXPECT_GT(search.candidates, search.fitting);  // some splits do not fit 70B in 80 GB
  // Spot-check against a hand-picked split that fits: the search must not be slower.
  TrainingConfig manual = base(64);
  manual.tp = 8;
  manual.pp = 4;
  manual.dp = 0;
  ASSERT_TRUE(check_training_config(llama, manual, 64).empty());
  ASSERT_TRUE(training_memory(llama, manual, hw.accelerator.memory).fits());
  const auto e = estimate_training(hw, setup().collectives, setup().calibration, llama, manual);
  EXPECT_LE(search.best->step_time_s, e.step_time_s);
}

TEST(TrainingSearch, NothingFitsWhenTheModelCannotFit) {
  const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", 1).value();
  const TransformerModel& llama = *find_model(model_presets(), "llama3.1-405b");
  const auto search = search_training(hw, setup().collectives, setup().calibration, llama, base(8), 8);
  EXPECT_FALSE(search.best.has_value());  // 405B x 2 bytes of weights alone exceed 8 x 80 GB
  EXPECT_EQ(search.fitting, 0);
}

}  // namespace
}  // namespace gputwin
