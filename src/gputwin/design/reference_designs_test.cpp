// The fabric rules must reproduce NVIDIA's published DGX SuperPOD counts exactly, from the example specs and
// from generated specs for the larger published tables (data/reference/*.yaml holds the figures with their
// sources).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::plan_file;
using testing::plan_text;
using testing::rail_spec;
using testing::source_path;

const Fabric& compute(const Cluster& cluster) {
  static const Fabric empty;
  const Fabric* fabric = cluster.fabric(NetworkRole::compute);
  return fabric != nullptr ? *fabric : empty;
}

YAML::Node reference(const std::string& file) {
  return YAML::LoadFile(source_path("data/reference/" + file));
}

TEST(ReferenceDesigns, SuperPodTable4OneToFourScalableUnits) {
  const YAML::Node rows = reference("superpod-h100.yaml")["table_4_compute_fabric"]["rows"];
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    const int su = row["su"].as<int>();
    SCOPED_TRACE("SU " + std::to_string(su));
    const Cluster cluster = plan_file("examples/dgx-h100-superpod-" + std::to_string(su) + "su.yaml");
    const Fabric& fabric = compute(cluster);
    EXPECT_EQ(cluster.nodes, row["nodes"].as<int>());
    EXPECT_EQ(cluster.gpus, row["gpus"].as<int>());
    EXPECT_EQ(fabric.scalable_units, su);
    EXPECT_EQ(fabric.switches_in(Tier::leaf), row["leaf_switches"].as<int>());
    EXPECT_EQ(fabric.switches_in(Tier::spine), row["spine_switches"].as<int>());
    EXPECT_EQ(fabric.switches_in(Tier::core), 0);
    EXPECT_EQ(fabric.links_between(Tier::endpoint, Tier::leaf), row["cables_node_and_ufm_leaf"].as<int>());
    EXPECT_EQ(fabric.links_between(Tier::leaf, Tier::spine), row["cables_leaf_spine"].as<int>());
  }
}

TEST(ReferenceDesigns, SuperPodFourScalableUnitComponents) {
  const YAML::Node expected = reference("superpod-h100.yaml")["four_su_components"];
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const Fabric& fabric = compute(cluster);
  EXPECT_EQ(fabric.switches_in(Tier::leaf) + fabric.switches_in(Tier::spine),
            expected["compute_qm9700_switches"].as<int>());
  EXPECT_EQ(fabric.transceivers_at("switch"), expected["compute_switch_twin_port_transceivers"].as<int>());
  EXPECT_EQ(fabric.transceivers_at("node"), expected["compute_node_transceivers"].as<int>());
  EXPECT_EQ(fabric.transceivers_at("appliance"), expected["compute_ufm_transceivers"].as<int>());
  EXPECT_EQ(cluster.racks_of(RackKind::compute), expected["compute_racks"].as<int>());
  const int per_rack = expected["dgx_per_compute_rack"].as<int>();
  int full_racks = 0;
  for (const auto& rack : cluster.racks) {
    if (rack.kind != RackKind::compute) continue;
    const auto nodes = std::count_if(rack.devices.begin(), rack.devices.end(),
                                     [&](int d) { return cluster.devices[d].kind == DeviceKind::node; });
    EXPECT_LE(nodes, per_rack) << rack.name;
    if (nodes == per_rack) ++full_racks;
    EXPECT_EQ(rack.pdus, expected["compute_rack_pdus"].as<int>()) << rack.name;
  }
  EXPECT_EQ(full_racks, 31);  // 127 nodes: 31 racks of 4 and one of 3
}

TEST(ReferenceDesigns, SuperPodIdealisedRowsWithoutUfm) {
  const YAML::Node tables = reference("superpod-larger.yaml")["tables"];
  const YAML::Node rows = tables[0]["rows"];  // DGX H100 RA Table 3
  for (const auto& row : rows) {
    const int su = row["su"].as<int>();
    if (su > 8) continue;
    SCOPED_TRACE("SU " + std::to_string(su));
    const Cluster cluster = plan_file("examples/dgx-h100-superpod-" + std::to_string(su) + "su-ideal.yaml");
    const Fabric& fabric = compute(cluster);
    EXPECT_EQ(cluster.nodes, row["nodes"].as<int>());
    EXPECT_EQ(fabric.switches_in(Tier::leaf), row["leaf_switches"].as<int>());
    EXPECT_EQ(fabric.switches_in(Tier::spine), row["spine_switches"].as<int>());
    EXPECT_EQ(fabric.links_between(Tier::endpoint, Tier::leaf), row["cables_node_leaf"].as<int>());
    EXPECT_EQ(fabric.links_between(Tier::leaf, Tier::spine), row["cables_leaf_spine"].as<int>());
    EXPECT_EQ(fabric.ports_total, fabric.ports_used) << "a full idealised SuperPOD uses every switch port";
  }
}

// Every published larger table, rebuilt from a generated spec of the same system, switch and SU size.
class LargerPublishedTables : public ::testing::TestWithParam<int> {};

TEST_P(LargerPublishedTables, EveryRowComesOutExactly) {
  const YAML::Node table = reference("superpod-larger.yaml")["tables"][GetParam()];
  const std::string id = table["id"].as<std::string>();
  const bool xdr = id.find("xdr") != std::string::npos;
  const Catalog catalog = testing::catalog_with(testing::xdr_test_parts());
  for (const auto& row : table["rows"]) {
    const int su = row["su"].as<int>();
    SCOPED_TRACE(id + " SU " + std::to_string(su));
    testing::RailSpec spec;
    spec.nodes = row["nodes"].as<int>();
    spec.scalable_unit = table["su_size_nodes"].as<int>();
    if (xdr) {
      spec.system = "test-dgx-b300-xdr";
      spec.switch_id = "q3400";
      spec.link_speed = "800 Gb/s";
    }
    const Cluster cluster = plan_text(rail_spec(spec), catalog);
    const Fabric& fabric = compute(cluster);
    EXPECT_EQ(fabric.switches_in(Tier::leaf), row["leaf_switches"].as<int>());
    EXPECT_EQ(fabric.switches_in(Tier::spine), row["spine_switches"].as<int>());
    EXPECT_EQ(fabric.links_between(Tier::endpoint, Tier::leaf), row["cables_node_leaf"].as<int>());
    EXPECT_EQ(fabric.links_between(Tier::leaf, Tier::spine), row["cables_leaf_spine"].as<int>());
    if (row["core_switches"].IsNull()) {
      EXPECT_EQ(fabric.switches_in(Tier::core), 0);
      EXPECT_EQ(fabric.tiers, 2);
    } else {
      EXPECT_EQ(fabric.switches_in(Tier::core), row["core_switches"].as<int>());
      EXPECT_EQ(fabric.links_between(Tier::spine, Tier::core), row["cables_spine_core"].as<int>());
      EXPECT_EQ(fabric.tiers, 3);
    }
  }
}

// Tables: 0 = DGX H100 Table 3, 1 = DGX B200, 4 = DGX B300 XDR (2 has no rows; 3 is a twin-plane Ethernet
// design).
INSTANTIATE_TEST_SUITE_P(SuperPod, LargerPublishedTables, ::testing::Values(0, 1, 4));

}  // namespace
}  // namespace gputwin
