// Rack-scale systems (GB200/GB300 NVL72) in the design: one domain per rack, racks that are one purchased
// system, heat split between liquid and air, the CDU plant, scalable units of whole racks, and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gputwin/core/test_text.hpp"
#include "gputwin/design/cooling_plant.hpp"
#include "gputwin/design/design_test_support.hpp"
#include "gputwin/report/plan_report.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::plan_errors;
using testing::plan_file;
using testing::plan_text;

constexpr const char* kGb200Example = "examples/gb200-nvl72-superpod-1su.yaml";

std::string example_text(const char* relative) {
  return testing::read_text(testing::source_path(relative));
}

// The GB200 example with one piece of text replaced (the piece must be there).
std::string gb200_with(const std::string& from, const std::string& to) {
  return testing::replaced(example_text(kGb200Example), from, to);
}

int count_kind(const Cluster& cluster, const Rack& rack, DeviceKind kind) {
  int count = 0;
  for (const int d : rack.devices) count += cluster.devices[d].kind == kind;
  return count;
}

TEST(RackScale, Gb200SuperPodIsOneDomainPerRack) {
  const Cluster cluster = plan_file(kGb200Example);
  ASSERT_EQ(cluster.rack_system, "gb200-nvl72");
  EXPECT_EQ(cluster.gpus, 576);
  EXPECT_EQ(cluster.nodes, 144);
  ASSERT_EQ(cluster.domains.size(), 8u);
  for (const auto& domain : cluster.domains) {
    EXPECT_EQ(domain.gpus, 72);
    EXPECT_EQ(domain.nodes.size(), 18u);
    EXPECT_EQ(domain.switches.size(), 9u);
    EXPECT_DOUBLE_EQ(in_gigabytes_per_second(domain.gpu_bandwidth), 900.0);
    // A domain never spans racks: its trays and switch trays share one.
    std::set<int> racks;
    for (const int node : domain.nodes) racks.insert(cluster.devices[node].rack);
    for (const int tray : domain.switches) racks.insert(cluster.devices[tray].rack);
    EXPECT_EQ(racks.size(), 1u);
  }
  int system_racks = 0;
  for (const auto& rack : cluster.racks) {
    if (rack.system.empty()) continue;
    ++system_racks;
    EXPECT_EQ(count_kind(cluster, rack, DeviceKind::node), 18) << rack.name;
    EXPECT_EQ(count_kind(cluster, rack, DeviceKind::scale_up_switch), 9) << rack.name;
    EXPECT_EQ(count_kind(cluster, rack, DeviceKind::power_shelf), 8) << rack.name;
    EXPECT_EQ(rack.pdus, 0) << rack.name << ": fed by its power shelves";
    EXPECT_DOUBLE_EQ(in_rack_units(rack.used), 37.0) << rack.name;  // 18 + 9 + 8 + 2 management switches
  }
  EXPECT_EQ(system_racks, 8);
  ASSERT_FALSE(cluster.node_types.empty());
  const NodeType& tray = cluster.node_types[cluster.devices[cluster.domains[0].nodes[0]].node_type];
  EXPECT_EQ(tray.system, "gb200-nvl72-tray");
  EXPECT_EQ(tray.gpus, 4);
  EXPECT_EQ(tray.cpu_sockets, 2);
  EXPECT_EQ(tray.nics.at(NetworkRole::compute).ports, 4);
}

TEST(RackScale, EightGpuBoxIsOneNodeAndOneDomain) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  ASSERT_EQ(static_cast<int>(cluster.domains.size()), cluster.nodes);
  for (const auto& domain : cluster.domains) {
    EXPECT_EQ(domain.gpus, 8);
    ASSERT_EQ(domain.nodes.size(), 1u);
    EXPECT_TRUE(domain.switches.empty());
    EXPECT_EQ(cluster.devices[domain.nodes[0]].kind, DeviceKind::node);
    EXPECT_DOUBLE_EQ(in_gigabytes_per_second(domain.gpu_bandwidth), 450.0);  // 900 GB/s both ways
  }
  std::set<std::string> types;
  for (const auto& type : cluster.node_types) types.insert(type.system);
  EXPECT_EQ(types, (std::set<std::string>{"dgx-h100", "mgmt-server-2s"}));
  EXPECT_FALSE(cluster.cooling.present()) << "air-cooled racks need no liquid plant";
  for (const auto& rack : cluster.racks) {
    EXPECT_TRUE(rack.system.empty());
    EXPECT_EQ(rack.cooling, CoolingMethod::air);
    EXPECT_EQ(rack.heat_to_air, rack.power_max);
  }
}

