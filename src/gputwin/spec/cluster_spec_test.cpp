#include "gputwin/spec/cluster_spec.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "gputwin/core/test_text.hpp"
#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::plan_errors;

// A valid spec; each bad case replaces one piece of it.
const std::string kValidSpec = R"(name: small pod
nodes:
  system: dgx-h100
  count: 16
fabrics:
  compute:
    topology: rail_optimized
    switch: qm9700
    link_speed: 400 Gb/s
    oversubscription: "1:1"
facility:
  rack_power_limit: 42 kW
  pdu: px3-5878i2r
  cooling: air-standard
costs:
  lifetime_years: 5
  prices: {dgx-h100: 300000 USD}
)";

std::string replaced(const std::string& from, const std::string& to) {
  return testing::replaced(kValidSpec, from, to);
}

struct BadSpec {
  std::string name;
  std::string yaml;
  std::string location;  // "test.yaml:LINE:" prefix expected, or "" when only the file is known
  std::string field;
  std::string message;
};

void PrintTo(const BadSpec& bad, std::ostream* out) {
  *out << bad.name;
}

std::vector<BadSpec> bad_specs() {
  return {
      {"unknown_part", replaced("system: dgx-h100", "system: dgx-h900"), "test.yaml:3:11:", "nodes.system",
       "unknown system 'dgx-h900'"},
      {"negative_count", replaced("count: 16", "count: -4"), "test.yaml:4:10:", "nodes.count",
       "greater than zero"},
      {"wrong_unit", replaced("rack_power_limit: 42 kW", "rack_power_limit: 42 m"),
       "test.yaml:12:21:", "facility.rack_power_limit", "which is a length"},
      {"missing_unit", replaced("link_speed: 400 Gb/s", "link_speed: 400"),
       "test.yaml:9:17:", "fabrics.compute.link_speed", "missing unit"},
      {"ambiguous_unit", replaced("link_speed: 400 Gb/s", "link_speed: 400 Gbps"),
       "test.yaml:9:17:", "fabrics.compute.link_speed", "ambiguous unit"},
      {"missing_field", replaced("  pdu: px3-5878i2r\n", ""), "test.yaml:12:3:", "facility.pdu",
       "missing required field"},
      {"unknown_field", replaced("oversubscription:", "oversubcription:"),
       "test.yaml:10:5:", "fabrics.compute.oversubcription", "unknown field"},
      {"wrong_kind", replaced("switch: qm9700", "switch: dgx-h100"),
       "test.yaml:8:13:", "fabrics.compute.switch", "is a system, expected a switch"},
      {"no_ports_at_speed", replaced("link_speed: 400 Gb/s", "link_speed: 100 Gb/s"),
       "test.yaml:9:17:", "fabrics.compute.link_speed", "has no ports at 100 Gb/s"},
      {"uplinks_exceed_downlinks", replaced("\"1:1\"", "\"1:2\""),
       "test.yaml:10:23:", "fabrics.compute.oversubscription", "wastes ports"},
      {"ratio_not_a_ratio", replaced("\"1:1\"", "fast"),
       "test.yaml:10:23:", "fabrics.compute.oversubscription", "expected a ratio"},
      {"count_and_gpus", replaced("count: 16", "count: 16\n  gpus: 128"), "test.yaml:3:3:", "nodes",
       "exactly one of"},
      {"count_and_workload",
       replaced("count: 16", "count: 16\n  workload: {model: llama3-8b, tokens: 1T, days: 20}"),
       "test.yaml:3:3:", "nodes", "exactly one of 'count' (nodes), 'gpus' (a target) or 'workload'"},
      {"workload_tokens_without_suffix",
       replaced("count: 16", "workload: {model: llama3-8b, tokens: 15000, days: 20}"),
       "test.yaml:4:40:", "nodes.workload.tokens", "suffix, such as 15T"},
      {"workload_without_days", replaced("count: 16", "workload: {model: llama3-8b, tokens: 1T}"),
       "test.yaml:4:13:", "nodes.workload.days", "missing required field"},
      {"workload_unknown_precision",
       replaced("count: 16", "workload: {model: llama3-8b, tokens: 1T, days: 9, precision: FP4}"),
       "test.yaml:4:64:", "nodes.workload.precision", "FP4"},
      {"yaml_syntax", replaced("prices: {dgx-h100: 300000 USD}", "prices: {dgx-h100: 300000 USD"),
       "test.yaml:", "", "YAML syntax error"},
      {"pue_below_one", replaced("  cooling: air-standard\n", "  cooling: air-standard\n  pue: 0.9\n"),
       "test.yaml:15:8:", "facility.pue", "at least 1.0"},
      {"node_over_rack_power", replaced("rack_power_limit: 42 kW", "rack_power_limit: 8 kW"),
       "test.yaml:12:21:", "facility.rack_power_limit", "more than the rack power limit"},
      {"node_taller_than_rack", replaced("  pdu: px3", "  rack_units: 4 U\n  pdu: px3"),
       "test.yaml:13:15:", "facility.rack_units", "taller than"},
      {"impossible_two_tier_fabric",
       testing::replaced(replaced("count: 16", "count: 3000"), "oversubscription: \"1:1\"",
                         "oversubscription: \"1:1\"\n    max_tiers: 2"),
       "test.yaml:11:16:", "fabrics.compute.max_tiers", "allow max_tiers: 3"},
      {"scalable_unit_too_large",
       replaced("oversubscription: \"1:1\"", "oversubscription: \"1:1\"\n    scalable_unit: 60"),
       "test.yaml:11:20:", "fabrics.compute.scalable_unit", "a leaf needs 60 node ports"},
      {"more_than_three_tiers", replaced("count: 16", "count: 9000"),
       "test.yaml:8:13:", "fabrics.compute.switch", "more than a core"},
      {"duplicate_key", "name: a\nname: b\n" + kValidSpec.substr(kValidSpec.find('\n') + 1),
       "test.yaml:2:1:", "name", "field given twice"},
      {"price_for_unknown_part", replaced("{dgx-h100: 300000 USD}", "{dgx-h900: 300000 USD}"),
       "test.yaml:17:22:", "costs.prices.dgx-h900", "unknown part"},
      {"negative_price", replaced("300000 USD", "-5 USD"), "test.yaml:17:22:", "costs.prices.dgx-h100",
       "cannot be negative"},
      {"scalable_unit_on_leaf_spine",
       replaced("topology: rail_optimized", "topology: leaf_spine\n    scalable_unit: 32"),
       "test.yaml:8:20:", "fabrics.compute.scalable_unit", "apply to rail_optimized"},
      {"nic_slower_than_fabric",
       testing::replaced(replaced("system: dgx-h100", "system: pcie-8gpu-l40s"),
                         "switch: qm9700\n    link_speed: 400 Gb/s",
                         "switch: sn5600\n    link_speed: 800 Gb/s"),
       "test.yaml:9:17:", "fabrics.compute.link_speed", "slower than the fabric's 800 Gb/s"},
      {"single_tier_too_small",
       testing::replaced(replaced("count: 16", "count: 64"), "oversubscription: \"1:1\"",
                         "oversubscription: \"1:1\"\n    max_tiers: 1"),
       "test.yaml:11:16:", "fabrics.compute.max_tiers", "max_tiers is 1"},
      {"plain_ratio_below_one", replaced("\"1:1\"", "0.5"),
       "test.yaml:10:23:", "fabrics.compute.oversubscription", "wastes ports"},
      {"not_a_mapping", "- just\n- a list\n", "test.yaml:1:1:", "", "a cluster spec is a mapping"},
      {"empty_file", "", "test.yaml", "", "a cluster spec is a mapping"},
      {"appliance_slower_than_fabric",
       testing::replaced(replaced("system: dgx-h100", "system: dgx-b300"),
                         "switch: qm9700\n    link_speed: 400 Gb/s\n    oversubscription: \"1:1\"",
                         "switch: q3400\n    link_speed: 800 Gb/s\n    oversubscription: \"1:1\"\n"
                         "    appliances: [{appliance: ufm-3.1, count: 2}]"),
       "test.yaml:11:30:", "fabrics.compute.appliances[0].appliance",
       "ports of appliance 'ufm-3.1' run at most 400 Gb/s, slower than the fabric's 800 Gb/s"},
      {"spine_leaf_groups_without_racks",
       replaced("oversubscription: \"1:1\"", "oversubscription: \"1:1\"\n    spine_leaf_groups: true"),
       "test.yaml:11:24:", "fabrics.compute.spine_leaf_groups",
       "give each rack one leaf per rail, but 'dgx-h100' is not a rack-scale system"},
      {"spine_leaf_groups_on_leaf_spine",
       testing::replaced(replaced("topology: rail_optimized", "topology: leaf_spine"),
                         "oversubscription: \"1:1\"",
                         "oversubscription: \"1:1\"\n    spine_leaf_groups: true"),
       "test.yaml:11:24:", "fabrics.compute.spine_leaf_groups", "spine-leaf groups apply to rail_optimized"},
      {"spine_leaf_groups_not_a_boolean",
       replaced("oversubscription: \"1:1\"", "oversubscription: \"1:1\"\n    spine_leaf_groups: yes"),
       "test.yaml:11:24:", "fabrics.compute.spine_leaf_groups", "expected true or false, got 'yes'"},
      {"appliance_without_ports",
       replaced("oversubscription: \"1:1\"",
                "oversubscription: \"1:1\"\n    appliances: [{appliance: ufm-3.1, count: 0}]"),
       "test.yaml:11:46:", "fabrics.compute.appliances[0].count", "greater than zero"},
  };
}

