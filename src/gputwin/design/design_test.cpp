// General rules of the design engine, checked on designs nobody published: other radices, sizes, ratios.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "gputwin/design/cabling.hpp"
#include "gputwin/design/design_test_support.hpp"
#include "gputwin/design/fabric_builder.hpp"
#include "gputwin/design/power_and_cost.hpp"
#include "gputwin/report/plan_report.hpp"

namespace gputwin {
namespace {

using testing::plan_file;
using testing::plan_text;
using testing::rail_spec;
using testing::RailSpec;

// Ports each switch of a fabric uses, from its link bundles.
std::map<int, int> ports_by_switch(const Fabric& fabric) {
  std::map<int, int> ports;
  for (const auto& bundle : fabric.bundles) {
    if (bundle.tier_a != Tier::endpoint) ports[bundle.device_a] += bundle.links;
    ports[bundle.device_b] += bundle.links;
  }
  return ports;
}

// The structural promises of a fat tree: no switch over its radix, every lower switch wired with the same
// number of links to every upper switch it reaches, and leaves reaching every spine of their pod.
void expect_well_formed(const Fabric& fabric) {
  for (const auto& [device, ports] : ports_by_switch(fabric))
    EXPECT_LE(ports, fabric.radix) << "switch " << device;
  std::map<std::pair<Tier, Tier>, std::set<int>> link_counts;
  std::map<int, std::set<int>> uppers_of;
  for (const auto& bundle : fabric.bundles) {
    if (bundle.tier_a == Tier::endpoint) continue;
    link_counts[{bundle.tier_a, bundle.tier_b}].insert(bundle.links);
    uppers_of[bundle.device_a].insert(bundle.device_b);
  }
  for (const auto& [tiers, counts] : link_counts) {
    EXPECT_EQ(counts.size(), 1u) << tier_name(tiers.first) << "-" << tier_name(tiers.second)
                                 << " bundles differ in size";
  }
  if (fabric.tiers == 2) {
    for (const int leaf : fabric.switches[static_cast<int>(Tier::leaf)]) {
      EXPECT_EQ(static_cast<int>(uppers_of[leaf].size()), fabric.switches_in(Tier::spine));
    }
  }
}

TEST(FabricRules, SmallestDivisorAtLeast) {
  EXPECT_EQ(smallest_divisor_at_least(32, 12), 16);  // DGX H100 SuperPOD, 3 SU
  EXPECT_EQ(smallest_divisor_at_least(72, 16), 18);  // DGX B300 XDR SuperPOD, 4 SU
  EXPECT_EQ(smallest_divisor_at_least(32, 1), 1);
  EXPECT_EQ(smallest_divisor_at_least(32, 0), 1);
  EXPECT_EQ(smallest_divisor_at_least(32, 33), 0);
}

struct RadixCase {
  std::string switch_id;
  std::string speed;
  int radix;
  std::string system = "dgx-h100";
};

void PrintTo(const RadixCase& radix_case, std::ostream* out) {
  *out << radix_case.switch_id << "@" << radix_case.speed;
}

class RailOptimizedAtAnyRadix : public ::testing::TestWithParam<RadixCase> {};

TEST_P(RailOptimizedAtAnyRadix, CountsFollowTheRulesAtEverySize) {
  const RadixCase& radix_case = GetParam();
  const int radix = radix_case.radix;
  const int su_nodes = radix / 2;
  const Catalog catalog = testing::catalog_with(testing::xdr_test_parts());
  for (const int units : {1, 3, 5, radix / 8, radix / 8 + 1, 3 * radix / 8}) {
    SCOPED_TRACE(std::to_string(units) + " SU");
    RailSpec spec;
    spec.switch_id = radix_case.switch_id;
    spec.system = radix_case.system;
    spec.link_speed = radix_case.speed;
    spec.scalable_unit = su_nodes;
    spec.nodes = units * su_nodes;
    const Cluster cluster = plan_text(rail_spec(spec), catalog);
    ASSERT_NE(cluster.fabric(NetworkRole::compute), nullptr);
    const Fabric& fabric = *cluster.fabric(NetworkRole::compute);
    ASSERT_EQ(fabric.radix, radix);
    const int leaves = units * 8;
    EXPECT_EQ(fabric.switches_in(Tier::leaf), leaves);
    EXPECT_EQ(fabric.links_between(Tier::endpoint, Tier::leaf), spec.nodes * 8);
    EXPECT_EQ(fabric.links_between(Tier::leaf, Tier::spine), leaves * su_nodes);  // non-blocking leaves
    if (leaves <= radix) {
      EXPECT_EQ(fabric.tiers, 2);
      EXPECT_EQ(fabric.switches_in(Tier::spine),
                smallest_divisor_at_least(su_nodes, (leaves * su_nodes + radix - 1) / radix));
    } else {
      EXPECT_EQ(fabric.tiers, 3);
      EXPECT_EQ(fabric.links_between(Tier::spine, Tier::core), fabric.switches_in(Tier::spine) * radix / 2);
      EXPECT_GT(fabric.switches_in(Tier::core), 0);
    }
    expect_well_formed(fabric);
  }
}

INSTANTIATE_TEST_SUITE_P(Radices, RailOptimizedAtAnyRadix,
                         ::testing::Values(RadixCase{"qm9700", "400 Gb/s", 64},
                                           RadixCase{"qm9700", "200 Gb/s", 128},
                                           RadixCase{"sn5600", "400 Gb/s", 128},
                                           RadixCase{"q3400", "800 Gb/s", 144, "test-dgx-b300-xdr"}),
                         [](const auto& info) {
                           return info.param.switch_id + "_" + std::to_string(info.param.radix);
                         });

TEST(FabricRules, OversubscribedTopOfRackLeaves) {
  const std::string yaml = R"(name: blocking
nodes: {system: pcie-8gpu-l40s, count: 50}
fabrics:
  compute: {topology: leaf_spine, switch: qm9700, link_speed: 400 Gb/s, oversubscription: "2:1"}
facility: {rack_power_limit: 20 kW, pdu: px3-5878i2r, pdu_redundancy: 2n, cooling: air-standard}
)";
  const Cluster cluster = plan_text(yaml);
  const Fabric& fabric = *cluster.fabric(NetworkRole::compute);
  const int ports_per_node =
      testing::bundled_catalog().get<System>("pcie-8gpu-l40s").nics.at(NetworkRole::compute).ports;
  const int downlinks = 64 * 2 / 3;  // floor: 42 of 64 ports face nodes at 2:1
  const int nodes_per_leaf = downlinks / ports_per_node;
  EXPECT_EQ(fabric.leaf_downlinks, nodes_per_leaf * ports_per_node);
  EXPECT_EQ(fabric.leaf_uplinks, (fabric.leaf_downlinks + 1) / 2);
  EXPECT_EQ(fabric.switches_in(Tier::leaf), (50 + nodes_per_leaf - 1) / nodes_per_leaf);
  EXPECT_NEAR(fabric.blocking_ratio(), 2.0, 0.1);
  const bool warned = std::any_of(cluster.warnings.begin(), cluster.warnings.end(),
                                  [](const Warning& w) { return w.code == "blocking-fabric"; });
  EXPECT_TRUE(warned);
  expect_well_formed(fabric);
  // Top-of-rack: every leaf sits in a rack with nodes it serves.
  for (const int leaf : fabric.switches[static_cast<int>(Tier::leaf)]) {
    EXPECT_EQ(cluster.racks[cluster.devices[leaf].rack].kind, RackKind::compute);
  }
}

TEST(FabricRules, EverythingOnOneSwitchNeedsNoSpine) {
  const std::string yaml = R"(name: tiny
nodes: {system: pcie-8gpu-l40s, count: 4}
fabrics:
  compute: {switch: qm9700, link_speed: 400 Gb/s}
facility: {rack_power_limit: 20 kW, pdu: px3-5878i2r, cooling: air-standard}
)";
  const Fabric& fabric = *plan_text(yaml).fabric(NetworkRole::compute);
  EXPECT_EQ(fabric.tiers, 1);
  EXPECT_EQ(fabric.switches_in(Tier::leaf), 1);
  EXPECT_EQ(fabric.switches_in(Tier::spine), 0);
}

