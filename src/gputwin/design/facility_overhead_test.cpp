// Facility power by IT load: the bundled air cooling's overhead split reproduces its source's table, the
// curve meets the site's PUE at full load and rises above it at part load, and a design prints both.
#include "gputwin/design/facility_overhead.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::plan_file;

const OverheadCurve& air_curve() {
  const Result<OverheadCurves>& curves = bundled_overhead_curves();
  EXPECT_TRUE(curves.ok()) << curves.error_text();
  const OverheadCurve* curve = curves.value().find("air-standard");
  EXPECT_NE(curve, nullptr);
  return *curve;
}

// Schneider Electric WP113, Table 2: the "total loss (single parameter)" column, a separate column of the
// source from the three split columns data/power/facility-overhead.yaml carries: UPS 9 %, PDU 3 %, lighting 1
// %, wiring 1 %, switchgear 0.5 %, generator 0.3 %, CRAC 9 %, humidifier 2 %, chiller plant 32 %.
TEST(FacilityOverhead, TheAirSplitAddsUpToItsSourcesTotalColumn) {
  const OverheadCurve& curve = air_curve();
  const double totals[] = {0.09, 0.03, 0.01, 0.01, 0.005, 0.003, 0.09, 0.02, 0.32};
  ASSERT_EQ(curve.components.size(), std::size(totals));
  double total = 0.0;
  for (std::size_t i = 0; i < curve.components.size(); ++i) {
    const OverheadComponent& c = curve.components[i];
    EXPECT_NEAR(c.no_load + c.proportional + c.square_law, totals[i], 1e-12) << c.name;
    total += totals[i];
  }
  EXPECT_NEAR(curve.full_load(), total, 1e-12);
  EXPECT_NEAR(curve.no_load(), 0.228, 1e-12);
  EXPECT_NEAR(curve.proportional(), 0.32, 1e-12);
  EXPECT_NEAR(curve.square_law(), 0.03, 1e-12);
}

// At the source's own scale (full-load PUE 1 + 0.578) the curve is the table's losses: facility power at a
// load x of a 1 MW rating is 1 MW x (x + 0.228 + 0.32 x + 0.03 x^2) at every x.
TEST(FacilityOverhead, AtItsSourcesScaleTheCurveIsTheTable) {
  const OverheadCurve& curve = air_curve();
  const FacilityOverhead overhead = facility_overhead(&curve, 1.0 + curve.full_load(), kilowatts(1000));
  ASSERT_TRUE(overhead.curve);
  for (const double x : {0.0, 0.1, 0.3, 0.5, 0.76, 1.0}) {
    const double expected_mw = x + 0.228 + 0.32 * x + 0.03 * x * x;
    EXPECT_NEAR(in_watts(overhead.facility_power(kilowatts(1000 * x))) / 1e6, expected_mw, 1e-12) << x;
  }
  EXPECT_NEAR(overhead.pue_at(kilowatts(100)), 1.0 + (0.228 + 0.032 + 0.0003) / 0.1, 1e-12);
}

TEST(FacilityOverhead, MeetsTheSitePueAtFullLoadAndCostsMoreAtPartLoad) {
  const FacilityOverhead overhead = facility_overhead(&air_curve(), 1.4, kilowatts(500));
  EXPECT_NEAR(overhead.pue_at(kilowatts(500)), 1.4, 1e-12);
  EXPECT_NEAR(in_watts(overhead.facility_power(Power{})), in_watts(overhead.fixed), 1e-9);
  EXPECT_NEAR(overhead.fixed_share(), 0.228 / 0.578, 1e-12);
  double previous = overhead.pue_at(kilowatts(500));
  for (const double kw : {400.0, 300.0, 200.0, 100.0, 50.0}) {
    const double pue = overhead.pue_at(kilowatts(kw));
    EXPECT_GT(pue, previous) << kw << " kW: a fixed overhead weighs more on less IT load";
    previous = pue;
  }
}

TEST(FacilityOverhead, WithoutASplitItIsOnePueAtEveryLoad) {
  const FacilityOverhead overhead = facility_overhead(nullptr, 1.3, kilowatts(500));
  EXPECT_FALSE(overhead.curve);
  for (const double kw : {0.0, 50.0, 250.0, 500.0})
    EXPECT_NEAR(in_watts(overhead.facility_power(kilowatts(kw))), kw * 1000 * 1.3, 1e-9);
}

// The 4-SU DGX H100 SuperPOD (air-standard, PUE 1.4): maximum at the site's PUE, typical above typical x PUE.
TEST(FacilityOverhead, APlanUsesTheCurveAtTypicalLoad) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const PowerSummary& power = cluster.power;
  // The design carries its cooling class and its curve: no one reads the spec again to learn them.
  EXPECT_EQ(power.cooling, "air-standard");
  const FacilityOverhead& overhead = power.overhead;
  ASSERT_TRUE(overhead.curve);
  EXPECT_NEAR(overhead.full_load_pue, 1.4, 1e-12);
  EXPECT_NEAR(in_watts(overhead.capacity), in_watts(power.it_max), 1e-9);
  EXPECT_NEAR(in_watts(overhead.fixed), in_watts(power.it_max) * 0.4 / 0.578 * 0.228, 1e-3);
  EXPECT_NEAR(overhead.proportional, 0.4 / 0.578 * 0.32, 1e-9);
  EXPECT_NEAR(in_watts(overhead.square_law), in_watts(power.it_max) * 0.4 / 0.578 * 0.03, 1e-3);
  EXPECT_NE(overhead.basis.find("air-standard split"), std::string::npos) << overhead.basis;
  EXPECT_NEAR(in_watts(power.facility_max), in_watts(power.it_max) * 1.4, 1e-3);
  const double load = power.it_typical / power.it_max;
  ASSERT_LT(load, 1.0);
  const double overhead_w = in_watts(power.it_max) * 0.4 / 0.578 * (0.228 + 0.32 * load + 0.03 * load * load);
  EXPECT_NEAR(in_watts(power.facility_typical), in_watts(power.it_typical) + overhead_w, 1e-3);
  EXPECT_GT(in_watts(power.facility_typical), in_watts(power.it_typical) * 1.4);
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

TEST(FacilityOverhead, ACoolingClassWithoutASplitOrHeatToLiquidIsOnePue) {
  PowerSummary power;
  power.it_max = kilowatts(1000);
  power.pue = power.air_pue = power.liquid_pue = 1.3;
  const FacilityOverhead rear = design_facility_overhead("rear-door-hx", power);
  EXPECT_FALSE(rear.curve);
  EXPECT_EQ(rear.basis, "no overhead split for rear-door-hx");
  power.liquid_pue = 1.1;
  const FacilityOverhead liquid = design_facility_overhead("air-standard", power);
  EXPECT_FALSE(liquid.curve);
  EXPECT_EQ(liquid.basis, "no overhead split for heat sent to liquid");
}

TEST(FacilityOverhead, AFractionOutOfRangeIsALocatedError) {
  testing::expect_located_error(
      load_overhead_curves,
      "curves:\n  - cooling: x\n    source: s\n    confidence: read\n    components:\n"
      "      - {name: UPS, no_load: 1.5, proportional: 0, square_law: 0}\n",
      6, {"no_load", "between 0 and 1"});
}

}  // namespace
}  // namespace gputwin