class BadSpecs : public ::testing::TestWithParam<BadSpec> {};

TEST_P(BadSpecs, NameFileLineColumnFieldAndWhatWasExpected) {
  const BadSpec& bad = GetParam();
  const std::string errors = plan_errors(bad.yaml);
  ASSERT_FALSE(errors.empty()) << "spec was accepted:\n" << bad.yaml;
  EXPECT_EQ(errors.rfind(bad.location, 0), 0u) << errors;
  if (!bad.field.empty()) {
    EXPECT_NE(errors.find(" " + bad.field + ": "), std::string::npos) << errors;
  }
  EXPECT_NE(errors.find(bad.message), std::string::npos) << errors;
}

INSTANTIATE_TEST_SUITE_P(ClusterSpec, BadSpecs, ::testing::ValuesIn(bad_specs()),
                         [](const auto& info) { return info.param.name; });

// A sized storage appliance is held to the rule of a listed one: its ports may run slower than the fabric
// only where the fabric's switch has ports at their speed. A test appliance with 100 Gb/s storage ports on a
// 400 Gb/s QM9700 fabric (QM9700 has 400 and 200 Gb/s ports) is refused at storage.appliance; the bundled DDN
// AI400X2's 200 Gb/s ports on the same fabric are taken at their own speed.
TEST(ClusterSpec, AStorageApplianceNeedsAPortSpeedTheFabricsSwitchHas) {
  const auto folder =
      std::filesystem::temp_directory_path() /
      ("gputwin-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "storage.yaml") << R"yaml(appliances:
  - {id: test-nas-100g, name: "100G storage (test part)", source: test, confidence: unverified,
     rack_units: 2 U, power_max: 1 kW,
     nics: {storage: {ports: 4, speed: 100 Gb/s, ports_per_cage: 1, cage: QSFP28}},
     storage: {filesystem: test, read_bandwidth: 40 GB/s, write_bandwidth: 20 GB/s, usable_capacity: 100 TB}}
)yaml";
  const auto catalog = Catalog::load({testing::source_path("data/catalog"), folder.string()});
  ASSERT_TRUE(catalog.ok()) << catalog.error_text();
  const auto with_storage = [](const std::string& appliance) {
    return testing::replaced(
        replaced("oversubscription: \"1:1\"\n",
                 "oversubscription: \"1:1\"\n  storage: {switch: qm9700, link_speed: 400 "
                 "Gb/s}\n"),
        "costs:", "storage: {appliance: " + appliance + ", dataset_read: 80 GB/s}\ncosts:");
  };
  const std::string refused = plan_errors(with_storage("test-nas-100g"), catalog.value());
  EXPECT_NE(
      refused.find(" storage.appliance: the storage ports of appliance 'test-nas-100g' run at most 100 "
                   "Gb/s, slower than the fabric's 400 Gb/s, and switch 'qm9700' has no ports at 100 Gb/s"),
      std::string::npos)
      << refused;
  EXPECT_EQ(plan_errors(with_storage("ddn-ai400x2"), catalog.value()), "");
}

TEST(ClusterSpec, ValidSpecParsesWithDefaultsFromTheCatalog) {
  const auto spec = parse_cluster_spec(kValidSpec, "test.yaml", bundled_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  const ClusterSpec& value = spec.value();
  EXPECT_EQ(value.node_count, 16);
  EXPECT_EQ(value.compute.topology, FabricTopology::rail_optimized);
  EXPECT_DOUBLE_EQ(in_gigabits_per_second(value.compute.link_speed), 400.0);
  const auto& defaults = bundled_catalog().get<FacilityDefaults>("default");
  EXPECT_DOUBLE_EQ(value.facility.pue, defaults.pue);
  EXPECT_EQ(value.facility.rack_units, defaults.rack_units);
  EXPECT_DOUBLE_EQ(in_usd(value.cost.prices.at("dgx-h100")), 300000.0);
  EXPECT_FALSE(value.storage.present);
}

TEST(ClusterSpec, TargetGpuCountRoundsUpToWholeNodes) {
  const auto spec = parse_cluster_spec(replaced("count: 16", "gpus: 1001"), "test.yaml", bundled_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  EXPECT_EQ(spec.value().node_count, 126);  // 1001 / 8 GPUs per DGX H100, rounded up
  EXPECT_EQ(spec.value().target_gpus, 1001);
}

TEST(ClusterSpec, WorkloadLeavesTheNodeCountToSizing) {
  const auto spec = parse_cluster_spec(
      replaced("count: 16", "workload: {model: llama3-8b, tokens: 1.5T, days: 20, sequence: 4096}"),
      "test.yaml", bundled_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  ASSERT_TRUE(spec.value().workload.has_value());
  const WorkloadTarget& workload = *spec.value().workload;
  EXPECT_EQ(workload.model, "llama3-8b");
  EXPECT_DOUBLE_EQ(workload.tokens, 1.5e12);
  EXPECT_DOUBLE_EQ(workload.days, 20);
  EXPECT_EQ(workload.sequence, 4096);
  EXPECT_EQ(workload.global_batch, 0);  // the sizing default
  EXPECT_EQ(workload.precision, "bf16");
  EXPECT_EQ(spec.value().node_count, 0);
  // Designing before sizing is refused, at the workload field.
  const auto cluster = design_cluster(spec.value(), bundled_catalog());
  ASSERT_FALSE(cluster.ok());
  EXPECT_NE(cluster.error_text().find("test.yaml:4:13: nodes.workload: the node count is not sized"),
            std::string::npos)
      << cluster.error_text();
}

TEST(ClusterSpec, MissingFileIsAnErrorNamingIt) {
  const auto spec = load_cluster_spec("/nonexistent/spec.yaml", bundled_catalog());
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error_text().find("/nonexistent/spec.yaml"), std::string::npos);
  EXPECT_NE(spec.error_text().find("cannot open"), std::string::npos);
}

// Nothing crashes on any input: thousands of byte-level mutations of a valid spec each give a design or an
// error that names the file.
TEST(ClusterSpec, MutatedSpecsNeverCrash) {
  std::mt19937 random(20261122);
  const std::string alphabet = "abc019:-[]{}\"'#&*!|>\n \t.,%@";
  int rejected = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string text = kValidSpec;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0:
          text[at] = alphabet[random() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + random() % 8);
          break;
        default:
          text.insert(at, 1, alphabet[random() % alphabet.size()]);
          break;
      }
    }
    const std::string errors = plan_errors(text);
    if (!errors.empty()) {
      ++rejected;
      EXPECT_EQ(errors.rfind("test.yaml", 0), 0u) << errors;
    }
  }
  EXPECT_GT(rejected, 500);  // most mutations break something, and each break is reported, not crashed on
}

