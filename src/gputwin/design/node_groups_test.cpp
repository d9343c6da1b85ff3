// Several node groups in one spec (examples/mixed-h100-gb200.yaml): devices and racks per group, one compute
// fabric per group equal to the group designed alone, the other fabrics shared, power from each system.
#include "gputwin/design/node_groups.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "gputwin/core/test_text.hpp"
#include "gputwin/design/design_test_support.hpp"
#include "gputwin/design/node_type_view.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::plan_file;
using testing::plan_text;

constexpr const char* kMixedExample = "examples/mixed-h100-gb200.yaml";

std::string example_text() {
  return testing::read_text(testing::source_path(kMixedExample));
}

std::string with(const std::string& text, const std::string& from, const std::string& to) {
  return testing::replaced(text, from, to);
}

// The example with its `nodes:` list replaced by the map form of one group.
std::string alone(const std::string& nodes) {
  const std::string text = example_text();
  const auto start = text.find("nodes:\n");
  const auto end = text.find("fabrics:\n");
  EXPECT_NE(start, std::string::npos);
  EXPECT_NE(end, std::string::npos);
  return text.substr(0, start) + "nodes:\n" + nodes + text.substr(end);
}

std::vector<const Fabric*> compute_fabrics(const Cluster& cluster) {
  std::vector<const Fabric*> fabrics;
  for (const Fabric& fabric : cluster.fabrics) {
    if (fabric.role == NetworkRole::compute) fabrics.push_back(&fabric);
  }
  return fabrics;
}

// The node types of the nodes a fabric's node-leaf links reach.
std::set<std::string> node_systems_on(const Cluster& cluster, const Fabric& fabric) {
  std::set<std::string> systems;
  for (const LinkBundle& bundle : fabric.bundles) {
    const Device& device = cluster.devices[bundle.device_a];
    if (bundle.tier_a == Tier::endpoint && device.kind == DeviceKind::node)
      systems.insert(cluster.node_type_of(device)->system);
  }
  return systems;
}

int nodes_on(const Cluster& cluster, const Fabric& fabric) {
  std::set<int> nodes;
  for (const LinkBundle& bundle : fabric.bundles) {
    if (bundle.tier_a == Tier::endpoint && cluster.devices[bundle.device_a].kind == DeviceKind::node)
      nodes.insert(bundle.device_a);
  }
  return static_cast<int>(nodes.size());
}

// The appliances (UFM) a fabric's endpoint links reach, by name.
std::set<std::string> appliances_on(const Cluster& cluster, const Fabric& fabric) {
  std::set<std::string> names;
  for (const LinkBundle& bundle : fabric.bundles) {
    const Device& device = cluster.devices[bundle.device_a];
    if (bundle.tier_a == Tier::endpoint && device.kind == DeviceKind::appliance) names.insert(device.name);
  }
  return names;
}

void expect_same_fabric(const Fabric& island, const Fabric& planned_alone, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(island.rails, planned_alone.rails);
  EXPECT_EQ(island.scalable_units, planned_alone.scalable_units);
  EXPECT_EQ(island.nodes_per_scalable_unit, planned_alone.nodes_per_scalable_unit);
  EXPECT_EQ(island.tiers, planned_alone.tiers);
  for (const Tier tier : {Tier::leaf, Tier::spine, Tier::core})
    EXPECT_EQ(island.switches_in(tier), planned_alone.switches_in(tier)) << tier_name(tier);
  EXPECT_EQ(island.links_between(Tier::endpoint, Tier::leaf),
            planned_alone.links_between(Tier::endpoint, Tier::leaf));
  EXPECT_EQ(island.links_between(Tier::leaf, Tier::spine),
            planned_alone.links_between(Tier::leaf, Tier::spine));
  EXPECT_EQ(island.ports_total, planned_alone.ports_total);
  EXPECT_EQ(island.ports_used, planned_alone.ports_used);
  EXPECT_EQ(island.transceivers, planned_alone.transceivers);
}

