// What the plan says about money and cliffs: a total that leaves out unpriced parts is marked incomplete and
// gives no cost per GPU-hour; money reads as money; a boundary step is printed first, not in the list.
#include "gputwin/report/plan_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gputwin/design/design_test_support.hpp"
#include "gputwin/design/node_type_view.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/plan/cluster_price.hpp"
#include "gputwin/report/html/html_report.hpp"
#include "gputwin/report/report_test_support.hpp"

namespace gputwin {
namespace {

using testing::error_of;
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

// plan --json read back: what plan_json wrote for a real design comes back field for field.
TEST(PlanJson, RoundTripOfADesign) {
  for (const std::string& priced_except : {std::string(""), std::string("dgx-h100")}) {
    const Cluster cluster = one_su(priced_except, 32);
    const auto read = read_plan_json(plan_json(cluster).dump(2), "plan.json");
    ASSERT_TRUE(read.ok()) << read.error_text();
    const PlanSummary& plan = read.value();
    EXPECT_EQ(plan.name, cluster.name);
    EXPECT_EQ(plan.node_system, cluster.node_system);
    EXPECT_EQ(plan.gpus, cluster.gpus);
    EXPECT_EQ(plan.nodes, cluster.nodes);
    EXPECT_EQ(plan.racks, static_cast<long>(cluster.racks.size()));
    EXPECT_NEAR(plan.it_power_kw_max, in_kilowatts(cluster.power.it_max), 1e-3);
    EXPECT_NEAR(plan.facility_power_kw, in_kilowatts(cluster.power.facility_max), 1e-3);
    ASSERT_EQ(plan.fabrics.size(), cluster.fabrics.size());
    for (const Fabric& fabric : cluster.fabrics) {
      const auto found = std::find_if(plan.fabrics.begin(), plan.fabrics.end(),
                                      [&](const auto& f) { return f.role == role_name(fabric.role); });
      ASSERT_NE(found, plan.fabrics.end()) << role_name(fabric.role);
      EXPECT_EQ(found->leaf_switches, fabric.switches_in(Tier::leaf));
      EXPECT_EQ(found->spine_switches, fabric.switches_in(Tier::spine));
      EXPECT_EQ(found->node_leaf_links, fabric.links_between(Tier::endpoint, Tier::leaf));
      EXPECT_EQ(found->leaf_spine_links, fabric.links_between(Tier::leaf, Tier::spine));
    }
    ASSERT_EQ(plan.bom.size(), cluster.bom.size());
    for (std::size_t i = 0; i < plan.bom.size(); ++i) {
      EXPECT_EQ(plan.bom[i].part, cluster.bom[i].part);
      EXPECT_EQ(plan.bom[i].count, cluster.bom[i].count);
      EXPECT_EQ(plan.bom[i].unit_price_usd.has_value(), cluster.bom[i].unit_price.has_value());
    }
    EXPECT_EQ(plan.costs_complete, cluster.costs.complete());
    EXPECT_NEAR(plan.capex_usd, in_usd(cluster.costs.capex), 0.01);
    EXPECT_EQ(plan.cost_per_gpu_hour_usd.has_value(), cluster.costs.cost_per_gpu_hour.has_value());
    EXPECT_EQ(plan.unpriced_parts, cluster.costs.unpriced_parts);
    ASSERT_EQ(plan.warnings.size(), cluster.warnings.size());
    EXPECT_EQ(plan.warnings.front().code, "boundary-step");
    EXPECT_TRUE(plan.warnings.front().prominent);
  }
}

TEST(PlanJson, AnotherSchemaIsRefusedAtTheSchemaField) {
  const std::string text = testing::with_schema(plan_json(one_su("none")).dump(2), "gputwin.validate/1");
  const std::string error = error_of(read_plan_json(text, "plan.json"));
  EXPECT_TRUE(contains(error, "plan.json:2:")) << error;
  EXPECT_TRUE(contains(error, "/schema: expected gputwin.plan/1 (plan --json), found 'gputwin.validate/1'"))
      << error;
}

TEST(PlanJson, TruncatedDocumentIsMalformedJsonWithItsLine) {
  const std::string text = testing::truncated(plan_json(one_su("none")).dump(2));
  const std::string error = error_of(read_plan_json(text, "plan.json"));
  EXPECT_TRUE(contains(error, "plan.json:")) << error;
  EXPECT_TRUE(contains(error, "malformed JSON")) << error;
}

TEST(PlanJson, MissingFieldIsNamedByItsPointer) {
  const std::string text = plan_json(one_su("none")).dump(2);
  const std::string no_leaf =
      error_of(read_plan_json(testing::without(text, "/fabrics/compute/switches/leaf"), "plan.json"));
  EXPECT_TRUE(contains(no_leaf, "/fabrics/compute/switches: missing field 'leaf'")) << no_leaf;
  const std::string no_count = error_of(read_plan_json(testing::without(text, "/bom/0/count"), "plan.json"));
  EXPECT_TRUE(contains(no_count, "/bom/0: missing field 'count'")) << no_count;
  std::string mistyped_text = text;
  const std::size_t at = mistyped_text.find("\"complete\": ") + 12;
  mistyped_text.replace(at, mistyped_text.find(',', at) - at, "1");
  const std::string mistyped = error_of(read_plan_json(mistyped_text, "plan.json"));
  EXPECT_TRUE(contains(mistyped, "/costs/complete: expected true or false")) << mistyped;
}

// Two GB200 NVL72 racks with CPU login/head servers beside them (examples/): two node types in one spec.
Cluster racks_with_login_nodes() {
  return testing::plan_file("examples/gb200-nvl72-2-racks-login-nodes.yaml");
}

// The same cluster with 2 DGX H100 nodes added beside the racks, as a design holding two GPU node types would
// be (a spec cannot ask for two compute systems yet: the writers and the refusals are checked on the model).
Cluster with_dgx_h100_beside(Cluster cluster) {
  const NodeType dgx{"dgx-h100", "h100-sxm", 8, 8, {}, "", 2, 112, std::nullopt};
  cluster.node_types.push_back(dgx);
  for (int n = 1; n <= 2; ++n) {
    Device node;
    node.name = "dgx-" + std::to_string(n);
    node.kind = DeviceKind::node;
    node.part = "dgx-h100";
    node.node_type = static_cast<int>(cluster.node_types.size()) - 1;
    cluster.devices.push_back(node);
  }
  cluster.nodes += 2;
  cluster.gpus += 16;
  return cluster;
}

TEST(PlanNodeTypes, ComputeAndServerTypesArePrintedWithTheirCounts) {
  const Cluster cluster = racks_with_login_nodes();
  ASSERT_EQ(cluster.node_types.size(), 2u);
  const std::string headline = first_lines(plan_text(cluster));
  EXPECT_TRUE(contains(headline, "144 GPUs in 36 x gb200-nvl72-tray, ")) << headline;
  EXPECT_TRUE(contains(headline, "\n  servers: 4 x mgmt-server-2s\n")) << headline;

  const auto json = plan_json(cluster);
  ASSERT_EQ(json["node_types"].size(), 2u);
  EXPECT_EQ(json["node_types"][0]["system"], "gb200-nvl72-tray");
  EXPECT_EQ(json["node_types"][0]["role"], "compute");
  EXPECT_EQ(json["node_types"][0]["count"], 36);
  EXPECT_EQ(json["node_types"][0]["gpus_per_node"], 4);
  EXPECT_EQ(json["node_types"][1]["system"], "mgmt-server-2s");
  EXPECT_EQ(json["node_types"][1]["role"], "server");
  EXPECT_EQ(json["node_types"][1]["count"], 4);
  EXPECT_EQ(json["node_types"][1]["gpus_per_node"], 0);

  const auto read = read_plan_json(json.dump(2), "plan.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  ASSERT_EQ(read.value().node_types.size(), 2u);
  EXPECT_EQ(read.value().node_types[1].system, "mgmt-server-2s");
  EXPECT_EQ(read.value().node_types[1].role, "server");
  EXPECT_EQ(read.value().node_types[1].count, 4);
}

TEST(PlanNodeTypes, ServersDoNotMakeTheGpuModelsRefuse) {
  const Cluster cluster = racks_with_login_nodes();
  const auto hardware = perf_hardware(cluster, testing::bundled_catalog());
  ASSERT_TRUE(hardware.ok()) << hardware.error_text();
  EXPECT_EQ(hardware.value().gpus_per_node, 4);
  EXPECT_EQ(hardware.value().scale_up_domain, 72);
}

TEST(PlanNodeTypes, TwoGpuNodeTypesArePrintedPerTypeInTextJsonAndHtml) {
  const Cluster cluster = with_dgx_h100_beside(racks_with_login_nodes());
  const std::string headline = first_lines(plan_text(cluster));
  EXPECT_TRUE(contains(headline, "160 GPUs in 36 x gb200-nvl72-tray + 2 x dgx-h100, ")) << headline;
  const auto json = plan_json(cluster);
  ASSERT_EQ(json["node_types"].size(), 3u);
  EXPECT_EQ(json["node_types"][1]["system"], "dgx-h100") << "compute types come before servers";
  EXPECT_EQ(json["node_types"][1]["count"], 2);
  const std::string html = html_report(cluster, {}, "");
  EXPECT_TRUE(contains(html, "160 GPUs in 36 x gb200-nvl72-tray + 2 x dgx-h100;")) << "the page's header";
  EXPECT_TRUE(contains(html,
                       "data-system=\"dgx-h100\" data-role=\"compute\" data-count=\"2\" "
                       "data-gpus-per-node=\"8\""));
  EXPECT_TRUE(contains(html, "data-system=\"mgmt-server-2s\" data-role=\"server\" data-count=\"4\""));
}

TEST(PlanNodeTypes, ModelsOfOneNodeTypeRefuseSeveralListingThem) {
  const Cluster cluster = with_dgx_h100_beside(racks_with_login_nodes());
  const std::string listed = "(36 x gb200-nvl72-tray + 2 x dgx-h100)";
  const std::string perf = error_of(perf_hardware(cluster, testing::bundled_catalog()));
  EXPECT_TRUE(contains(perf, "several types " + listed + "; the performance models take one")) << perf;
  Cluster priced = cluster;
  priced.costs.priced = true;
  priced.costs.unpriced_parts.clear();
  priced.costs.cost_per_gpu_hour = usd(1.0);
  const std::string price =
      error_of(gpu_hour_price_of(priced, testing::bundled_catalog(), "examples/two-types.yaml"));
  EXPECT_TRUE(contains(price, "several types " + listed + "; one TCO per GPU-hour prices one accelerator"))
      << price;
}

TEST(PlanNodeTypes, OneOfSeveralNodeTypesIsChosenByItsSystem) {
  const Cluster cluster = with_dgx_h100_beside(racks_with_login_nodes());
  const auto dgx = cluster_of_node_type(cluster, "dgx-h100");
  ASSERT_TRUE(dgx.has_value());
  EXPECT_EQ(dgx->nodes, 2);
  EXPECT_EQ(dgx->gpus, 16);
  ASSERT_NE(dgx->sole_node_type(), nullptr);
  EXPECT_EQ(dgx->sole_node_type()->system, "dgx-h100");
  const auto dgx_hw = perf_hardware(*dgx, testing::bundled_catalog());
  ASSERT_TRUE(dgx_hw.ok()) << dgx_hw.error_text();
  EXPECT_EQ(dgx_hw.value().gpus_per_node, 8);
  EXPECT_EQ(dgx_hw.value().nodes, 2);
  EXPECT_FALSE(dgx_hw.value().domain_spans_nodes());

  const auto trays = cluster_of_node_type(cluster, "gb200-nvl72-tray");
  ASSERT_TRUE(trays.has_value());
  EXPECT_EQ(trays->nodes, 36);
  EXPECT_EQ(trays->gpus, 144);
  EXPECT_EQ(trays->domains.size(), 2u);
  const auto tray_hw = perf_hardware(*trays, testing::bundled_catalog());
  ASSERT_TRUE(tray_hw.ok()) << tray_hw.error_text();
  EXPECT_EQ(tray_hw.value().gpus_per_node, 4);
  EXPECT_EQ(tray_hw.value().scale_up_domain, 72);
  // The view keeps the servers, and every index it holds points at the device it names.
  const auto servers = std::count_if(trays->devices.begin(), trays->devices.end(),
                                     [](const Device& d) { return d.kind == DeviceKind::server; });
  EXPECT_EQ(servers, 4);
  for (const ScaleUpDomain& domain : trays->domains) {
    EXPECT_EQ(domain.nodes.size(), 18u);
    for (const int node : domain.nodes) EXPECT_EQ(trays->devices.at(node).kind, DeviceKind::node);
    for (const int tray : domain.switches)
      EXPECT_EQ(trays->devices.at(tray).kind, DeviceKind::scale_up_switch);
  }
  for (const Rack& rack : trays->racks) {
    for (const int device : rack.devices) EXPECT_LT(device, static_cast<int>(trays->devices.size()));
  }

  EXPECT_FALSE(cluster_of_node_type(cluster, "mgmt-server-2s").has_value())
      << "a server is not a compute node";
  EXPECT_FALSE(cluster_of_node_type(cluster, "dgx-b200").has_value());
}

}  // namespace
}  // namespace gputwin
