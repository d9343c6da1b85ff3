#include "gputwin/perf/system_power.hpp"

#include <gtest/gtest.h>

#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_power_model;
using testing::perf_setup;
using testing::source_path;

const Catalog& catalog() {
  return perf_setup().catalog;
}

SystemTypicalPower typical(const std::string& id) {
  const auto t = typical_system_power(bundled_power_model(), catalog(), catalog().get<System>(id));
  EXPECT_TRUE(t.has_value()) << id;
  return t.value_or(SystemTypicalPower{});
}

TEST(SystemTypicalPower, PublishedDrawWinsWhereOneExists) {
  const SystemTypicalPower dgx = typical("dgx-h100");
  EXPECT_EQ(dgx.note.basis, "published");
  EXPECT_DOUBLE_EQ(dgx.training.base(), 7750);
  EXPECT_NE(dgx.note.source.find("2506.14551"), std::string::npos);
}

TEST(SystemTypicalPower, ModelledAsGpusAtTheTrainingMixPlusTheNonGpuPower) {
  // hgx-h100-8gpu: no published draw. Each H100 at 0.74 x 700 + 0.18 x 300 + 0.08 x 79 = 578.32 W (the mix of
  // the data file), plus 10.2 kW - 8 x 700 W of non-GPU power.
  const TrainingPhaseMix& mix = bundled_power_model().training_mix;
  const double gpu = mix.compute * 700 + mix.memory * 300 + mix.idle * 79;
  const SystemTypicalPower hgx = typical("hgx-h100-8gpu");
  EXPECT_EQ(hgx.note.basis, "modelled");
  EXPECT_EQ(hgx.note.confidence, "derived");
  EXPECT_NEAR(hgx.training.base(), 8 * gpu + 4600, 1e-6);
  // Under a loaded inference server: the published 600 W batch-128 decode draw.
  ASSERT_TRUE(hgx.note.inference.has_value());
  EXPECT_DOUBLE_EQ(hgx.note.inference->base(), 8 * 600 + 4600);
  // A part without published draws uses the generic fractions and says so.
  const SystemTypicalPower b200 = typical("dgx-b200");
  EXPECT_EQ(b200.note.confidence, "generic");
  EXPECT_FALSE(b200.note.inference.has_value());
  const double tdp = catalog().get<Accelerator>("b200").tdp.base();
  const double generic_gpu =
      tdp * (mix.compute + mix.memory * bundled_power_model().generic_memory_bound_fraction +
             mix.idle * bundled_power_model().generic_idle_fraction);
  EXPECT_NEAR(b200.training.base(), 8 * generic_gpu + (14300 - 8 * tdp), 1e-6);
}

TEST(SystemTypicalPower, EverySystemWithGpusHasOneBetweenItsNonGpuPowerAndItsMaximum) {
  int with_gpus = 0;
  for (const System& system : catalog().all<System>()) {
    const auto t = typical_system_power(bundled_power_model(), catalog(), system);
    if (system.accelerator.empty()) {
      EXPECT_FALSE(t.has_value()) << system.info.id;  // nothing to model: the plan says it has none
      continue;
    }
    ++with_gpus;
    ASSERT_TRUE(t.has_value()) << system.info.id;
    const Accelerator& a = catalog().get<Accelerator>(system.accelerator);
    EXPECT_LT(t->training, system.power_max) << system.info.id;
    EXPECT_GT(t->training, non_gpu_power(system, a)) << system.info.id;
    EXPECT_FALSE(t->note.source.empty());
  }
  EXPECT_GE(with_gpus, 10);
}

TEST(SystemTypicalPower, RackScaleSystemIsItsTraysPlusItsSwitchTraysAtMaximum) {
  const RackSystem& rack = catalog().get<RackSystem>("gb200-nvl72");
  const auto t = typical_rack_system_power(bundled_power_model(), catalog(), rack);
  ASSERT_TRUE(t.has_value());
  const SystemTypicalPower tray = typical(rack.compute_tray);
  EXPECT_NEAR(t->training.base(),
              rack.compute_trays * tray.training.base() +
                  rack.switch_trays.count * rack.switch_trays.power_max.base(),
              1e-6);
  EXPECT_LT(t->training, rack.power_max);
  EXPECT_EQ(t->note.basis, "modelled");
}

}  // namespace
}  // namespace gputwin