TEST(Cabling, LengthFollowsTheTrayRoute) {
  RowLayout layout{10, metres(0.6), metres(2.4), metres(0.3), metres(0.04445), metres(2.0)};
  Rack first;
  first.row = 0;
  first.slot = 1;
  Rack far;
  far.row = 1;
  far.slot = 4;
  Device low;
  low.rack_unit = 1;
  low.height = rack_units(8);  // centre 4 U up
  Device high;
  high.rack_unit = 41;
  high.height = rack_units(1);  // centre 40.5 U up
  const double unit = 0.04445;
  const double rack_top = 48 * unit;
  EXPECT_NEAR(in_metres(link_length(layout, rack_units(48), first, low, first, high)),
              (40.5 - 4) * unit + 2.0, 1e-9);
  const double expected = (rack_top - 4 * unit) + 0.3 + 3 * 0.6 + 2.4 + 0.3 + (rack_top - 40.5 * unit) + 2.0;
  EXPECT_NEAR(in_metres(link_length(layout, rack_units(48), first, low, far, high)), expected, 1e-9);
}

TEST(Cabling, MediumByReachCopperInTheRackFiberAcrossTheRoom) {
  const std::string yaml = R"(name: media
nodes: {system: pcie-8gpu-l40s, count: 40}
fabrics:
  compute: {topology: leaf_spine, switch: qm9700, link_speed: 400 Gb/s}
facility: {rack_power_limit: 20 kW, pdu: px3-5878i2r, cooling: air-standard, layout: {racks_per_row: 8}}
)";
  const Cluster cluster = plan_text(yaml);
  const Fabric& fabric = *cluster.fabric(NetworkRole::compute);
  int copper = 0;
  int fiber = 0;
  for (const auto& bundle : fabric.bundles) {
    ASSERT_TRUE(bundle.medium.has_value());
    const bool same_rack = cluster.devices[bundle.device_a].rack == cluster.devices[bundle.device_b].rack;
    const Cable& cable = testing::bundled_catalog().get<Cable>(bundle.cable_part);
    EXPECT_GE(bundle.cable_length, bundle.length);
    EXPECT_EQ(cable.medium, *bundle.medium);
    if (*bundle.medium == Medium::passive_copper) ++copper;
    if (needs_transceivers(*bundle.medium)) ++fiber;
    if (same_rack) {
      EXPECT_EQ(*bundle.medium, Medium::passive_copper) << in_metres(bundle.length);
    }
    if (in_metres(bundle.length) > 5.0) {
      EXPECT_TRUE(needs_transceivers(*bundle.medium));
    }
  }
  EXPECT_GT(copper, 0);
  EXPECT_GT(fiber, 0);
  // Copper links need no transceivers; fiber ports share twin-port modules two by two on each switch.
  std::map<int, int> fiber_ports;
  for (const auto& bundle : fabric.bundles) {
    if (!bundle.medium || !needs_transceivers(*bundle.medium)) continue;
    if (bundle.tier_a != Tier::endpoint) fiber_ports[bundle.device_a] += bundle.links;
    fiber_ports[bundle.device_b] += bundle.links;
  }
  int modules = 0;
  for (const auto& [device, ports] : fiber_ports) modules += (ports + 1) / 2;
  EXPECT_EQ(fabric.transceivers_at("switch"), modules);
}