TEST(NodeGroups, GpusNodesAndRacksAreEachGroupsInOrder) {
  const Cluster cluster = plan_file(kMixedExample);
  const auto& nvl72 = bundled_catalog().get<RackSystem>("gb200-nvl72");
  const auto& tray = bundled_catalog().get<System>(nvl72.compute_tray);
  const int dgx_gpus = bundled_catalog().get<System>("dgx-h100").accelerators;
  EXPECT_EQ(cluster.nodes, 16 + 2 * nvl72.compute_trays);
  EXPECT_EQ(cluster.gpus, 16 * dgx_gpus + 2 * nvl72.compute_trays * tray.accelerators);
  const auto counts = cluster.node_type_counts();
  ASSERT_GE(counts.size(), 2u);
  EXPECT_EQ(counts[0].type->system, "dgx-h100");  // the list's order
  EXPECT_EQ(counts[0].count, 16);
  EXPECT_EQ(counts[1].type->system, tray.info.id);
  EXPECT_EQ(counts[1].count, 2 * nvl72.compute_trays);
  EXPECT_TRUE(cluster.rack_system.empty());  // not every compute rack is one

  // A compute rack holds one group: 4 DGX (facility.max_nodes_per_rack) or one whole NVL72.
  int dgx_racks = 0;
  int nvl72_racks = 0;
  for (const Rack& rack : cluster.racks) {
    if (rack.kind != RackKind::compute) continue;
    std::set<std::string> systems;
    int nodes = 0;
    for (const int device : rack.devices) {
      if (cluster.devices[device].kind != DeviceKind::node) continue;
      systems.insert(cluster.node_type_of(cluster.devices[device])->system);
      ++nodes;
    }
    ASSERT_EQ(systems.size(), 1u) << rack.name;
    if (*systems.begin() == "dgx-h100") {
      ++dgx_racks;
      EXPECT_EQ(nodes, 4) << rack.name;
      EXPECT_TRUE(rack.system.empty());
    } else {
      ++nvl72_racks;
      EXPECT_EQ(nodes, nvl72.compute_trays) << rack.name;
      EXPECT_EQ(rack.system, "gb200-nvl72");
    }
  }
  EXPECT_EQ(dgx_racks, 4);
  EXPECT_EQ(nvl72_racks, 2);
  EXPECT_EQ(cluster.domains.size(), 16u + 2u);  // one per DGX, one per NVL72 rack
}

TEST(NodeGroups, EachGroupHasItsOwnComputeFabricAsItWouldAlone) {
  const Cluster cluster = plan_file(kMixedExample);
  const auto fabrics = compute_fabrics(cluster);
  ASSERT_EQ(fabrics.size(), 2u);
  EXPECT_EQ(fabric_node_group(cluster, *fabrics[0]), "dgx-h100");
  EXPECT_EQ(fabric_name(cluster, *fabrics[0]), "compute:dgx-h100");
  EXPECT_EQ(fabric_node_group(cluster, *fabrics[1]), "gb200-nvl72");
  EXPECT_EQ(fabric_name(cluster, *fabrics[1]), "compute:gb200-nvl72");
  EXPECT_EQ(node_systems_on(cluster, *fabrics[0]), std::set<std::string>{"dgx-h100"});
  EXPECT_EQ(node_systems_on(cluster, *fabrics[1]), std::set<std::string>{"gb200-nvl72-tray"});
  EXPECT_EQ(nodes_on(cluster, *fabrics[0]), 16);
  EXPECT_EQ(nodes_on(cluster, *fabrics[1]), 36);
  EXPECT_EQ(fabrics[0]->rails, 8);  // each group's own compute NIC ports
  EXPECT_EQ(fabrics[1]->rails, 4);

  // Each group alone keeps the compute appliances: every island gets its own UFM.
  const Cluster dgx = plan_text(alone("  system: dgx-h100\n  count: 16\n"));
  ASSERT_NE(dgx.fabric(NetworkRole::compute), nullptr);
  expect_same_fabric(*fabrics[0], *dgx.fabric(NetworkRole::compute), "dgx-h100 alone");

  // The NVL72 group alone: its own scalable unit, the same appliances, no per-rack node limit (it would cut
  // a rack).
  std::string nvl72_text = alone("  system: gb200-nvl72\n  count: 2\n");
  nvl72_text = with(nvl72_text, "    scalable_unit: 32\n", "    scalable_unit: 36\n");
  nvl72_text = with(nvl72_text, "  max_nodes_per_rack: 4", "");
  const Cluster nvl72 = plan_text(nvl72_text);
  ASSERT_NE(nvl72.fabric(NetworkRole::compute), nullptr);
  expect_same_fabric(*fabrics[1], *nvl72.fabric(NetworkRole::compute), "gb200-nvl72 alone");
}

