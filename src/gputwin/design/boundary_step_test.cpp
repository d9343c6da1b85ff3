// A handful of ports past a scalable-unit or tier boundary is never taken silently: the design warns,
// prominently, with the step's cost and the alternatives. The published DGX SuperPOD designs stop at the
// boundary (data/reference/*.yaml), so they do not warn, and one node more does.
#include "gputwin/design/boundary_step.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::plan_text;
using testing::rail_spec;
using testing::source_path;

constexpr const char* kUfm = "    appliances: [{appliance: ufm-3.1, count: 4}]\n";

YAML::Node reference(const std::string& file) {
  return YAML::LoadFile(source_path("data/reference/" + file));
}

std::string superpod(int nodes, bool ufm) {
  testing::RailSpec spec;
  spec.nodes = nodes;
  if (ufm) spec.extra_compute = kUfm;
  return rail_spec(spec);
}

std::vector<Warning> boundary_steps(const Cluster& cluster) {
  std::vector<Warning> steps;
  std::copy_if(cluster.warnings.begin(), cluster.warnings.end(), std::back_inserter(steps),
               [](const Warning& w) { return w.code == "boundary-step"; });
  return steps;
}

int compute_switches(const Cluster& cluster) {
  const Fabric& fabric = *cluster.fabric(NetworkRole::compute);
  return fabric.switches_in(Tier::leaf) + fabric.switches_in(Tier::spine) + fabric.switches_in(Tier::core);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The case: 2048 GPUs and 4 UFM ports need 257 node slots, one past 8 scalable units.
TEST(BoundaryStep, TwoThousandGpusAndUfmPortsWarnWithTheCostAndTheAlternatives) {
  const Cluster with_ufm = plan_text(superpod(256, true));
  const Cluster without_ufm = plan_text(superpod(256, false));
  const Cluster one_fewer = plan_text(superpod(255, true));
  ASSERT_GT(compute_switches(with_ufm), compute_switches(without_ufm));  // the cliff the warning is about

  const auto steps = boundary_steps(with_ufm);
  ASSERT_EQ(steps.size(), 1u);
  const Warning& step = steps.front();
  EXPECT_TRUE(step.prominent);
  EXPECT_EQ(with_ufm.warnings.front().code, "boundary-step") << "prominent warnings come first";
  const std::string& message = step.message;
  EXPECT_TRUE(contains(message, "compute fabric")) << message;
  EXPECT_TRUE(contains(message, "4 ufm-3.1")) << message;
  EXPECT_TRUE(contains(message, "a 9th scalable unit and a third tier")) << message;
  // The step, measured against the same nodes with the UFM ports elsewhere.
  EXPECT_TRUE(contains(message, std::to_string(compute_switches(with_ufm)) + " qm9700 instead of " +
                                    std::to_string(compute_switches(without_ufm))))
      << message;
  const int more_optics = with_ufm.fabric(NetworkRole::compute)->transceivers_at("switch") -
                          without_ufm.fabric(NetworkRole::compute)->transceivers_at("switch");
  EXPECT_GT(more_optics, 0);
  EXPECT_TRUE(contains(message, "+" + std::to_string(more_optics) + " switch transceivers")) << message;
  // Both alternatives: one node fewer (what the published designs do) and the appliances moved.
  EXPECT_TRUE(contains(message, "255 nodes (1 fewer, 2040 GPUs) on " +
                                    std::to_string(compute_switches(one_fewer)) + " qm9700"))
      << message;
  EXPECT_TRUE(contains(message, "all 256 nodes on " + std::to_string(compute_switches(without_ufm))))
      << message;
  EXPECT_TRUE(boundary_steps(one_fewer).empty());
  EXPECT_TRUE(boundary_steps(without_ufm).empty());
}

// The design without the UFM ports is the published idealised 8-SU row: the warning's baseline is real.
TEST(BoundaryStep, TheBaselineIsThePublishedEightUnitRow) {
  const YAML::Node rows = reference("superpod-larger.yaml")["tables"][0]["rows"];
  for (const auto& row : rows) {
    if (row["su"].as<int>() != 8) continue;
    const Cluster cluster = plan_text(superpod(row["nodes"].as<int>(), false));
    EXPECT_EQ(compute_switches(cluster), row["leaf_switches"].as<int>() + row["spine_switches"].as<int>());
    EXPECT_TRUE(boundary_steps(cluster).empty());
  }
}

// Table 4: 31, 63, 95 and 127 nodes, one node slot given to the UFM. One node more crosses into a new SU.
TEST(BoundaryStep, PublishedTable4StopsAtTheBoundaryAndOneMoreNodeWarns) {
  const YAML::Node rows = reference("superpod-h100.yaml")["table_4_compute_fabric"]["rows"];
  for (const auto& row : rows) {
    const int nodes = row["nodes"].as<int>();
    SCOPED_TRACE(std::to_string(nodes) + " nodes");
    const Cluster published = plan_text(superpod(nodes, true));
    EXPECT_TRUE(boundary_steps(published).empty());
    const Cluster one_more = plan_text(superpod(nodes + 1, true));
    const auto steps = boundary_steps(one_more);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_TRUE(contains(steps.front().message, std::to_string(nodes) + " nodes (1 fewer"))
        << steps.front().message;
  }
  EXPECT_TRUE(boundary_steps(testing::plan_file("examples/dgx-h100-superpod-4su.yaml")).empty());
}

// Nodes alone can cross too: 257 nodes without any appliance open a third tier.
TEST(BoundaryStep, AHandfulOfNodesPastTheLastUnitWarnsTooButAWellFilledUnitDoesNot) {
  const auto steps = boundary_steps(plan_text(superpod(257, false)));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_TRUE(contains(steps.front().message, "1 node slot of the 257 in use")) << steps.front().message;
  EXPECT_TRUE(contains(steps.front().message, "256 nodes (1 fewer")) << steps.front().message;
  EXPECT_FALSE(contains(steps.front().message, "appliances")) << steps.front().message;
  // 3 SUs and 14 of the 4th SU's 32 slots: more than a handful, the unit is being used.
  const Cluster well_filled = plan_text(superpod(3 * 32 + 14, false));
  EXPECT_GT(well_filled.fabric(NetworkRole::compute)->slots_used -
                well_filled.fabric(NetworkRole::compute)->boundary_slots,
            32 / kHandfulShareOfUnit);
  EXPECT_TRUE(boundary_steps(well_filled).empty());
}

// Leaf-spine fabrics step at tiers: 33 two-port nodes need two tiers where 32 fit on one switch.
TEST(BoundaryStep, LeafSpineTierStep) {
  auto storage_spec = [](int nodes) {
    std::string yaml = superpod(nodes, false);
    const std::string storage =
        "  storage:\n    topology: leaf_spine\n    switch: qm9700\n    link_speed: 400 Gb/s\n";
    yaml.insert(yaml.find("facility:"), storage);
    return yaml;
  };
  const Cluster one_switch = plan_text(storage_spec(32));
  ASSERT_EQ(one_switch.fabric(NetworkRole::storage)->tiers, 1);
  const Cluster two_tiers = plan_text(storage_spec(33));
  ASSERT_EQ(two_tiers.fabric(NetworkRole::storage)->tiers, 2);
  auto storage_steps = [](const Cluster& cluster) {
    auto steps = boundary_steps(cluster);  // the 33rd node also opens a 2nd compute SU: leave that out
    steps.erase(std::remove_if(steps.begin(), steps.end(),
                               [](const Warning& w) { return !contains(w.message, "storage fabric"); }),
                steps.end());
    return steps;
  };
  const auto steps = storage_steps(two_tiers);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_TRUE(contains(steps.front().message, "a second tier")) << steps.front().message;
  EXPECT_TRUE(contains(steps.front().message, "32 nodes (1 fewer")) << steps.front().message;
  EXPECT_TRUE(storage_steps(one_switch).empty());
}

// With a price list, the step is priced: the infrastructure capex difference, money as money.
TEST(BoundaryStep, PricedStepNamesTheCapex) {
  std::string yaml = superpod(256, true);
  yaml += "costs:\n  prices: {qm9700: 30000 USD}\n";
  const auto steps = boundary_steps(plan_text(yaml));
  ASSERT_EQ(steps.size(), 1u);
  const Cluster with_ufm = plan_text(yaml);
  const Cluster without_ufm = plan_text(superpod(256, false) + "costs:\n  prices: {qm9700: 30000 USD}\n");
  const Money step = usd(30000) * (compute_switches(with_ufm) - compute_switches(without_ufm));
  EXPECT_TRUE(contains(steps.front().message, format_money_change(step) + " capex for the priced parts only"))
      << steps.front().message;
}

}  // namespace
}  // namespace gputwin