TEST(Cabling, LinksNothingReachesAreWarnedAbout) {
  RailSpec spec;
  spec.nodes = 64;
  std::string yaml = rail_spec(spec);
  yaml.replace(yaml.find("media: [multimode, singlemode]"), 30, "media: [passive_copper]");
  const Cluster cluster = plan_text(yaml);
  const auto warning = std::find_if(cluster.warnings.begin(), cluster.warnings.end(),
                                    [](const Warning& w) { return w.code == "link-beyond-reach"; });
  ASSERT_NE(warning, cluster.warnings.end());
  EXPECT_NE(warning->message.find("compute links"), std::string::npos);
}

TEST(Power, PdusPerRedundancyScheme) {
  const Power circuit = kilowatts(34.5);
  EXPECT_EQ(pdus_for(kilowatts(40.8), circuit, PduRedundancy::n_plus_1),
            3);  // the SuperPOD's 3 PDUs per rack
  EXPECT_EQ(pdus_for(kilowatts(40.8), circuit, PduRedundancy::two_n), 4);
  EXPECT_EQ(pdus_for(kilowatts(5), circuit, PduRedundancy::n_plus_1), 2);  // still one per feed
  EXPECT_EQ(pdus_for(kilowatts(5), circuit, PduRedundancy::two_n), 2);
  EXPECT_EQ(pdus_for(kilowatts(69), circuit, PduRedundancy::two_n), 4);
}