// The list form of `nodes:`: node groups of different systems, each with a count.
const std::string kGroupsSpec = R"(name: mixed
nodes:
  - {system: dgx-h100, count: 16}
  - {system: gb200-nvl72, count: 2, scalable_unit: 36}
fabrics:
  compute:
    topology: rail_optimized
    switch: qm9700
    link_speed: 400 Gb/s
    scalable_unit: 32
facility:
  rack_power_limit: 150 kW
  max_nodes_per_rack: 4
  pdu: px3-5878i2r
  cooling: direct-liquid
  liquid_cooling: {cdu: in-row-cdu-600kw, coolant: water, water_supply_temperature_c: 30, water_delta_t_c: 10}
)";

std::string groups_replaced(const std::string& from, const std::string& to) {
  return testing::replaced(kGroupsSpec, from, to);
}

TEST(ClusterSpecGroups, ListFormHoldsEachGroupInOrder) {
  const auto spec = parse_cluster_spec(kGroupsSpec, "test.yaml", bundled_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  const ClusterSpec& value = spec.value();
  ASSERT_EQ(value.node_groups.size(), 2u);
  EXPECT_TRUE(value.several_groups());
  const NodeGroupSpec& h100 = value.node_groups[0];
  EXPECT_EQ(h100.system, "dgx-h100");
  EXPECT_EQ(h100.node_system, "dgx-h100");
  EXPECT_TRUE(h100.rack_system.empty());
  EXPECT_EQ(h100.count, 16);
  EXPECT_EQ(h100.node_count, 16);
  EXPECT_EQ(h100.compute_scalable_unit_nodes, 32);  // fabrics.compute's
  EXPECT_EQ(h100.field, "nodes[0]");
  EXPECT_EQ(h100.where.line, 3);
  const NodeGroupSpec& nvl72 = value.node_groups[1];
  EXPECT_EQ(nvl72.system, "gb200-nvl72");
  EXPECT_EQ(nvl72.rack_system, "gb200-nvl72");
  EXPECT_EQ(nvl72.node_system, bundled_catalog().get<RackSystem>("gb200-nvl72").compute_tray);
  EXPECT_EQ(nvl72.count, 2);
  EXPECT_EQ(nvl72.node_count, 2 * bundled_catalog().get<RackSystem>("gb200-nvl72").compute_trays);
  EXPECT_EQ(nvl72.compute_scalable_unit_nodes, 36);  // its own
  // The one-group readers see the first group; the node count is the sum.
  EXPECT_EQ(value.node_system, "dgx-h100");
  EXPECT_EQ(value.node_count, h100.node_count + nvl72.node_count);
  EXPECT_EQ(value.groups().size(), 2u);
  // No appliances anywhere: none on either island.
  EXPECT_TRUE(h100.compute_appliances.empty());
  EXPECT_TRUE(nvl72.compute_appliances.empty());
}

// fabrics.compute.appliances reach every group's island; a group's own `appliances` replace them on its own.
TEST(ClusterSpecGroups, AppliancesPerGroup) {
  std::string text = groups_replaced(
      "    scalable_unit: 32\n", "    scalable_unit: 32\n    appliances: [{appliance: ufm-3.1, count: 4}]\n");
  text = testing::replaced(text, "scalable_unit: 36}",
                           "scalable_unit: 36, appliances: [{appliance: ufm-3.1, count: 2}]}");
  const auto spec = parse_cluster_spec(text, "test.yaml", bundled_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  const auto& groups = spec.value().node_groups;
  ASSERT_EQ(groups.size(), 2u);
  ASSERT_EQ(groups[0].compute_appliances.size(), 1u);
  EXPECT_EQ(groups[0].compute_appliances[0].appliance, "ufm-3.1");
  EXPECT_EQ(groups[0].compute_appliances[0].count, 4);
  ASSERT_EQ(groups[1].compute_appliances.size(), 1u);
  EXPECT_EQ(groups[1].compute_appliances[0].count, 2);
}

TEST(ClusterSpecGroups, MapFormIsOneGroup) {
  const auto spec = parse_cluster_spec(kValidSpec, "test.yaml", bundled_catalog());
  ASSERT_TRUE(spec.ok()) << spec.error_text();
  EXPECT_TRUE(spec.value().node_groups.empty());
  EXPECT_FALSE(spec.value().several_groups());
  const auto groups = spec.value().groups();
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].system, "dgx-h100");
  EXPECT_EQ(groups[0].node_count, 16);
}

