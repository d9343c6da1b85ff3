#include "gputwin/report/power_report.hpp"

#include <gtest/gtest.h>

namespace gputwin {
namespace {

PowerReport sample_report() {
  PowerReport r;
  r.point.accelerator = "h100-sxm";
  r.point.default_limit = Power::from_base(700);
  r.point.limit = Power::from_base(500);
  r.point.capped = true;
  r.point.compute_factor = 0.88;
  r.point.memory_factor = 1;
  r.point.draw = {Power::from_base(500), Power::from_base(300), Power::from_base(300), Power::from_base(79)};
  r.node = {8, Power::from_base(4600), "rule", 4, "4 per rack"};
  r.system_id = "dgx-h100";
  r.energy.seconds = 2;
  r.energy.gpu_average = Power::from_base(450);
  r.energy.gpu_peak = Power::from_base(500);
  r.energy.node_average = Power::from_base(8 * 450 + 4600);
  r.energy.node_peak = Power::from_base(8 * 500 + 4600);
  r.energy.rack_average = r.energy.node_average * 4;
  r.energy.rack_peak = r.energy.node_peak * 4;
  r.energy.gpus = 8;
  r.energy.nodes = 1;
  r.energy.energy_j = 3.6e6;  // 1 kWh
  r.tokens_per_unit = 1e6;
  r.default_seconds = 1.8;
  return r;
}

TEST(PowerReport, JsonIsReadBackExactly) {
  const PowerReport r = sample_report();
  const nlohmann::json document = {{"schema", "gputwin.perf-train/1"}, {"power", power_json(r)}};
  const auto back = power_summary_from_json(document.dump(2), "train.json");
  ASSERT_TRUE(back.ok()) << back.error_text();
  const EnergySummary& s = back.value();
  EXPECT_EQ(s.accelerator, "h100-sxm");
  EXPECT_EQ(s.limit_w, 500);
  EXPECT_EQ(s.default_limit_w, 700);
  EXPECT_TRUE(s.capped);
  EXPECT_DOUBLE_EQ(s.compute_factor, 0.88);
  EXPECT_DOUBLE_EQ(s.node_peak_w, 8600);
  EXPECT_DOUBLE_EQ(s.rack_average_w, 4 * 8200);
  EXPECT_DOUBLE_EQ(s.energy_per_unit_kwh, 1.0);
  EXPECT_DOUBLE_EQ(s.energy_per_token_j, 3.6);
}

TEST(PowerReport, AMissingFieldIsNamedByItsPointer) {
  nlohmann::json power = power_json(sample_report());
  power.erase("gpu_peak_w");
  const nlohmann::json document = {{"power", power}};
  const auto back = power_summary_from_json(document.dump(2), "train.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error_text().find("/power: missing field 'gpu_peak_w'"), std::string::npos)
      << back.error_text();
}

TEST(PowerReport, TextStatesTheCapTheSlowdownAndTheEnergy) {
  const std::string text = power_text(sample_report());
  EXPECT_NE(text.find("h100-sxm capped at 500 W, default limit 700 W"), std::string::npos) << text;
  EXPECT_NE(text.find("+11.1 % against 1.8 s at 700 W"), std::string::npos) << text;
  EXPECT_NE(text.find("1 kWh per step"), std::string::npos) << text;
  EXPECT_NE(text.find("3.6 J per token"), std::string::npos) << text;
  EXPECT_NE(text.find("1000 MWh per 1T tokens"), std::string::npos) << text;
}

}  // namespace
}  // namespace gputwin