TEST(Power, RacksStayUnderTheirLimitAndTotalsAddUp) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  Power it;
  for (const auto& rack : cluster.racks) {
    EXPECT_LE(rack.power_max, kilowatts(42)) << rack.name;
    EXPECT_LE(in_rack_units(rack.used), 48) << rack.name;
    it += rack.power_max;
  }
  Power devices;
  for (const auto& device : cluster.devices) devices += device.power_max;
  EXPECT_NEAR(in_watts(cluster.power.it_max), in_watts(it), 1e-6);
  // Every device, plus the modules whose hosts' maximum leaves them out (in-band and UFM modules here).
  EXPECT_NEAR(in_watts(cluster.power.it_max), in_watts(devices + cluster.power.modules_max), 1e-6);
  EXPECT_GT(cluster.power.modules_max, Power{});
  EXPECT_NEAR(in_watts(cluster.power.facility_max), in_watts(it) * 1.4, 1e-3);
  EXPECT_TRUE(cluster.power.typical_from_max);  // no typical figure published for the DGX H100
}

// Four DGX H100 on one scalable unit of 8 rail leaves and, at 1:1, as many uplinks as downlinks: 32 node-leaf
// and 32 leaf-spine links, all on fiber. Each node's 8 ports sit two to an OSFP cage: 4 twin-port modules
// (MMA4Z00-NS, 15 W) a node, 16 in all, which DGX H100's maximum input already counts: none added. The
// switches' 96 link ends (32 leaf-down, 32 leaf-up, 32 spine-down) fill twin-port cages two by two: 48
// modules. The QM9700's maximum is "with active cables" (counts them), its typical "with passive cables"
// (does not): 48 x 15 W = 720 W go into typical IT power and nothing into the maximum.
Cluster four_node_rail_unit(const std::string& leaf) {
  RailSpec spec;
  spec.nodes = 4;
  spec.scalable_unit = 4;
  spec.switch_id = leaf;
  return plan_text(rail_spec(spec));
}

Power typical_of_devices(const Cluster& cluster) {
  Power total;
  for (const auto& device : cluster.devices) total += device.power_typical;
  return total;
}

TEST(Power, EachTransceiverIsAddedOnceWhereItsHostsFigureLeavesItOut) {
  const Cluster cluster = four_node_rail_unit("qm9700");
  const Fabric& fabric = *cluster.fabric(NetworkRole::compute);
  ASSERT_EQ(fabric.switches_in(Tier::leaf), 8);
  ASSERT_EQ(fabric.links_between(Tier::endpoint, Tier::leaf), 32);
  ASSERT_EQ(fabric.links_between(Tier::leaf, Tier::spine), 32);
  EXPECT_EQ(fabric.transceivers_at("node"), 16);
  EXPECT_EQ(fabric.transceivers_at("switch"), 48);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_typical), 720.0);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_max), 0.0);
  EXPECT_NEAR(in_watts(cluster.power.it_typical), in_watts(typical_of_devices(cluster)) + 720.0, 1e-6);
  ASSERT_EQ(cluster.power.modules.size(), 2u);
  for (const ModulePowerLine& line : cluster.power.modules) {
    EXPECT_EQ(line.module_part, "mma4z00-ns");
    const bool switch_side = line.host_part == "qm9700";
    EXPECT_EQ(line.count, switch_side ? 48 : 16);
    EXPECT_EQ(line.added_to_typical(), switch_side) << line.host_part;
    EXPECT_FALSE(line.added_to_max()) << line.host_part;
  }
}

// A switch whose only figure leaves its modules out (the SN5600's 940 W "typical power with passive cables",
// standing in for its maximum too) has its 48 modules added to both: 720 W max and typical.
TEST(Power, ModulesOfAHostWhoseOnlyFigureLeavesThemOutAreAddedToMaximumAndTypical) {
  const Cluster cluster = four_node_rail_unit("sn5600");
  EXPECT_EQ(cluster.fabric(NetworkRole::compute)->transceivers_at("switch"), 48);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_max), 720.0);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_typical), 720.0);
  const std::string text = plan_text(cluster);
  EXPECT_NE(text.find("48 x mma4z00-ns (15 W) in sn5600: added: sn5600's figures leave them out"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("16 x mma4z00-ns (15 W) in dgx-h100: not added: dgx-h100's figures count them"),
            std::string::npos)
      << text;
}