TEST(RackScale, HeatSplitsPerRackAndTheCduPlantCarriesTheLiquidPart) {
  const Cluster cluster = plan_file(kGb200Example);
  Power liquid;
  Power air;
  for (const auto& rack : cluster.racks) {
    EXPECT_NEAR(in_kilowatts(rack.heat_to_liquid + rack.heat_to_air), in_kilowatts(rack.power_max), 1e-9);
    liquid += rack.heat_to_liquid;
    air += rack.heat_to_air;
    if (rack.system.empty()) continue;
    EXPECT_EQ(rack.cooling, CoolingMethod::hybrid);
    // 123.6 kW at maximum (18 x 6,667 W trays + 9 x 400 W switch trays), 85 % of it to liquid.
    EXPECT_NEAR(in_kilowatts(rack.power_max), 123.6, 1e-9);
    EXPECT_NEAR(in_kilowatts(rack.heat_to_liquid), 0.85 * 123.6, 1e-9);
  }
  const CoolingPlant& plant = cluster.cooling;
  ASSERT_TRUE(plant.present());
  EXPECT_NEAR(in_kilowatts(plant.liquid_load), 8 * 0.85 * 123.6, 1e-6);
  EXPECT_NEAR(in_kilowatts(plant.liquid_load), in_kilowatts(liquid), 1e-9);
  EXPECT_NEAR(in_kilowatts(plant.air_load), in_kilowatts(air), 1e-9);
  // 840.5 kW over 600 kW CDUs: 2 carry it, 3 with N+1.
  EXPECT_EQ(plant.cdu, "in-row-cdu-600kw");
  EXPECT_EQ(plant.cdus_needed, 2);
  EXPECT_EQ(plant.cdus, 3);
  // Q = m_dot c_p dT: 840,480 W / (4,186 J/(kg K) x 10 K) = 20.08 kg/s = 1,204.7 l/min of water.
  EXPECT_NEAR(plant.water_flow_kg_per_s, 840480.0 / 41860.0, 1e-9);
  EXPECT_NEAR(plant.water_flow_l_per_min, 840480.0 / 41860.0 * 60.0, 1e-6);
  // The BOM buys 8 systems and 3 CDUs, not 144 trays, and no separate racks for the systems.
  std::map<std::string, int> bought;
  for (const auto& line : cluster.bom) bought[line.part] += line.count;
  EXPECT_EQ(bought["gb200-nvl72"], 8);
  EXPECT_EQ(bought["gb200-nvl72-tray"], 0);
  EXPECT_EQ(bought["in-row-cdu-600kw"], 3);
  EXPECT_EQ(bought["rack"], static_cast<int>(cluster.racks.size()) - 8);
}

// The rule of design/cooling_plant.hpp on the example: racks_per_row 10 puts the 8 NVL72 racks in slots 0-7
// of row 1 with two network racks after them (slots 8, 9). Each rack sends 0.85 x 123.6 = 105.06 kW to
// liquid, so a 600 kW CDU carries 5 of them (525.3 kW; a sixth would make 630.36 kW): cdu-1 carries
// compute-1 ... compute-5, cdu-2 compute-6 ... compute-8 (315.18 kW); they stand at slots 10 and 11 of the
// row, the spare cdu-3 at slot 12.
TEST(RackScale, InRowCdusStandAtTheEndOfTheRowTheyServeWithTheSpareBesideThem) {
  const Cluster cluster = plan_file(kGb200Example);
  const CoolingPlant& plant = cluster.cooling;
  ASSERT_EQ(plant.units.size(), 3u);
  EXPECT_EQ(plant.placement, "in_row");
  const auto rack_names = [&](const CduUnit& unit) {
    std::vector<std::string> names;
    for (const int r : unit.racks) names.push_back(cluster.racks[r].name);
    return names;
  };
  for (std::size_t u = 0; u < 3; ++u) {
    EXPECT_EQ(plant.units[u].name, "cdu-" + std::to_string(u + 1));
    EXPECT_EQ(plant.units[u].row, 0);
    EXPECT_EQ(plant.units[u].slot, 10 + static_cast<int>(u));
    EXPECT_EQ(plant.units[u].rack, -1) << "an in-row unit stands on the floor";
    EXPECT_EQ(plant.units[u].spare, u == 2);
  }
  EXPECT_EQ(rack_names(plant.units[0]),
            (std::vector<std::string>{"compute-1", "compute-2", "compute-3", "compute-4", "compute-5"}));
  EXPECT_EQ(rack_names(plant.units[1]), (std::vector<std::string>{"compute-6", "compute-7", "compute-8"}));
  EXPECT_TRUE(plant.units[2].racks.empty());
  EXPECT_NEAR(in_kilowatts(plant.units[0].load), 5 * 105.06, 1e-6);
  EXPECT_NEAR(in_kilowatts(plant.units[1].load), 3 * 105.06, 1e-6);
  // The racks keep their positions: no rack stands past slot 9.
  for (const Rack& rack : cluster.racks) EXPECT_LT(rack.slot, 10) << rack.name;
}