// Islands share no switch, so each is an InfiniBand subnet that needs its own subnet manager: every island
// gets the spec's compute appliances (4 UFM each in the example), named after its group.
TEST(NodeGroups, EachComputeIslandHasItsOwnUfm) {
  const Cluster cluster = plan_file(kMixedExample);
  const auto fabrics = compute_fabrics(cluster);
  ASSERT_EQ(fabrics.size(), 2u);
  const auto dgx = appliances_on(cluster, *fabrics[0]);
  const auto nvl72 = appliances_on(cluster, *fabrics[1]);
  EXPECT_EQ(dgx, (std::set<std::string>{"compute-dgx-h100-ufm-3.1-1", "compute-dgx-h100-ufm-3.1-2",
                                        "compute-dgx-h100-ufm-3.1-3", "compute-dgx-h100-ufm-3.1-4"}));
  EXPECT_EQ(nvl72.size(), 4u);
  for (const std::string& name : nvl72) EXPECT_EQ(name.rfind("compute-gb200-nvl72-ufm-3.1-", 0), 0u) << name;
  int appliances = 0;
  for (const Device& device : cluster.devices) appliances += device.kind == DeviceKind::appliance;
  EXPECT_EQ(appliances, 8);
}

// A group's own `appliances` replace fabrics.compute's on its island only; an empty list leaves it without.
TEST(NodeGroups, AGroupsOwnAppliancesReplaceTheSharedOnes) {
  std::string text = example_text();
  text = with(text, "{system: gb200-nvl72, count: 2, scalable_unit: 36}",
              "{system: gb200-nvl72, count: 2, scalable_unit: 36, appliances: []}");
  text = with(text, "{system: dgx-h100, count: 16}",
              "{system: dgx-h100, count: 16, appliances: [{appliance: ufm-3.1, count: 2}]}");
  const Cluster cluster = plan_text(text);
  const auto fabrics = compute_fabrics(cluster);
  ASSERT_EQ(fabrics.size(), 2u);
  EXPECT_EQ(appliances_on(cluster, *fabrics[0]).size(), 2u);
  EXPECT_TRUE(appliances_on(cluster, *fabrics[1]).empty());
  // Without the UFM slot the NVL72 island is one scalable unit of 36 trays.
  EXPECT_EQ(fabrics[1]->scalable_units, 1);
}

std::vector<std::string> boundary_steps(const Cluster& cluster) {
  return testing::warning_messages(cluster, "boundary-step");
}