// A small circuit for hand-worked PDU counts: 240 V x 5 A x 0.8 = 960 W usable.
Catalog catalog_with_small_pdu() {
  return testing::catalog_with({{"small-pdu.yaml", R"yaml(
circuits:
  - id: test-240v-1ph-5a
    name: "240 V single-phase 5 A (test)"
    voltage: 240 V
    phases: 1
    current: 5 A
    continuous_derating: 0.8
    source: "test part"
pdus:
  - id: test-pdu-960w
    name: "960 W rack PDU (test)"
    circuit: test-240v-1ph-5a
    outlets: 8
    rack_units: 0 U
    source: "test part"
)yaml"}});
}

// Four DGX H100 on one SN5600, in a network rack of its own, on 960 W circuits.
const char* const kOneSn5600Spec = R"yaml(name: one switch
nodes: {system: dgx-h100, count: 4}
fabrics:
  compute:
    topology: leaf_spine
    switch: sn5600
    link_speed: 400 Gb/s
    leaf_placement: network_rack
facility:
  rack_power_limit: 60 kW
  max_nodes_per_rack: 4
  pdu: test-pdu-960w
  pdu_redundancy: n_plus_1
  cooling: direct-liquid
cabling: {media: [multimode, singlemode]}
)yaml";

// Four DGX H100 on one SN5600 (everything fits on one switch), kept in a network rack of its own. The
// switch's 32 x 400 Gb/s ports fill 16 twin-port OSFP cages: 16 MMA4Z00-NS x 15 W = 240 W its 940 W figure
// leaves out ("with passive cables"), so the rack draws 940 + 240 = 1,180 W. On 960 W circuits with N+1
// redundancy the switch alone would need ceil(940 / 960) = 1 circuit, 2 PDUs; with its modules ceil(1,180 /
// 960) = 2, 3 PDUs. The compute racks (40.8 kW, DGX H100's figure counts its own modules) need 43 circuits,
// 44 PDUs.
TEST(Power, ARackGetsOneMorePduOnlyBecauseOfItsModules) {
  const Catalog catalog = catalog_with_small_pdu();
  const Cluster cluster = plan_text(kOneSn5600Spec, catalog);
  ASSERT_EQ(cluster.racks.size(), 2u);
  const Rack& network = cluster.racks[1];
  ASSERT_EQ(network.kind, RackKind::network);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.circuit_capacity), 960.0);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_max), 240.0);
  EXPECT_DOUBLE_EQ(in_watts(network.power_max), 1180.0);
  EXPECT_EQ(pdus_for(watts(940), watts(960), PduRedundancy::n_plus_1), 2);  // the switch alone
  EXPECT_EQ(network.pdus, 3);
  EXPECT_EQ(cluster.racks[0].pdus, 44);
  EXPECT_EQ(cluster.power.circuits, 47);
  const auto pdus = std::find_if(cluster.bom.begin(), cluster.bom.end(),
                                 [](const BomLine& line) { return line.part == "test-pdu-960w"; });
  ASSERT_NE(pdus, cluster.bom.end());
  EXPECT_EQ(pdus->count, 47);
  EXPECT_NE(plan_text(cluster).find("47 PDU circuits of 960 W"), std::string::npos) << plan_text(cluster);
}

namespace {

// MI300X platforms on a rail-optimized QM9700 unit, multimode only, under the given rack power limit.
std::string amd_rail_unit_spec(int nodes, const std::string& rack_power_limit) {
  return "name: amd nodes\nnodes: {system: amd-mi300x-8gpu, count: " + std::to_string(nodes) +
         "}\nfabrics:\n  compute:\n    topology: rail_optimized\n    switch: qm9700\n"
         "    link_speed: 400 Gb/s\n    scalable_unit: 4\nfacility:\n  rack_power_limit: " +
         rack_power_limit + "\n  pdu: px3-5878i2r\n  cooling: direct-liquid\ncabling: {media: [multimode]}\n";
}

}  // namespace