// A CDU carries whole racks of its own row: it does not reach across the aisle. With 4 racks a row the 8
// NVL72 racks are two rows of 420.24 kW, one unit each; with 3 a row they are three rows (315.18, 315.18 and
// 210.12 kW), three units, although the 840.48 kW would fill only ceil(840.48 / 600) = 2.
TEST(RackScale, InRowCdusCarryWholeRacksOfTheirOwnRow) {
  const Cluster rows = plan_text(gb200_with("racks_per_row: 10", "racks_per_row: 4"));
  const CoolingPlant& plant = rows.cooling;
  // racks_per_row 4: compute-1..4 in row 1, compute-5..8 in row 2 (420.24 kW each), network racks in row 3.
  ASSERT_EQ(plant.units.size(), 3u);
  EXPECT_EQ(plant.cdus_needed, 2);
  EXPECT_EQ(plant.units[0].row, 0);
  EXPECT_EQ(plant.units[0].racks.size(), 4u);
  EXPECT_EQ(plant.units[1].row, 1);
  EXPECT_EQ(plant.units[1].racks.size(), 4u);
  EXPECT_EQ(plant.units[0].slot, 4);
  EXPECT_EQ(plant.units[1].slot, 4);
  // Both rows carry 420.24 kW: the spare stands in the first, after its working unit.
  EXPECT_TRUE(plant.units[2].spare);
  EXPECT_EQ(plant.units[2].row, 0);
  EXPECT_EQ(plant.units[2].slot, 5);
  const Cluster narrow = plan_text(gb200_with("racks_per_row: 10", "racks_per_row: 3"));
  // Rows of 3 racks: compute-1..3 (315.18 kW), 4..6, 7..8 (210.12 kW): one working unit per row.
  EXPECT_EQ(narrow.cooling.cdus_needed, 3);
  EXPECT_EQ(narrow.cooling.cdus, 4);
}

// In-rack CDUs (250 kW, 4 U): one in each NVL72 rack above its 37 U of trays, switch trays, shelves and
// management switches (U38-U41 of the 48 U rack), carrying that rack's 105.06 kW; no spare unit.
TEST(RackScale, InRackCdusSitInTheirRacksAboveTheDevices) {
  const Cluster cluster = plan_text(gb200_with("cdu: in-row-cdu-600kw", "cdu: in-rack-cdu-250kw"));
  const CoolingPlant& plant = cluster.cooling;
  EXPECT_EQ(plant.placement, "in_rack");
  EXPECT_EQ(plant.cdus, 8);
  EXPECT_EQ(plant.cdus_needed, 8);
  ASSERT_EQ(plant.units.size(), 8u);
  for (const CduUnit& unit : plant.units) {
    EXPECT_FALSE(unit.spare);
    ASSERT_GE(unit.rack, 0);
    EXPECT_FALSE(cluster.racks[unit.rack].system.empty()) << "only the NVL72 racks send heat to liquid";
    EXPECT_EQ(unit.racks, std::vector<int>{unit.rack});
    EXPECT_EQ(unit.rack_unit, 38);
    EXPECT_NEAR(in_kilowatts(unit.load), 105.06, 1e-6);
    EXPECT_DOUBLE_EQ(in_rack_units(cluster.racks[unit.rack].used), 41.0);
  }
  EXPECT_EQ(plant.redundancy, "in each unit: N+1 pumps");
  const auto json = plan_json(cluster);
  EXPECT_EQ(json["liquid_cooling"]["units"][0]["rack"], "compute-1");
  EXPECT_EQ(json["liquid_cooling"]["units"][0]["rack_unit"], 38);
  for (const auto& warning : cluster.warnings) EXPECT_NE(warning.code, "cdu-no-rack-space");
  // In 40 U racks the 4 U unit does not fit above 37 U: warned, not silently drawn through the roof.
  const Cluster short_racks =
      plan_text(testing::replaced(gb200_with("cdu: in-row-cdu-600kw", "cdu: in-rack-cdu-250kw"),
                                  "  pue: 1.4\n", "  pue: 1.4\n  rack_units: 40 U\n"));
  int no_space = 0;
  for (const auto& warning : short_racks.warnings) {
    if (warning.code != "cdu-no-rack-space") continue;
    ++no_space;
    EXPECT_NE(warning.message.find("8 liquid-cooled racks have no room for their in-rack-cdu-250kw (4 U): "
                                   "compute-1 with it takes 41 U of a 40 U rack"),
              std::string::npos)
        << warning.message;
  }
  EXPECT_EQ(no_space, 1) << "one warning for the 8 NVL72 racks";
}