std::vector<BadSpec> bad_group_specs() {
  return {
      {"group_unknown_system", groups_replaced("system: dgx-h100,", "system: dgx-h900,"),
       "test.yaml:3:14:", "nodes[0].system", "unknown system 'dgx-h900'"},
      {"group_tray_instead_of_rack", groups_replaced("system: gb200-nvl72,", "system: gb200-nvl72-tray,"),
       "test.yaml:4:14:", "nodes[1].system", "name the rack-scale system that holds it"},
      {"group_zero_count", groups_replaced("count: 16", "count: 0"), "test.yaml:3:31:", "nodes[0].count",
       "greater than zero"},
      {"group_negative_racks", groups_replaced("count: 2,", "count: -2,"),
       "test.yaml:4:34:", "nodes[1].count", "greater than zero"},
      {"group_without_count", groups_replaced("{system: dgx-h100, count: 16}", "{system: dgx-h100}"),
       "test.yaml:3:5:", "nodes[0]", "give 'count'"},
      {"group_gpus", groups_replaced("count: 16", "gpus: 128"), "test.yaml:3:30:", "nodes[0].gpus",
       "sizes one group of nodes"},
      {"group_workload", groups_replaced("count: 16", "workload: {model: llama3-8b, tokens: 1T, days: 20}"),
       "test.yaml:3:34:", "nodes[0].workload", "sizes one group of nodes"},
      {"group_choose", groups_replaced("{system: dgx-h100, count: 16}", "{choose: [dgx-h100, dgx-b200]}"),
       "test.yaml:3:14:", "nodes[0].choose", "sizes one group of nodes"},
      {"group_listed_twice",
       groups_replaced("system: gb200-nvl72, count: 2, scalable_unit: 36", "system: dgx-h100, count: 2"),
       "test.yaml:4:14:", "nodes[1].system", "listed twice"},
      {"group_unit_cuts_rack", groups_replaced("scalable_unit: 36}", "scalable_unit: 32}"),
       "test.yaml:4:52:", "nodes[1].scalable_unit", "cuts through gb200-nvl72 racks"},
      {"group_inherited_unit_cuts_rack", groups_replaced(", scalable_unit: 36}", "}"),
       "test.yaml:10:20:", "fabrics.compute.scalable_unit", "for node group 'gb200-nvl72' (nodes[1])"},
      {"group_with_power_budget",
       groups_replaced("  pdu: px3-5878i2r\n", "  pdu: px3-5878i2r\n  power_budget: 20 MW\n"),
       "test.yaml:15:17:", "facility.power_budget", "sizes one group of nodes"},
      {"group_appliance_without_compute_port",
       groups_replaced("scalable_unit: 36}",
                       "scalable_unit: 36, appliances: [{appliance: sn2201, count: 1}]}"),
       "test.yaml:4:81:", "nodes[1].appliances[0].appliance", "expected a appliance"},
      {"group_not_a_mapping", groups_replaced("{system: dgx-h100, count: 16}", "dgx-h100"),
       "test.yaml:3:5:", "nodes[0]", "a node group is a mapping"},
      {"empty_group_list",
       groups_replaced(
           "  - {system: dgx-h100, count: 16}\n  - {system: gb200-nvl72, count: 2, scalable_unit: 36}",
           "  []"),
       "test.yaml:3:3:", "nodes", "at least one node group"},
  };
}

class BadGroupSpecs : public ::testing::TestWithParam<BadSpec> {};

TEST_P(BadGroupSpecs, NameTheEntryLineColumnAndField) {
  const BadSpec& bad = GetParam();
  const auto spec = parse_cluster_spec(bad.yaml, "test.yaml", bundled_catalog());
  ASSERT_FALSE(spec.ok()) << "spec was accepted:\n" << bad.yaml;
  const std::string errors = spec.error_text();
  EXPECT_EQ(errors.rfind(bad.location, 0), 0u) << errors;
  EXPECT_NE(errors.find(" " + bad.field + ": "), std::string::npos) << errors;
  EXPECT_NE(errors.find(bad.message), std::string::npos) << errors;
}

INSTANTIATE_TEST_SUITE_P(ClusterSpecGroups, BadGroupSpecs, ::testing::ValuesIn(bad_group_specs()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace gputwin