// Four AMD MI300X platforms (10.2 kW each, a figure that does not say whether it counts the NICs' modules,
// so plan adds them) on a rail-optimized QM9700 unit, multimode only, under a 41 kW rack limit. Each node's 8
// single-port OSFP cages at 400 Gb/s take one MMA4Z00-NS400 each (9 W max, 8 W typical: the only multimode
// 400G module for that cage that the router can pick; the twin-port MMA4Z00-NS reaches no farther, 50 m on
// OM4, and ranks lower for a single-port cage), 72 W a node. By the nodes' own figures 4 fit a rack (4 x 10.2
// = 40.8 kW), but with their modules they draw 4 x 10.272 = 41.088 kW, over the limit: placement counts the
// modules first, so 41 / 10.272 = 3.99 -> 3 nodes a rack (30.816 kW) and the fourth in a second rack.
TEST(Power, PlacementLeavesRoomForTheModulesANodesFigureLeavesOut) {
  const Cluster cluster = plan_text(amd_rail_unit_spec(4, "41 kW"));
  ASSERT_FALSE(cluster.racks.empty());
  const std::vector<std::string> over = testing::warning_messages(cluster, "rack-over-limit");
  EXPECT_TRUE(over.empty()) << over.front();
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_max), 4 * 8 * 9.0);
  std::vector<int> nodes_per_compute_rack;
  for (const Rack& rack : cluster.racks) {
    EXPECT_LE(in_watts(rack.power_max), 41000.0 + 1e-6) << rack.name;
    if (rack.kind != RackKind::compute) continue;
    nodes_per_compute_rack.push_back(
        static_cast<int>(std::count_if(rack.devices.begin(), rack.devices.end(), [&](int device) {
          return cluster.devices[device].kind == DeviceKind::node;
        })));
  }
  EXPECT_EQ(nodes_per_compute_rack, (std::vector<int>{3, 1}));
  EXPECT_DOUBLE_EQ(in_watts(cluster.racks[0].power_max), 3 * (10200.0 + 72.0));
}

// A node that with its modules cannot fit an empty rack is refused at the limit, naming both figures: the
// MI300X platform's 10.2 kW fits a 10.25 kW rack, with its 72 W of modules (above) it does not.
TEST(Power, ANodeWhoseModulesTakeItOverAnEmptyRackIsALocatedError) {
  const std::string yaml = amd_rail_unit_spec(1, "10.25 kW");
  const std::string errors = testing::plan_errors(yaml);
  EXPECT_NE(errors.find("facility.rack_power_limit: one amd-mi300x-8gpu draws up to 10.2 kW and the modules "
                        "in its cages up to 72 W, more than the rack power limit of 10.25 kW"),
            std::string::npos)
      << errors;
}

// What placement reserves for the SN5600 above, by hand. The placed design has 2 racks in one row: no link is
// longer than 2 x 48 U x 44.45 mm (4.267 m, down and up the racks) + 2 x 0.3 m (trays) + 0.6 m (along the
// row)
// + 2 m (slack) = 7.47 m (before placement, with 5 devices to place, at most 5 racks: 9.27 m). Every length
// up to it is within multimode's 50 m, the first medium the spec allows, so the router picks multimode at any
// of them, and for the SN5600's twin-port OSFP cages the MMA4Z00-NS (15 W, 2 links): 7.5 W a link, 32 x 7.5 =
// 240 W, plus half a module it may buy partly used: 247.5 W. Routed: 16 x 15 = 240 W, within it. The DGX
// H100's maximum counts its modules: it reserves nothing.
TEST(Power, TheModuleReserveBoundsWhatRoutingAdds) {
  const Catalog catalog = catalog_with_small_pdu();
  const auto spec = parse_cluster_spec(kOneSn5600Spec, "test.yaml", catalog);
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  const Cluster cluster = plan_text(kOneSn5600Spec, catalog);
  const std::vector<Power> most = most_module_power(spec.value(), catalog, cluster);
  const std::vector<Power> reserve = module_power_to_reserve(spec.value(), catalog, cluster);
  ASSERT_EQ(most.size(), cluster.devices.size());
  int switches = 0;
  for (std::size_t d = 0; d < cluster.devices.size(); ++d) {
    const Device& device = cluster.devices[d];
    if (device.part == "sn5600") {
      ++switches;
      EXPECT_DOUBLE_EQ(in_watts(most[d]), 247.5);
      EXPECT_DOUBLE_EQ(in_watts(reserve[d]), 247.5);
    } else if (device.part == "dgx-h100") {
      EXPECT_GT(in_watts(most[d]), 0.0) << "its modules draw; its figure counts them";
      EXPECT_DOUBLE_EQ(in_watts(reserve[d]), 0.0);
    }
  }
  EXPECT_EQ(switches, 1);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_max), 240.0);
}