TEST(RackScale, PlanJsonAndTextShowDomainsAndThePlantOnlyWhenThereAreAny) {
  const Cluster nvl72 = plan_file(kGb200Example);
  const auto json = plan_json(nvl72);
  ASSERT_TRUE(json.contains("liquid_cooling"));
  EXPECT_EQ(json["liquid_cooling"]["cdus"], 3);
  EXPECT_EQ(json["liquid_cooling"]["cdus_needed"], 2);
  ASSERT_TRUE(json.contains("scale_up_domains"));
  EXPECT_EQ(json["scale_up_domains"].size(), 8u);
  EXPECT_EQ(json["scale_up_domains"][0]["nodes"].size(), 18u);
  const std::string text = gputwin::plan_text(nvl72);
  EXPECT_NE(text.find("Scale-up: 8 domains of 72 GPUs"), std::string::npos) << text;
  EXPECT_NE(text.find("Liquid cooling: 3 x in-row-cdu-600kw"), std::string::npos) << text;

  const Cluster h100 = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const auto plain = plan_json(h100);
  EXPECT_FALSE(plain.contains("liquid_cooling"));
  EXPECT_FALSE(plain.contains("scale_up_domains"));
  EXPECT_FALSE(plain["racks"][0].contains("heat_to_liquid_kw"));
  EXPECT_EQ(gputwin::plan_text(h100).find("Liquid cooling"), std::string::npos);
}

TEST(RackScale, WaterFlowFollowsTheHeatBalance) {
  const Coolant& water = bundled_catalog().get<Coolant>("water");
  // 1 MW with a 10 K rise: 1e6 / (4186 x 10) = 23.89 kg/s; doubling the rise halves the flow.
  EXPECT_NEAR(water_flow_kg_per_s(kilowatts(1000), water, 10.0), 1e6 / 41860.0, 1e-9);
  EXPECT_NEAR(water_flow_kg_per_s(kilowatts(1000), water, 20.0),
              water_flow_kg_per_s(kilowatts(1000), water, 10.0) / 2.0, 1e-9);
  EXPECT_EQ(water_flow_kg_per_s(kilowatts(1000), water, 0.0), 0.0);
}

// The GB200 example without its spine-leaf groups: leaves packed with trays, on shared spines.
std::string packed_gb200_with(const std::string& from, const std::string& to) {
  return testing::replaced(gb200_with("spine_leaf_groups: true", "spine_leaf_groups: false"), from, to);
}

TEST(RackScale, ScalableUnitsAreWholeRacks) {
  const Cluster cluster = plan_text(packed_gb200_with("name:", "name:"));
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->scalable_units, 1);
  EXPECT_EQ(compute->rails, 4);
  // 144 trays per rail and unit over leaves of 32 downlinks (64-port QM9700 at 1:1): 5 leaves per rail, the
  // last with 16 trays; 32 uplinks per leaf over 16 spines (the smallest divisor of 32 that holds 20 x 32).
  EXPECT_EQ(compute->switches_in(Tier::leaf), 20);
  EXPECT_EQ(compute->leaf_downlinks, 32);
  EXPECT_EQ(compute->switches_in(Tier::spine), 16);
  EXPECT_EQ(compute->links_between(Tier::endpoint, Tier::leaf), 576);

  const Cluster two = plan_text(packed_gb200_with("  count: 8\n", "  count: 16\n"));
  const Fabric* fabric = two.fabric(NetworkRole::compute);
  ASSERT_NE(fabric, nullptr);
  EXPECT_EQ(fabric->scalable_units, 2);
  for (const auto& domain : two.domains) {
    std::set<int> units;
    for (const int node : domain.nodes) units.insert(two.devices[node].placement_group);
    EXPECT_EQ(units.size(), 1u) << "a scalable unit cut a rack's domain";
  }
  // Without a scalable_unit, the default is whole racks too: one 18-tray rack per unit for a 64-port leaf.
  const Cluster by_default = plan_text(packed_gb200_with("    scalable_unit: 144 ", "    # "));
  ASSERT_NE(by_default.fabric(NetworkRole::compute), nullptr);
  EXPECT_EQ(by_default.fabric(NetworkRole::compute)->nodes_per_scalable_unit, 18);
  EXPECT_EQ(by_default.fabric(NetworkRole::compute)->scalable_units, 8);
}

