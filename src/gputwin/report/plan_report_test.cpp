// What the plan says about money and cliffs: a total that leaves out unpriced parts is marked incomplete and
// gives no cost per GPU-hour; money reads as money; a boundary step is printed first, not in the list.
#include "gputwin/report/plan_report.hpp"

#include <gtest/gtest.h>

#include <set>

#include "gputwin/design/design_test_support.hpp"
#include "gputwin/report/html/html_report.hpp"

namespace gputwin {
namespace {

using testing::plan_text;

// 1 SU of DGX H100; `priced_except` = a price list for every part of the design but that one ("" = all,
// "none" = no price list).
Cluster one_su(const std::string& priced_except, int nodes = 31) {
  testing::RailSpec rail;
  rail.nodes = nodes;
  rail.extra_compute = "    appliances: [{appliance: ufm-3.1, count: 4}]\n";
  const std::string spec = testing::rail_spec(rail);
  const Cluster unpriced = plan_text(spec);
  if (priced_except == "none") return unpriced;
  std::string prices = "costs:\n  prices:\n";
  std::set<std::string> parts;
  for (const auto& line : unpriced.bom) {
    if (line.part != priced_except && parts.insert(line.part).second)
      prices += "    " + line.part + ": 250000 USD\n";
  }
  return plan_text(spec + prices);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string first_lines(const std::string& text) {
  return text.substr(0, text.find("\nFabrics"));
}

TEST(PlanReport, PartialPricesAreMarkedIncompleteWithNoCostPerGpuHour) {
  const Cluster partial = one_su("dgx-h100");
  ASSERT_FALSE(partial.costs.complete());
  const std::string text = plan_text(partial);
  const std::string headline = first_lines(text);
  EXPECT_TRUE(
      contains(headline, "capex " + format_money(partial.costs.capex) + " INCOMPLETE: no price for dgx-h100"))
      << headline;
  EXPECT_FALSE(contains(text, "per GPU-hour;")) << text;
  EXPECT_FALSE(contains(text, " USD")) << "money is printed as money";
  EXPECT_TRUE(contains(text, "(incomplete)")) << "the TCO line is marked too";

  const auto json = plan_json(partial);
  EXPECT_FALSE(json["costs"]["complete"].get<bool>());
  EXPECT_TRUE(json["costs"]["cost_per_gpu_hour_usd"].is_null());
  EXPECT_EQ(json["costs"]["unpriced_parts"], nlohmann::ordered_json::array({"dgx-h100"}));
}

TEST(PlanReport, CompletePricesGiveTheCostPerGpuHourAsMoney) {
  const Cluster priced = one_su("");
  ASSERT_TRUE(priced.costs.complete());
  const std::string headline = first_lines(plan_text(priced));
  EXPECT_TRUE(contains(headline, "capex " + format_money(priced.costs.capex) + ";")) << headline;
  EXPECT_TRUE(contains(headline, format_money(*priced.costs.cost_per_gpu_hour) + " per GPU-hour"))
      << headline;
  const auto json = plan_json(priced);
  EXPECT_TRUE(json["costs"]["complete"].get<bool>());
  EXPECT_NEAR(json["costs"]["cost_per_gpu_hour_usd"].get<double>(), in_usd(*priced.costs.cost_per_gpu_hour),
              1e-4);
}

TEST(PlanReport, BoundaryStepIsPrintedFirst) {
  const Cluster cluster = one_su("none", 32);  // 32 nodes and the UFM's slot: a 2nd SU for one slot
  const std::string text = plan_text(cluster);
  const std::size_t step = text.find("!! [boundary-step]");
  ASSERT_NE(step, std::string::npos) << text;
  EXPECT_LT(step, text.find("\nFabrics"));
  const auto json = plan_json(cluster);
  ASSERT_FALSE(json["warnings"].empty());
  EXPECT_EQ(json["warnings"][0]["code"], "boundary-step");
  EXPECT_TRUE(json["warnings"][0]["prominent"].get<bool>());
}

TEST(HtmlSummary, IncompletePricesAndBoundaryStepsShowInTheCards) {
  const Cluster partial = one_su("dgx-h100", 32);
  const std::string html = html_report(partial, {}, "");
  const std::string summary = html.substr(html.find("<section id=\"summary\""));
  const std::string cards = summary.substr(0, summary.find("</section>"));
  EXPECT_TRUE(contains(cards, format_money(partial.costs.capex) + " (incomplete)")) << cards;
  EXPECT_TRUE(contains(cards, "prices incomplete")) << cards;
  EXPECT_TRUE(contains(cards, "no price for dgx-h100")) << cards;
  EXPECT_TRUE(contains(cards, "data-costs-complete=\"false\"")) << cards;
  EXPECT_TRUE(contains(cards, "<p class=\"prominent\" data-code=\"boundary-step\">")) << cards;

  const Cluster priced = one_su("");
  const std::string whole = html_report(priced, {}, "");
  EXPECT_TRUE(contains(whole, format_money(*priced.costs.cost_per_gpu_hour) + "</div>"));
  EXPECT_FALSE(contains(whole, "(incomplete)"));
}

}  // namespace
}  // namespace gputwin
