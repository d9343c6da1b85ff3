#include "gputwin/plan/buy_vs_rent.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "gputwin/core/test_text.hpp"
#include "gputwin/design/power_and_cost.hpp"
#include "gputwin/plan/load_design.hpp"

namespace gputwin {
namespace {

const Catalog& catalog() {
  static const Catalog loaded = load_catalog({}).value();
  return loaded;
}

// The 1-SU DGX H100 SuperPOD with every part priced (tests/specs/priced-1su.yaml): a complete TCO.
const Cluster& priced_cluster() {
  static const Cluster cluster =
      load_design(std::string(GPUTWIN_SOURCE_DIR) + "/tests/specs/priced-1su.yaml", catalog()).value().cluster;
  return cluster;
}

// A file of the test's own: ctest runs this file's tests in parallel processes, and two of them writing one
// shared rent.yaml raced (one read the other's half-written file).
std::string write_prices(const std::string& name, const std::string& text) {
  return testing::per_test_file(text, "prices", "-" + name);
}

std::string prices_text(const std::string& on_demand, const std::string& reserved_3y = "1.50 USD") {
  return "currency: USD\nunit: per_gpu_hour\nsource: test prices\nprices:\n  h100-sxm:\n    on_demand: " +
         on_demand + "\n    reserved_3y: " + reserved_3y + "\n";
}

BuyVsRent answer_at(const std::string& on_demand, std::optional<WorkloadRun> run = std::nullopt) {
  const auto prices = load_rental_prices(write_prices("rent.yaml", prices_text(on_demand)), catalog());
  EXPECT_TRUE(prices.ok()) << prices.error_text();
  const auto answer = buy_vs_rent(priced_cluster(), prices.value(), run, "priced-1su.yaml");
  EXPECT_TRUE(answer.ok()) << answer.error_text();
  return answer.value();
}

TEST(BuyVsRent, AtTheBreakEvenOwningAndRentingCostTheSame) {
  const BuyVsRent answer = answer_at("4.00 USD");
  ASSERT_EQ(answer.tiers.size(), 2u);
  const Costs& costs = priced_cluster().costs;
  // Owning, computed from the design's own cost lines: capex + lifetime x (energy + support).
  const double owned = in_usd(costs.capex) +
                       costs.lifetime_years * (in_usd(costs.energy_per_year) + in_usd(costs.support_per_year));
  EXPECT_NEAR(in_usd(own_cost_at(answer, 0.5)), owned, 1e-6 * owned);
  for (const RentTierAnswer& tier : answer.tiers) {
    const double u = tier.break_even_utilization;
    ASSERT_GT(u, 0.0);
    // Renting, computed by hand: the price of every GPU-hour used at u over the life.
    const double rented = in_usd(tier.per_gpu_hour) * priced_cluster().gpus * costs.lifetime_years *
                          kHoursPerYear * u;
    EXPECT_NEAR(rented, owned, 1e-6 * owned) << tier.tier;
    EXPECT_NEAR(in_usd(rent_cost_at(answer, tier, u)), in_usd(own_cost_at(answer, u)), 1e-6 * owned);
    // Below the break-even renting is cheaper, above it owning is.
    EXPECT_LT(in_usd(rent_cost_at(answer, tier, 0.9 * u)), owned);
    EXPECT_GT(in_usd(rent_cost_at(answer, tier, 1.1 * u)), owned);
  }
}

TEST(BuyVsRent, ADearerRentalLowersTheBreakEven) {
  const double cheap = answer_at("2.00 USD").tiers.front().break_even_utilization;
  const double dear = answer_at("4.00 USD").tiers.front().break_even_utilization;
  EXPECT_LT(dear, cheap);
  EXPECT_NEAR(dear, cheap / 2, 1e-12);
  // The cheaper tier (3-year reserved at 1.50) needs more use to beat than on-demand.
  const BuyVsRent answer = answer_at("4.00 USD");
  EXPECT_GT(answer.tiers.at(1).break_even_utilization, answer.tiers.at(0).break_even_utilization);
}

TEST(BuyVsRent, TheWorkloadCostsItsGpuHoursBothWays) {
  const BuyVsRent answer = answer_at("4.00 USD", WorkloadRun{"llama3-8b", 248, 10.0});
  const double gpu_hours = 248 * 10.0 * 24;
  ASSERT_TRUE(answer.tiers.front().workload_rent.has_value());
  EXPECT_NEAR(in_usd(*answer.tiers.front().workload_rent), 4.0 * gpu_hours, 1e-6);
  ASSERT_TRUE(answer.workload_own.has_value());
  EXPECT_NEAR(in_usd(*answer.workload_own), in_usd(answer.own_per_gpu_hour) * gpu_hours, 1e-6);
  EXPECT_NEAR(answer.workload_runs_in_life, priced_cluster().costs.lifetime_years * kHoursPerYear / 240, 1e-9);
}

TEST(BuyVsRent, PricesWithoutUnitsAreALocatedError) {
  const auto prices = load_rental_prices(write_prices("bare.yaml", prices_text("4.00")), catalog());
  ASSERT_FALSE(prices.ok());
  const InputError& error = prices.errors().front();
  EXPECT_EQ(error.where.line, 6);
  EXPECT_EQ(error.field, "prices.h100-sxm.on_demand");
  EXPECT_NE(error.message.find("missing unit"), std::string::npos) << error.message;
}

// A price is per GPU-hour only because the file says so, and a price must be an amount of money: a file
// without its `unit:` line, or a tier priced as energy (USD/kWh), is refused where it is written.
TEST(BuyVsRent, AFileWithoutItsUnitLineOrAPriceThatIsNotMoneyIsALocatedError) {
  const std::string unit_line = "unit: per_gpu_hour\n";
  std::string text = prices_text("4.00 USD");
  text.erase(text.find(unit_line), unit_line.size());
  const auto no_unit = load_rental_prices(write_prices("nounit.yaml", text), catalog());
  ASSERT_FALSE(no_unit.ok());
  EXPECT_EQ(no_unit.errors().front().field, "unit");
  EXPECT_NE(no_unit.errors().front().message.find("missing required field"), std::string::npos);

  const auto energy = load_rental_prices(write_prices("kwh.yaml", prices_text("4.00 USD/kWh")), catalog());
  ASSERT_FALSE(energy.ok());
  const InputError& error = energy.errors().front();
  EXPECT_NE(error.where.file.find("kwh.yaml"), std::string::npos) << error.where.file;
  EXPECT_EQ(error.where.line, 6);
  EXPECT_EQ(error.field, "prices.h100-sxm.on_demand");
  EXPECT_NE(error.message.find("got '4.00 USD/kWh' which is an energy price"), std::string::npos)
      << error.message;
}

TEST(BuyVsRent, AnotherCurrencyOrUnitOrAnUnknownGpuIsRefused) {
  std::string text = prices_text("4.00 USD");
  const auto euro = load_rental_prices(
      write_prices("eur.yaml", "currency: EUR" + text.substr(text.find('\n'))), catalog());
  ASSERT_FALSE(euro.ok());
  EXPECT_EQ(euro.errors().front().field, "currency");
  const auto hourly = load_rental_prices(
      write_prices("unit.yaml", "currency: USD\nunit: per_node_hour" + text.substr(text.find("\nsource"))),
      catalog());
  ASSERT_FALSE(hourly.ok());
  EXPECT_EQ(hourly.errors().front().field, "unit");
  std::string unknown = text;
  unknown.replace(unknown.find("h100-sxm"), 8, "h900-sxm");
  const auto missing = load_rental_prices(write_prices("unknown.yaml", unknown), catalog());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.errors().front().message.find("no accelerator 'h900-sxm'"), std::string::npos);
}

TEST(BuyVsRent, AnUnpricedDesignHasNoAnswer) {
  const auto design =
      load_design(std::string(GPUTWIN_SOURCE_DIR) + "/examples/dgx-h100-superpod-1su.yaml", catalog());
  ASSERT_TRUE(design.ok());
  const auto prices = load_rental_prices(write_prices("rent2.yaml", prices_text("4.00 USD")), catalog());
  const auto answer = buy_vs_rent(design.value().cluster, prices.value(), std::nullopt, "1su.yaml");
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.errors().front().field, "costs.prices");
}

}  // namespace
}  // namespace gputwin