// The example's spine-leaf groups (spec.md 5.3): one leaf per rack per rail, 8 x 4 = 32 leaves of 18 trays
// and 18 uplinks; each rail's 8 leaves x 18 uplinks on the smallest divisor of 18 spines holding 144 links
// at 32 down ports each (5 -> 6), 24 spines; 6 core planes, each of the smallest divisor of 32 cores that is
// at least 4 groups x 32 / 64 = 2: 12 cores (gputwin's rule; the RA's core count was not read).
TEST(RackScale, SpineLeafGroupsGiveEachRackALeafPerRailAndEachRailItsSpines) {
  const Cluster cluster = plan_file(kGb200Example);
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->scalable_units, 1);
  EXPECT_EQ(compute->leaf_downlinks, 18);
  EXPECT_EQ(compute->leaf_uplinks, 18);
  EXPECT_EQ(compute->switches_in(Tier::leaf), 32);
  EXPECT_EQ(compute->switches_in(Tier::spine), 24);
  EXPECT_EQ(compute->switches_in(Tier::core), 12);
  EXPECT_EQ(compute->pods, 4);
  EXPECT_EQ(compute->links_between(Tier::leaf, Tier::spine), 32 * 18);
  EXPECT_EQ(compute->links_between(Tier::spine, Tier::core), 24 * 32);
  // Rail 2's spines see rail 2's leaves only, one per rack, with 3 links each.
  const auto named = [&](const std::string& name) {
    for (std::size_t d = 0; d < cluster.devices.size(); ++d)
      if (cluster.devices[d].name == name) return static_cast<int>(d);
    ADD_FAILURE() << "no device " << name;
    return -1;
  };
  const int spine = named("compute-spine-su1-rail2-1");
  std::set<std::string> leaves;
  for (const LinkBundle& bundle : compute->bundles) {
    if (bundle.device_b != spine) continue;
    leaves.insert(cluster.devices[bundle.device_a].name);
    EXPECT_EQ(bundle.links, 3);
  }
  std::set<std::string> rail2;
  for (int rack = 1; rack <= 8; ++rack) rail2.insert("compute-leaf-su1-rail2-" + std::to_string(rack));
  EXPECT_EQ(leaves, rail2);
}

TEST(RackScale, SpineLeafGroupsAreLocatedErrorsWhereTheyCannotBeBuilt) {
  const std::string no_unit = plan_errors(gb200_with("    scalable_unit: 144 ", "    # "));
  EXPECT_NE(no_unit.find("fabrics.compute.spine_leaf_groups: spine-leaf groups need scalable_unit"),
            std::string::npos)
      << no_unit;
  const std::string two_tiers =
      plan_errors(gb200_with("    spine_leaf_groups: true", "    max_tiers: 2\n    spine_leaf_groups: true"));
  EXPECT_NE(two_tiers.find("fabrics.compute.max_tiers: spine-leaf groups join their rails through core "
                           "groups, a third tier; allow max_tiers: 3"),
            std::string::npos)
      << two_tiers;
  // 40 racks a unit: a rail's 40 leaves x 18 uplinks need 23 spines of 32 down ports; no divisor of 18 is.
  const std::string too_large = plan_errors(gb200_with("scalable_unit: 144", "scalable_unit: 720"));
  EXPECT_NE(too_large.find("fabrics.compute.scalable_unit: one of the spine-leaf groups has 40 leaves of 18 "
                           "uplinks each"),
            std::string::npos)
      << too_large;
}

// One rack-scale group with UFM appliances on its compute fabric. A spec of its own, because the examples
// (gb200-nvl72-superpod-1su, gb300-nvl72-1su, gb200-nvl72-2-racks-login-nodes) ask for no appliances at all:
// the free-leaf-port rule has nothing to place there, which is why their goldens did not move with it.
std::string rack_scale_with_ufm(const std::string& system, const std::string& compute_switch,
                                const std::string& speed, const std::string& appliance = "ufm-3.1") {
  return "name: rack-scale with UFM\n"
         "nodes: {system: " + system + ", count: 8}\n"
         "fabrics:\n"
         "  compute:\n"
         "    topology: rail_optimized\n"
         "    switch: " + compute_switch + "\n"
         "    link_speed: " + speed + "\n"
         "    oversubscription: \"1:1\"\n"
         "    scalable_unit: 144\n"
         "    appliances: [{appliance: " + appliance + ", count: 4}]\n"
         "facility:\n"
         "  rack_power_limit: 150 kW\n"
         "  pdu: px3-5878i2r\n"
         "  cooling: direct-liquid\n"
         "  pue: 1.4\n"
         "  liquid_cooling: {cdu: in-row-cdu-600kw, coolant: water, water_supply_temperature_c: 30, "
         "water_delta_t_c: 10}\n";
}

std::vector<std::string> boundary_steps(const Cluster& cluster) {
  return testing::warning_messages(cluster, "boundary-step");
}

