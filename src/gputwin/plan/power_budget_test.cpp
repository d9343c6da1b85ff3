#include "gputwin/plan/power_budget.hpp"

#include <gtest/gtest.h>

#include "gputwin/design/design.hpp"
#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/plan/workload_fit.hpp"

namespace gputwin {
namespace {

using testing::model_presets;

const testing::PerfSetup& setup() {
  return testing::perf_setup();
}

const PowerModelData& power() {
  static const PowerModelData data =
      load_power_model(std::string(GPUTWIN_SOURCE_DIR) + "/data/power/power-model.yaml").value();
  return data;
}

const std::vector<PrecisionRecipe>& recipes() {
  static const auto loaded =
      load_precision_recipes(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/precision-recipes.yaml").value();
  return loaded;
}

// Llama 3 8B on DGX H100 (and DGX B200 when `systems` lists both) within `budget` of facility power.
std::string spec_text(const std::string& budget, const std::string& nodes = "system: dgx-h100") {
  return R"(name: within a power budget
nodes:
  )" + nodes + R"(
  workload: {model: llama3-8b, tokens: 2T, sequence: 8192, global_batch: 512}
fabrics:
  compute:
    topology: leaf_spine
    switch: qm9700
    link_speed: 400 Gb/s
    oversubscription: "1:1"
facility:
  rack_power_limit: 42 kW
  pdu: px3-5878i2r
  cooling: air-standard
  pue: 1.3
  power_budget: )" +
         budget + "\n";
}

ClusterSpec parsed(const std::string& text) {
  auto spec = parse_cluster_spec(text, "budget.yaml", setup().catalog);
  EXPECT_TRUE(spec.ok()) << spec.error_text();
  return std::move(spec).value();
}

WorkloadFitInputs inputs() {
  return {&model_presets(),
          &setup().collectives,
          &setup().calibration,
          131072,
          load_memory_reserve(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/memory.yaml").value(),
          &recipes(),
          &power()};
}

Result<WorkloadFit> fitted(ClusterSpec& spec) {
  return fit_workload(spec, setup().catalog, inputs());
}

TEST(PowerBudget, TheWinnerFitsTheBudgetAndOneMoreNodeWouldNot) {
  ClusterSpec spec = parsed(spec_text("600 kW"));
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  const PowerBudgetPlan& plan = *fit.value().budget;
  const BudgetCandidate& won = plan.candidates.at(plan.chosen);
  EXPECT_TRUE(won.chosen);
  EXPECT_EQ(spec.node_count, won.nodes);
  // The chosen design, designed as plan designs it (its GPUs at the cap), is within the budget.
  const Catalog capped = plan.cap ? capped_catalog(setup().catalog, power(), spec, *plan.cap) : setup().catalog;
  const auto design = design_cluster(spec, capped);
  ASSERT_TRUE(design.ok()) << design.error_text();
  EXPECT_LE(design.value().power.facility_max.base(), 600e3);
  EXPECT_NEAR(in_kilowatts(design.value().power.facility_max), won.facility_kw, 1e-9);
  // Every candidate that fits holds the most nodes whose design fits: one more is over the budget (or the
  // count was rounded down to a whole leaf, which is then faster).
  for (const BudgetCandidate& row : plan.candidates) {
    if (!row.fits) continue;
    EXPECT_LE(row.facility_kw, 600.0) << row.system << " at " << row.cap.base();
  }
  ClusterSpec more = with_count(spec, capped, won.nodes + 4);  // one more leaf of DGX H100
  const auto bigger = design_cluster(more, capped);
  ASSERT_TRUE(bigger.ok());
  EXPECT_GT(bigger.value().power.facility_max.base(), 600e3);
}

TEST(PowerBudget, ATighterBudgetNeverGivesMoreThroughput) {
  double previous = 0;
  for (const char* budget : {"150 kW", "300 kW", "600 kW", "1.2 MW"}) {
    ClusterSpec spec = parsed(spec_text(budget));
    const auto fit = fitted(spec);
    ASSERT_TRUE(fit.ok()) << fit.error_text();
    const PowerBudgetPlan& plan = *fit.value().budget;
    const double throughput = plan.candidates.at(plan.chosen).tokens_per_second;
    EXPECT_GE(throughput, previous) << budget;
    previous = throughput;
  }
}

TEST(PowerBudget, CapsComeFromThePowerModelsPublishedRange) {
  ClusterSpec spec = parsed(spec_text("600 kW", "choose: [dgx-h100, dgx-b200]"));
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  std::vector<double> h100_caps;
  int b200_rows = 0;
  for (const BudgetCandidate& row : fit.value().budget->candidates) {
    if (row.accelerator == "h100-sxm") h100_caps.push_back(row.cap.base());
    if (row.accelerator == "b200") {
      ++b200_rows;
      EXPECT_FALSE(row.capped);  // no published settable range: its default limit only
    }
  }
  // 700 W (TDP) down to the published 200 W minimum in the data file's 100 W steps.
  EXPECT_EQ(h100_caps, (std::vector<double>{700, 600, 500, 400, 300, 200}));
  EXPECT_EQ(b200_rows, 1);
  // A lower cap buys more nodes in the same budget.
  const auto& rows = fit.value().budget->candidates;
  EXPECT_GT(rows.at(5).nodes, rows.at(0).nodes);
}

TEST(PowerBudget, ABudgetTooSmallForOneNodeNamesTheSmallestUsefulBudget) {
  ClusterSpec spec = parsed(spec_text("5 kW"));
  const auto fit = fitted(spec);
  ASSERT_FALSE(fit.ok());
  const InputError& error = fit.errors().front();
  EXPECT_EQ(error.field, "facility.power_budget");
  EXPECT_EQ(error.where.line, 16);
  // The smallest design: one DGX H100 with its GPUs at the 200 W minimum, its leaf and rack.
  ClusterSpec one = parsed(spec_text("5 kW"));
  const Catalog capped = capped_catalog(setup().catalog, power(), one, Power::from_base(200));
  const auto design = design_cluster(with_count(one, capped, 1), capped);
  ASSERT_TRUE(design.ok());
  EXPECT_NE(error.message.find("give at least that"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find(format_power(design.value().power.facility_max)), std::string::npos)
      << error.message;
}

TEST(PowerBudget, ACountWithABudgetAndABudgetWithoutUnitsAreLocatedErrors) {
  std::string text = spec_text("600 kW");
  const auto at = text.find("  workload:");
  const std::string counted = text.substr(0, at) + "  count: 4\n" + text.substr(text.find('\n', at) + 1);
  const auto refused = parse_cluster_spec(counted, "budget.yaml", setup().catalog);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.errors().front().field, "nodes.count");
  const auto bare = parse_cluster_spec(spec_text("20"), "budget.yaml", setup().catalog);
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.errors().front().field, "facility.power_budget");
  EXPECT_NE(bare.errors().front().message.find("missing unit"), std::string::npos);
}

TEST(PowerBudget, TheCappedCatalogLowersTheNodesMaximumByTheCapsSavings) {
  ClusterSpec spec = parsed(spec_text("600 kW"));
  const Catalog capped = capped_catalog(setup().catalog, power(), spec, Power::from_base(500));
  const System& before = setup().catalog.get<System>("dgx-h100");
  const System& after = capped.get<System>("dgx-h100");
  EXPECT_DOUBLE_EQ(after.power_max.base(), before.power_max.base() - 8 * (700 - 500));
  ASSERT_TRUE(after.power_typical.has_value());
  EXPECT_LT(*after.power_typical, before.power_typical.value_or(before.power_max));
}

}  // namespace
}  // namespace gputwin