// The same SN5600 with one rack a row, rows 60 m apart. The bound asserted here is the one on the placed
// layout; placement computes its own before any rack exists, over every rack the design could open (one a
// row, so longer links and a larger reserve). For the placed design (2 racks, the nodes' and the switch's) no
// link is longer than 4.267 + 0.6 + 60 (one row across) + 2 = 66.87 m: up to 50 m the router picks multimode
// (MMA4Z00-NS, 7.5 W a link), from 50 to 66.87 m single-mode's MMS4X00-NS (100 m reach, 17 W twin-port: 8.5 W
// a link), never a longer-reaching module. 32 x 8.5 = 272 W, plus half a module of each of the two twin-port
// parts (7.5 + 8.5): 288 W. Routed, every link crosses the 60 m between the rows, so all are single-mode: 16
// x 17 = 272 W, within it.
TEST(Power, TheModuleReserveGrowsWithTheLongestLinkTheLayoutAllows) {
  std::string yaml = kOneSn5600Spec;
  const std::string cooling = "  cooling: direct-liquid\n";
  yaml.replace(yaml.find(cooling), cooling.size(),
               cooling + "  layout: {racks_per_row: 1, row_pitch: 60 m}\n");
  const Catalog catalog = catalog_with_small_pdu();
  const auto spec = parse_cluster_spec(yaml, "test.yaml", catalog);
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  const Cluster cluster = plan_text(yaml, catalog);
  const std::vector<Power> most = most_module_power(spec.value(), catalog, cluster);
  const auto sn5600 = std::find_if(cluster.devices.begin(), cluster.devices.end(),
                                   [](const Device& device) { return device.part == "sn5600"; });
  ASSERT_NE(sn5600, cluster.devices.end());
  ASSERT_EQ(cluster.racks.size(), 2u);
  EXPECT_DOUBLE_EQ(in_watts(most[static_cast<std::size_t>(sn5600 - cluster.devices.begin())]), 288.0);
  EXPECT_DOUBLE_EQ(in_watts(cluster.power.modules_max), 272.0);
}