// GB200: 144 trays per rail over 64-port QM9700 leaves of 32 node ports (1:1) are 5 leaves per rail, the fifth
// serving trays 129-144 with 16 node ports free. The 4 UFM ports (one per rail, 1 node slot) take one of
// them: still 1 unit, 4 x 5 = 20 leaves, 20 x 32 = 640 leaf-spine links on 16 spines (36 QM9700, as without
// the UFM), 144 x 4 + 4 = 580 node and UFM links; free ports 20 x 64 - 580 - 640 = 60 on the leaves plus
// 16 x 64 - 640 = 384 on the spines. Slots past the last tray would have opened a second unit (145 > 144).
TEST(RackScale, UfmTakesFreeLeafPortsOfARackScaleUnit) {
  const Cluster cluster = plan_text(rack_scale_with_ufm("gb200-nvl72", "qm9700", "400 Gb/s"));
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->scalable_units, 1);
  EXPECT_EQ(compute->switches_in(Tier::leaf), 20);
  EXPECT_EQ(compute->switches_in(Tier::spine), 16);
  EXPECT_EQ(compute->links_between(Tier::endpoint, Tier::leaf), 580);
  EXPECT_EQ(compute->links_between(Tier::leaf, Tier::spine), 640);
  EXPECT_EQ(compute->ports_total - compute->ports_used, 444);
  std::set<std::string> ufm_leaves;
  for (const LinkBundle& bundle : compute->bundles) {
    if (bundle.tier_a == Tier::endpoint && cluster.devices[bundle.device_a].kind == DeviceKind::appliance)
      ufm_leaves.insert(cluster.devices[bundle.device_b].name);
  }
  EXPECT_EQ(ufm_leaves, (std::set<std::string>{"compute-leaf-su1-rail1-5", "compute-leaf-su1-rail2-5",
                                               "compute-leaf-su1-rail3-5", "compute-leaf-su1-rail4-5"}));
  EXPECT_TRUE(boundary_steps(cluster).empty());
}

// The bundled UFM 3.1 has one 400 Gb/s compute port: on an 800 Gb/s Quantum-X800 fabric it is refused, as a
// node's slower NIC is (the model builds every port of a fabric at its link_speed).
TEST(RackScale, A400GUfmOnAn800GFabricIsRefused) {
  const std::string errors = plan_errors(rack_scale_with_ufm("gb300-nvl72", "q3400", "800 Gb/s"));
  EXPECT_NE(
      errors.find("fabrics.compute.appliances[0].appliance: the compute ports of appliance 'ufm-3.1' run "
                  "at most 400 Gb/s, slower than the fabric's 800 Gb/s"),
      std::string::npos)
      << errors;
}

// A fabric manager with one 800 Gb/s port (none is in the bundled catalog: a test part).
Catalog catalog_with_800g_fabric_manager() {
  const auto folder = std::filesystem::temp_directory_path() /
                      ("gputwin-800g-fabric-manager-" +
                       std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "appliances.yaml") << R"yaml(appliances:
  - {id: test-fm-800g, name: "800G fabric manager (test part)", source: test, confidence: unverified,
     rack_units: 1 U, power_max: 700 W,
     nics: {compute: {ports: 1, speed: 800 Gb/s, ports_per_cage: 1, cage: OSFP}}}
)yaml";
  auto catalog = Catalog::load({testing::source_path("data/catalog"), folder.string()});
  EXPECT_TRUE(catalog.ok()) << catalog.error_text();
  return std::move(catalog).value();
}

// GB300 on 144-port Q3400 at 800 Gb/s (1:1): 72 node ports per leaf, so 144 trays fill exactly 2 leaves per
// rail and the fabric manager finds no free port: its slot is the 145th, a second unit (16 leaves, 1152
// uplinks on 8 spines: 24 Q3400 instead of 12). A single rack-scale group says so, naming the appliances as
// the alternative (its trays are never removed one at a time).
TEST(RackScale, UfmPastAFullRackScaleUnitIsABoundaryStep) {
  const Cluster cluster = plan_text(rack_scale_with_ufm("gb300-nvl72", "q3400", "800 Gb/s", "test-fm-800g"),
                                    catalog_with_800g_fabric_manager());
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->scalable_units, 2);
  EXPECT_EQ(compute->switches_in(Tier::leaf), 16);
  EXPECT_EQ(compute->switches_in(Tier::spine), 8);
  const auto steps = boundary_steps(cluster);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_NE(steps[0].find("the ports of 4 test-fm-800g take 1 node slot past the 144 of 1 full scalable unit, "
                          "which opens a second scalable unit: 24 q3400 instead of 12 (+12)"),
            std::string::npos)
      << steps[0];
  EXPECT_EQ(steps[0].find("fewer"), std::string::npos) << steps[0];
}