// The example's NVL72 island: 36 trays of one scalable unit on 2 leaves per rail (32 node ports each), so the
// second leaf of each rail serves 4 trays and has 28 node ports free; the 4 UFM ports (one per rail) go there
// instead of opening a second unit. Hand-worked: 4 rails x 2 leaves = 8 leaves, 8 x 32 uplinks = 256
// leaf-spine links on 4 spines of 64 ports (12 QM9700, not 24), 36 x 4 + 4 = 148 node and UFM links.
TEST(NodeGroups, UfmTakesFreeLeafPortsOfTheNvl72Unit) {
  const Cluster cluster = plan_file(kMixedExample);
  const auto fabrics = compute_fabrics(cluster);
  ASSERT_EQ(fabrics.size(), 2u);
  const Fabric& nvl72 = *fabrics[1];
  EXPECT_EQ(nvl72.scalable_units, 1);
  EXPECT_EQ(nvl72.switches_in(Tier::leaf), 8);
  EXPECT_EQ(nvl72.switches_in(Tier::spine), 4);
  EXPECT_EQ(nvl72.links_between(Tier::endpoint, Tier::leaf), 148);
  EXPECT_EQ(nvl72.links_between(Tier::leaf, Tier::spine), 256);
  std::set<std::string> ufm_leaves;
  for (const LinkBundle& bundle : nvl72.bundles) {
    if (bundle.tier_a != Tier::endpoint) continue;
    if (cluster.devices[bundle.device_a].kind != DeviceKind::appliance) continue;
    ufm_leaves.insert(cluster.devices[bundle.device_b].name);
  }
  EXPECT_EQ(ufm_leaves, (std::set<std::string>{
                            "compute-gb200-nvl72-leaf-su1-rail1-2", "compute-gb200-nvl72-leaf-su1-rail2-2",
                            "compute-gb200-nvl72-leaf-su1-rail3-2", "compute-gb200-nvl72-leaf-su1-rail4-2"}));
  // The DGX island keeps the H100 reference architecture's rule: UFM on a node slot of the last unit (16 DGX
  // and the UFM's slot on 8 leaves of one unit).
  EXPECT_EQ(fabrics[0]->scalable_units, 1);
  EXPECT_EQ(fabrics[0]->links_between(Tier::endpoint, Tier::leaf), 16 * 8 + 4);
}

// Cost-step warnings per group, only where a step happens: the example has none (the NVL72 island's UFM sits
// on free leaf ports, the DGX island's 17 of 32 slots are no step). With one rack per scalable unit (18 trays
// fill each leaf's 18 node ports) the UFM has no free port: it takes a node slot past the 36 of 2 full units
// and opens a third. The warning names the fabric.
TEST(NodeGroups, BoundaryStepsAreComputedPerGroup) {
  EXPECT_TRUE(boundary_steps(plan_file(kMixedExample)).empty());
  const std::string one_rack_units =
      with(example_text(), "{system: gb200-nvl72, count: 2, scalable_unit: 36}",
           "{system: gb200-nvl72, count: 2, scalable_unit: 18}");
  const auto steps = boundary_steps(plan_text(one_rack_units));
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_NE(steps[0].find("On the compute:gb200-nvl72 fabric, the ports of 4 ufm-3.1 take 1 node slot past "
                          "the 36 of 2 full scalable units"),
            std::string::npos)
      << steps[0];
  // A rack-scale group's trays are never removed: the only alternative is the appliances moved.
  EXPECT_EQ(steps[0].find("fewer"), std::string::npos) << steps[0];

  // A packed group one node past its unit (33 DGX H100, no UFM): one node fewer of that group, the other
  // group unchanged.
  std::string text = example_text();
  text = with(text, "{system: dgx-h100, count: 16}", "{system: dgx-h100, count: 33, appliances: []}");
  text = with(text, "{system: gb200-nvl72, count: 2, scalable_unit: 36}",
              "{system: gb200-nvl72, count: 2, scalable_unit: 36, appliances: []}");
  const auto packed = boundary_steps(plan_text(text));
  ASSERT_EQ(packed.size(), 1u);
  EXPECT_NE(packed[0].find("On the compute:dgx-h100 fabric, 1 node slot of the 33 in use sit past the 32"),
            std::string::npos)
      << packed[0];
  EXPECT_NE(packed[0].find("32 dgx-h100 nodes (1 fewer, 8 GPUs fewer)"), std::string::npos) << packed[0];
}

