#include "gputwin/sim/checkpoint_interval.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <string>

namespace gputwin {
namespace {

// Daly's worked example (FGCS 2006) in ../shared/data/reliability.yaml: at a 5-minute checkpoint write, the
// optimum interval is 117 min at M = 24 h and 57 min at M = 6 h (published, rounded to the minute); Young's
// formula gives 120 and 60, Daly's 116.7 and 56.7 to the printed tenth.
TEST(CheckpointInterval, ReproducesTheTestVectorsOfReliabilityYaml) {
  const std::string path = std::string(GPUTWIN_SHARED_DIR) + "/data/reliability.yaml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "../shared is absent: " << path;
  const YAML::Node vectors = YAML::LoadFile(path)["checkpoint_interval"]["test_vectors"];
  const double write_hours = vectors["conditions"]["checkpoint_write_min"].as<double>() / 60.0;
  int checked = 0;
  for (const auto& row : vectors["rows"]) {
    const double mtbf = row["mtbf_h"].as<double>();
    const double young_min = young_interval_hours(write_hours, mtbf) * 60.0;
    const double daly_min = daly_interval_hours(write_hours, mtbf) * 60.0;
    // Exactly as printed: Young's to the minute, Daly's to the tenth, the published optimum to the minute.
    EXPECT_EQ(std::round(young_min), row["young_formula_min"].as<double>()) << mtbf;
    EXPECT_EQ(std::round(daly_min * 10.0) / 10.0, row["daly_formula_min"].as<double>()) << mtbf;
    EXPECT_EQ(std::round(daly_min), row["tau_opt_published_min"].as<double>()) << mtbf;
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(CheckpointInterval, DalyIsTheMtbfWhenTheWriteTakesLongerThanTwoMtbfs) {
  EXPECT_DOUBLE_EQ(daly_interval_hours(5.0, 2.0), 2.0);
  EXPECT_LT(daly_interval_hours(1.0, 2.0), young_interval_hours(1.0, 2.0));
}

TEST(CheckpointInterval, FirstOrderWasteIsSmallestNearYoungsInterval) {
  const double write = 0.1;
  const double mtbf = 10;
  const double young = young_interval_hours(write, mtbf);
  const double at_young = first_order_waste(write, young, 0.2, mtbf);
  EXPECT_LT(at_young, first_order_waste(write, young * 0.7, 0.2, mtbf));
  EXPECT_LT(at_young, first_order_waste(write, young * 1.4, 0.2, mtbf));
}

}  // namespace
}  // namespace gputwin