TEST(RackScale, Gb300ExamplePlans) {
  const Cluster cluster = plan_file("examples/gb300-nvl72-1su.yaml");
  EXPECT_EQ(cluster.gpus, 576);
  ASSERT_EQ(cluster.domains.size(), 8u);
  for (const auto& rack : cluster.racks) {
    if (!rack.system.empty()) {
      EXPECT_NEAR(in_kilowatts(rack.power_max), 142.0, 1e-9) << rack.name;
    }
  }
  EXPECT_TRUE(cluster.cooling.present());
}

TEST(RackScale, CountIsRacksAndAGpuTargetRoundsUpToWholeRacks) {
  const auto by_gpus =
      parse_cluster_spec(gb200_with("  count: 8\n", "  gpus: 100\n"), "test.yaml", bundled_catalog());
  ASSERT_TRUE(by_gpus.ok()) << by_gpus.error_text();
  EXPECT_EQ(by_gpus.value().rack_system, "gb200-nvl72");
  EXPECT_EQ(by_gpus.value().node_system, "gb200-nvl72-tray");
  EXPECT_EQ(by_gpus.value().rack_system_count, 2);  // 100 GPUs need 2 racks of 72
  EXPECT_EQ(by_gpus.value().node_count, 36);
  // A workload sizes whole racks later (plan/workload_fit): the spec holds no count until then.
  const auto by_workload = parse_cluster_spec(
      gb200_with("  count: 8\n", "  workload: {model: llama3-70b, tokens: 1T, days: 30}\n"), "test.yaml",
      bundled_catalog());
  ASSERT_TRUE(by_workload.ok()) << by_workload.error_text();
  EXPECT_EQ(by_workload.value().rack_system, "gb200-nvl72");
  EXPECT_EQ(by_workload.value().rack_system_count, 0);
  EXPECT_EQ(by_workload.value().node_count, 0);
  ASSERT_TRUE(by_workload.value().workload.has_value());
  const std::string errors = plan_errors(gb200_with("  count: 8\n", "  count: 8\n  gpus: 100\n"));
  EXPECT_NE(errors.find("nodes: give exactly one of 'count' (racks of gb200-nvl72), 'gpus' (a target) or "
                        "'workload'"),
            std::string::npos)
      << errors;
}

TEST(RackScale, ScalableUnitThatCutsARackIsALocatedError) {
  const std::string errors = plan_errors(gb200_with("scalable_unit: 144", "scalable_unit: 32"));
  EXPECT_NE(errors.find("test.yaml:16:20: fabrics.compute.scalable_unit: a scalable unit of 32 nodes cuts "
                        "through gb200-nvl72 racks of 18 compute trays (one scale-up domain each); use a "
                        "multiple of 18"),
            std::string::npos)
      << errors;
}

TEST(RackScale, RackTooSmallForTheSystemIsALocatedError) {
  const std::string errors = plan_errors(
      gb200_with("  rack_power_limit: 150 kW ", "  rack_units: 36 U\n  rack_power_limit: 150 kW "));
  EXPECT_NE(errors.find("facility.rack_units: one gb200-nvl72 takes 37 U (trays, NVLink switch trays, power "
                        "shelves), more than the facility's 36 U racks"),
            std::string::npos)
      << errors;
}

TEST(RackScale, AirCoolingForALiquidCooledSystemIsALocatedError) {
  const std::string errors = plan_errors(gb200_with("cooling: direct-liquid", "cooling: air-standard"));
  EXPECT_NE(
      errors.find("facility.cooling: a gb200-nvl72 sends 85 % of its heat to liquid, but 'air-standard' "
                  "is air cooling"),
      std::string::npos)
      << errors;
}

TEST(RackScale, NodeLimitThatCutsTheDomainIsALocatedError) {
  const std::string errors = plan_errors(
      gb200_with("  rack_power_limit: 150 kW ", "  max_nodes_per_rack: 16\n  rack_power_limit: 150 kW "));
  EXPECT_NE(
      errors.find("facility.max_nodes_per_rack: a gb200-nvl72 rack holds 18 compute trays in one scale-up "
                  "domain; a limit of 16 would cut the domain across racks"),
      std::string::npos)
      << errors;
}

TEST(RackScale, TrayNamedAloneIsALocatedError) {
  const std::string errors = plan_errors(gb200_with("system: gb200-nvl72 ", "system: gb200-nvl72-tray "));
  EXPECT_NE(
      errors.find("test.yaml:8:11: nodes.system: the 72-GPU scale-up domain of 'gb200-nvl72-tray' spans "
                  "18 of them; name the rack-scale system that holds it ('gb200-nvl72') instead of the "
                  "tray"),
      std::string::npos)
      << errors;
}