TEST(NodeGroups, StorageInbandAndOobAreOneFabricForEveryNode) {
  const Cluster cluster = plan_file(kMixedExample);
  for (const NetworkRole role : {NetworkRole::inband, NetworkRole::oob}) {
    int fabrics = 0;
    for (const Fabric& fabric : cluster.fabrics) fabrics += fabric.role == role;
    EXPECT_EQ(fabrics, 1) << role_name(role);
  }
  const Fabric* inband = cluster.fabric(NetworkRole::inband);
  ASSERT_NE(inband, nullptr);
  EXPECT_EQ(fabric_name(cluster, *inband), "inband");
  EXPECT_EQ(nodes_on(cluster, *inband), cluster.nodes);
  EXPECT_EQ(node_systems_on(cluster, *inband), (std::set<std::string>{"dgx-h100", "gb200-nvl72-tray"}));
}

TEST(NodeGroups, DeviceNamesStayUnique) {
  const Cluster cluster = plan_file(kMixedExample);
  std::set<std::string> names;
  for (const Device& device : cluster.devices) EXPECT_TRUE(names.insert(device.name).second) << device.name;
}

TEST(NodeGroups, TypicalPowerComesFromEachGroupsSystem) {
  const Cluster cluster = plan_file(kMixedExample);
  const auto typicals = typical_power_by_node_type(cluster);
  ASSERT_EQ(typicals.size(), 2u);
  EXPECT_EQ(typicals[0].system, "dgx-h100");
  EXPECT_EQ(typicals[1].system, "gb200-nvl72-tray");
  for (const NodeTypeTypicalPower& typical : typicals) {
    const System& system = bundled_catalog().get<System>(typical.system);
    EXPECT_DOUBLE_EQ(typical.typical.base(), system.power_typical.value_or(system.power_max).base())
        << typical.system;
  }
  // The summary's figure is the first group's (the one-group readers see it); each system without a typical
  // figure gets its own warning.
  const System& dgx = bundled_catalog().get<System>("dgx-h100");
  const System& tray = bundled_catalog().get<System>("gb200-nvl72-tray");
  EXPECT_EQ(cluster.power.node_typical.has_value(), dgx.power_typical.has_value());
  if (dgx.power_typical) {
    EXPECT_DOUBLE_EQ(cluster.power.node_typical->base(), dgx.power_typical->base());
  }
  EXPECT_EQ(cluster.power.typical_from_max, !dgx.power_typical || !tray.power_typical);
  int unknown = 0;
  for (const Warning& warning : cluster.warnings) unknown += warning.code == "typical-power-unknown";
  EXPECT_EQ(unknown, !dgx.power_typical + !tray.power_typical);
  // The IT power is every rack's: the NVL72 racks at their published rack figure, the DGX racks per node.
  Power racks_max;
  for (const Rack& rack : cluster.racks) racks_max += rack.power_max;
  EXPECT_DOUBLE_EQ(cluster.power.it_max.base(), racks_max.base());
  const auto& nvl72 = bundled_catalog().get<RackSystem>("gb200-nvl72");
  for (const Rack& rack : cluster.racks) {
    if (rack.system == "gb200-nvl72") {
      EXPECT_DOUBLE_EQ(rack.power_max.base(), nvl72.power_max.base());
    }
  }
}

TEST(NodeGroups, ANodeTypesViewKeepsOnlyItsOwnComputeFabric) {
  const Cluster cluster = plan_file(kMixedExample);
  for (const std::string system : {"dgx-h100", "gb200-nvl72-tray"}) {
    const auto view = cluster_of_node_type(cluster, system);
    ASSERT_TRUE(view.has_value()) << system;
    const auto fabrics = compute_fabrics(*view);
    ASSERT_EQ(fabrics.size(), 1u) << system;
    EXPECT_EQ(fabric_node_system(*view, *fabrics.front()), system);
    EXPECT_EQ(view->fabric(NetworkRole::compute), fabrics.front());
    ASSERT_NE(view->sole_node_type(), nullptr);
    EXPECT_EQ(view->sole_node_type()->system, system);
  }
}

}  // namespace
}  // namespace gputwin