// Module power is counted in the rack of the device it plugs into, so the totals and IT power (the racks'
// sum) agree by construction; routing a link whose end is in no rack is refused, naming the device, rather
// than measured from a rack that does not exist.
TEST(Power, AModuleOnADeviceInNoRackIsRefusedNotLeftOutOfTheRacks) {
  const Cluster designed = four_node_rail_unit("sn5600");
  Power racks_modules;
  Power devices;
  for (const auto& device : designed.devices) devices += device.power_max;
  for (const auto& rack : designed.racks) racks_modules += rack.power_max;
  EXPECT_NEAR(in_watts(racks_modules - devices), in_watts(designed.power.modules_max), 1e-6);

  RailSpec rail;
  rail.nodes = 4;
  rail.scalable_unit = 4;
  rail.switch_id = "sn5600";
  const auto spec = parse_cluster_spec(rail_spec(rail), "test.yaml", testing::bundled_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  Cluster unplaced = designed;
  for (auto& fabric : unplaced.fabrics) fabric.module_loads.clear();
  unplaced.devices[0].rack = -1;
  try {
    route_cables(spec.value(), testing::bundled_catalog(), unplaced);
    ADD_FAILURE() << "a link end in no rack was routed";
  } catch (const std::logic_error& refused) {
    EXPECT_NE(std::string(refused.what()).find(designed.devices[0].name + " (dgx-h100) is in no rack"),
              std::string::npos)
        << refused.what();
  }
}

TEST(Costs, TcoIsCapexPlusEnergyAndSupportOverTheLifetime) {
  const Cluster cluster = plan_file("examples/h100-100k-three-tier.yaml");
  const Costs& costs = cluster.costs;
  ASSERT_TRUE(costs.priced);
  double capex = 0;
  for (const auto& line : cluster.bom) {
    if (line.unit_price) capex += in_usd(*line.unit_price) * line.count;
  }
  EXPECT_NEAR(in_usd(costs.capex), capex, 1e-3);
  const auto nodes = std::find_if(cluster.bom.begin(), cluster.bom.end(),
                                  [](const BomLine& l) { return l.part == "dgx-h100"; });
  ASSERT_NE(nodes, cluster.bom.end());
  EXPECT_EQ(nodes->count, 12500);
  const double energy = in_kilowatts(cluster.power.facility_typical) * 365.25 * 24 * 0.0779;
  EXPECT_NEAR(in_usd(costs.energy_per_year), energy, 1.0);
  EXPECT_NEAR(in_usd(costs.support_per_year), 0.08 * capex, 1.0);
  EXPECT_NEAR(in_usd(costs.total), capex + 5 * (energy + 0.08 * capex), 10.0);
  EXPECT_FALSE(costs.unpriced_parts.empty());  // optics and cables have no price in the example
  EXPECT_FALSE(costs.complete());
  EXPECT_FALSE(costs.cost_per_gpu_hour) << "a TCO that leaves out unpriced parts gives no price per GPU-hour";
}

// A price list for every part of `cluster`'s BOM but `left_out`.
std::string prices_for(const Cluster& cluster, const std::string& left_out) {
  std::string yaml = "costs:\n  support_rate_per_year: 0.05\n  prices:\n";
  std::set<std::string> parts;
  for (const auto& line : cluster.bom) {
    if (line.part != left_out && parts.insert(line.part).second) yaml += "    " + line.part + ": 1000 USD\n";
  }
  return yaml;
}

TEST(Costs, OnlyACompleteTotalGivesACostPerGpuHour) {
  testing::RailSpec rail;
  rail.nodes = 31;
  const std::string spec = testing::rail_spec(rail);
  const Cluster unpriced = plan_text(spec);
  EXPECT_FALSE(unpriced.costs.complete());
  EXPECT_FALSE(unpriced.costs.cost_per_gpu_hour);

  const Cluster priced = plan_text(spec + prices_for(unpriced, ""));
  ASSERT_TRUE(priced.costs.complete());
  ASSERT_TRUE(priced.costs.cost_per_gpu_hour);
  EXPECT_NEAR(in_usd(*priced.costs.cost_per_gpu_hour),
              in_usd(priced.costs.total) / (priced.gpus * priced.costs.lifetime_years * kHoursPerYear), 1e-9);

  const Cluster partial = plan_text(spec + prices_for(unpriced, "dgx-h100"));
  EXPECT_FALSE(partial.costs.complete());
  EXPECT_EQ(partial.costs.unpriced_parts, std::vector<std::string>{"dgx-h100"});
  EXPECT_FALSE(partial.costs.cost_per_gpu_hour);
  EXPECT_LT(partial.costs.capex, priced.costs.capex);
}

// What binds a rack: the spec's limit, or the cooling's when it is lower (and known). The model carries it,
// so drawings and checks read it instead of recomputing it.
TEST(Power, RackCeilingIsTheLowerOfSpecAndCooling) {
  EXPECT_EQ(in_kilowatts(rack_power_ceiling(kilowatts(42), kilowatts(30))), 30);
  EXPECT_EQ(in_kilowatts(rack_power_ceiling(kilowatts(42), kilowatts(80))), 42);
  EXPECT_EQ(in_kilowatts(rack_power_ceiling(kilowatts(42), Power{})), 42);
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  EXPECT_EQ(cluster.power.rack_power_ceiling,
            rack_power_ceiling(cluster.power.rack_power_limit, cluster.power.rack_cooling_limit));
  EXPECT_GT(in_kilowatts(cluster.power.rack_power_ceiling), 0);
}

TEST(Design, HundredThousandGpusNeedThreeWellFormedTiers) {
  const Cluster cluster = plan_file("examples/h100-100k-three-tier.yaml");
  EXPECT_GE(cluster.gpus, 100000);
  const Fabric& fabric = *cluster.fabric(NetworkRole::compute);
  EXPECT_EQ(fabric.tiers, 3);
  expect_well_formed(fabric);
}

TEST(Design, SameSpecGivesByteIdenticalJson) {
  const std::string first = plan_json(plan_file("examples/dgx-h100-superpod-4su.yaml")).dump();
  const std::string second = plan_json(plan_file("examples/dgx-h100-superpod-4su.yaml")).dump();
  EXPECT_EQ(first, second);
  EXPECT_GT(first.size(), 10000u);
}

}  // namespace
}  // namespace gputwin