TEST(RackScale, RackOverThePowerLimitIsALocatedError) {
  const std::string errors = plan_errors(gb200_with("rack_power_limit: 150 kW", "rack_power_limit: 100 kW"));
  EXPECT_NE(errors.find("facility.rack_power_limit: one gb200-nvl72 draws up to 123.6 kW, more than the rack "
                        "power limit of 100 kW"),
            std::string::npos)
      << errors;
}

TEST(RackScale, RoomOverItsAirOrLiquidCapacityWarns) {
  const Cluster cluster = plan_text(
      gb200_with("room_air_capacity: 300 kW", "room_air_capacity: 100 kW\n  room_liquid_capacity: 800 kW"));
  std::set<std::string> codes;
  for (const auto& warning : cluster.warnings) codes.insert(warning.code);
  EXPECT_TRUE(codes.contains("room-air-over-capacity"));
  EXPECT_TRUE(codes.contains("room-liquid-over-capacity"));
  const Cluster roomy = plan_file(kGb200Example);
  for (const auto& warning : roomy.warnings) {
    EXPECT_NE(warning.code, "room-air-over-capacity");
    EXPECT_NE(warning.code, "room-liquid-over-capacity");
  }
}

TEST(RackScale, RackOverItsLiquidCapacityIsALocatedError) {
  // A liquid cooling that removes 100 kW per rack, less than one NVL72 rack gives off.
  const Catalog catalog = testing::catalog_with({{"cool.yaml", R"(cooling:
  - {id: small-liquid, source: "test", type: liquid, max_rack_power: 100 kW}
)"}});
  const std::string errors =
      plan_errors(gb200_with("cooling: direct-liquid", "cooling: small-liquid"), catalog);
  EXPECT_NE(errors.find("facility.cooling: one gb200-nvl72 draws up to 123.6 kW, more than what small-liquid "
                        "cooling removes per rack (100 kW)"),
            std::string::npos)
      << errors;
}

// PUE by cooling type: the heat a rack sends to liquid is removed at the liquid plant's PUE, the rest at the
// room's. The example's 8 NVL72 racks send 85 % to liquid; its network racks are air-cooled.
TEST(RackScale, HeatToLiquidCostsTheLiquidPueAndTheRestTheRoomsPue) {
  const Cluster one_pue = plan_file(kGb200Example);
  EXPECT_DOUBLE_EQ(one_pue.power.pue, 1.4);
  EXPECT_DOUBLE_EQ(one_pue.power.liquid_pue, 1.4) << "no liquid PUE set: the room's";
  EXPECT_NEAR(in_kilowatts(one_pue.power.facility_max), 1.4 * in_kilowatts(one_pue.power.it_max), 1e-6);

  const Cluster split =
      plan_text(gb200_with("    water_delta_t_c: 10\n", "    water_delta_t_c: 10\n    pue: 1.1\n"));
  double expected_kw = 0;
  double expected_typical_kw = 0;
  for (const auto& rack : split.racks) {
    expected_kw += 1.1 * in_kilowatts(rack.heat_to_liquid) + 1.4 * in_kilowatts(rack.heat_to_air);
    const double share = in_kilowatts(rack.heat_to_liquid) / in_kilowatts(rack.power_max);
    expected_typical_kw += in_kilowatts(rack.power_typical) * (1.1 * share + 1.4 * (1 - share));
  }
  EXPECT_NEAR(in_kilowatts(split.power.facility_max), expected_kw, 1e-6);
  EXPECT_NEAR(in_kilowatts(split.power.facility_typical), expected_typical_kw, 1e-6);
  EXPECT_LT(split.power.facility_max, one_pue.power.facility_max);
  EXPECT_GT(split.power.pue, 1.1);
  EXPECT_LT(split.power.pue, 1.4);
  EXPECT_NEAR(split.power.pue, expected_kw / in_kilowatts(split.power.it_max), 1e-12);
  EXPECT_DOUBLE_EQ(split.power.air_pue, 1.4);
  EXPECT_DOUBLE_EQ(split.power.liquid_pue, 1.1);
  const std::string text = plan_text(split);
  EXPECT_NE(text.find("(heat to air at 1.4, to liquid at 1.1)"), std::string::npos) << text.substr(0, 600);
}

TEST(RackScale, LiquidPueBelowOneIsALocatedError) {
  const std::string errors =
      plan_errors(gb200_with("    water_delta_t_c: 10\n", "    water_delta_t_c: 10\n    pue: 0.9\n"));
  EXPECT_NE(errors.find("facility.liquid_cooling.pue: a PUE is at least 1.0"), std::string::npos) << errors;
}

}  // namespace
}  // namespace gputwin
