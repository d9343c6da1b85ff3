// NVIDIA's DGX SuperPOD with DGX GB200 NVL72 racks, rebuilt by the design engine from the catalog's compute
// trays and compared with the figures of data/reference/superpod-gb200.yaml (the DGX B300 tables are in
// reference_designs_test.cpp). A figure the model cannot reproduce yet carries an `expected_difference` in
// the data; its test checks that the difference is still there, so the data entry is removed when the model
// learns the rule. docs/reference-designs.md lists both.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::plan_text;
using testing::source_path;

YAML::Node reference(const std::string& file) {
  return YAML::LoadFile(source_path("data/reference/" + file));
}

// The `reproduction` entry of a reference file for one figure; fails the test when it is missing.
YAML::Node reproduction(const YAML::Node& file, const std::string& figure) {
  for (const auto& entry : file["reproduction"]) {
    if (entry["figure"].as<std::string>() == figure) return entry;
  }
  ADD_FAILURE() << "no reproduction entry for '" << figure << "'";
  return YAML::Node();
}

int per_su(const YAML::Node& file, const std::string& figure) {
  const YAML::Node entry = reproduction(file, figure);
  return entry ? entry["value"].as<int>() : 0;
}

const Fabric& compute(const Cluster& cluster) {
  static const Fabric empty;
  const Fabric* fabric = cluster.fabric(NetworkRole::compute);
  return fabric != nullptr ? *fabric : empty;
}

// Branch `rack` makes the GB200 NVL72 a rack-scale system (data/catalog/rack-systems.yaml): a spec then
// counts racks, and naming the tray alone or capping nodes per rack is an error. Before it, the tray is the
// node and 18 of them fill a rack. (The rack-system form was written from that branch's docs; not yet run
// here.)
bool catalog_has_rack_systems() {
  return std::filesystem::exists(source_path("data/catalog/rack-systems.yaml"));
}

// A rail-optimized fabric whose scalable unit is one rack's 18 trays gives each rail of each rack its own
// leaf, as the RA cables it ("8 leaf switches (one for each compute rack)" per rail); one published SU is
// then 8 of gputwin's scalable units. The rack limit is the direct-liquid class's (1.2 MW per 8-rack SU).
std::string gb200_spec(const YAML::Node& gb200, int racks) {
  const int trays_per_rack = gb200["rack"]["compute_trays"].as<int>();
  const bool rack_system = catalog_has_rack_systems();
  std::ostringstream yaml;
  yaml << "name: gb200-superpod\n";
  if (rack_system) {
    yaml << "nodes: {system: gb200-nvl72, count: " << racks << "}\n";
  } else {
    yaml << "nodes: {system: gb200-nvl72-tray, count: " << trays_per_rack * racks << "}\n";
  }
  yaml << "fabrics:\n"
       << "  compute:\n"
       << "    topology: rail_optimized\n"
       << "    switch: qm9700\n"
       << "    link_speed: " << gb200["compute_fabric"]["link_speed_gbit_s"].as<int>() << " Gb/s\n"
       << "    scalable_unit: " << trays_per_rack << "\n"
       << "    oversubscription: \"1:1\"\n"
       << "facility:\n"
       << "  rack_power_limit: 150 kW\n";
  if (!rack_system) yaml << "  max_nodes_per_rack: " << trays_per_rack << "\n";
  yaml << "  pdu: px3-5878i2r\n"
       << "  cooling: direct-liquid\n"
       << "  layout: {racks_per_row: 24}\n"
       << "cabling: {media: [multimode, singlemode]}\n";
  return yaml.str();
}

// SU counts to rebuild: 1, 2, 4, ... up to the largest the RA's spine-leaf-group design covers.
std::vector<int> gb200_su_counts(const YAML::Node& gb200) {
  std::vector<int> counts;
  const int max_su = gb200["compute_fabric"]["scale_out_design"]["max_su"].as<int>();
  for (int su = 1; su <= max_su; su *= 2) counts.push_back(su);
  return counts;
}

TEST(ReferenceDesigns, Gb200DerivedPerSuFiguresFollowFromTheReadOnes) {
  const YAML::Node gb200 = reference("superpod-gb200.yaml");
  const YAML::Node su = gb200["scalable_unit"];
  const YAML::Node rack = gb200["rack"];
  const YAML::Node slg = gb200["compute_fabric"]["scale_out_design"];
  EXPECT_EQ(per_su(gb200, "racks per SU"), su["racks_per_su"].as<int>());
  EXPECT_EQ(per_su(gb200, "GPUs per SU"), su["gpus_per_su"].as<int>());
  EXPECT_EQ(per_su(gb200, "GPUs per SU"), su["racks_per_su"].as<int>() * rack["gpus"].as<int>());
  EXPECT_EQ(per_su(gb200, "compute trays per SU"),
            su["racks_per_su"].as<int>() * rack["compute_trays"].as<int>());
  EXPECT_EQ(rack["gpus_per_compute_tray"].as<int>() * rack["compute_trays"].as<int>(),
            rack["gpus"].as<int>());
  EXPECT_EQ(gb200["compute_fabric"]["rails"].as<int>(), rack["gpus_per_compute_tray"].as<int>());
  EXPECT_EQ(slg["slgs_per_su"].as<int>(), gb200["compute_fabric"]["rails"].as<int>());
  EXPECT_EQ(slg["leaves_per_slg"].as<int>(), su["racks_per_su"].as<int>());
  EXPECT_EQ(per_su(gb200, "leaf switches per SU"),
            slg["slgs_per_su"].as<int>() * slg["leaves_per_slg"].as<int>());
  EXPECT_EQ(per_su(gb200, "spine switches per SU"),
            slg["slgs_per_su"].as<int>() * slg["spines_per_slg"].as<int>());
  EXPECT_EQ(
      per_su(gb200, "node-leaf cables per SU"),
      per_su(gb200, "compute trays per SU") * gb200["compute_fabric"]["compute_ports_per_tray"].as<int>());
  EXPECT_EQ(su["stated_scale"]["gpus"].as<int>(), slg["max_su"].as<int>() * su["gpus_per_su"].as<int>());
  EXPECT_EQ(su["stated_scale"]["racks"].as<int>(), slg["max_su"].as<int>() * su["racks_per_su"].as<int>());
}

// The catalog's DGX GB200 compute tray, which the rebuilt SuperPOD is made of, agrees with the RA.
TEST(ReferenceDesigns, Gb200CatalogTrayMatchesTheReferenceDesign) {
  const YAML::Node gb200 = reference("superpod-gb200.yaml");
  const System* tray = testing::bundled_catalog().find<System>("gb200-nvl72-tray");
  ASSERT_NE(tray, nullptr);
  EXPECT_EQ(tray->accelerators, gb200["rack"]["gpus_per_compute_tray"].as<int>());
  EXPECT_EQ(tray->scale_up_domain, gb200["rack"]["nvlink_domain_gpus"].as<int>());
  ASSERT_EQ(tray->nics.count(NetworkRole::compute), 1u);
  EXPECT_EQ(tray->nics.at(NetworkRole::compute).ports,
            gb200["compute_fabric"]["compute_ports_per_tray"].as<int>());
}

TEST(ReferenceDesigns, Gb200ComputeFabricPerScalableUnit) {
  const YAML::Node gb200 = reference("superpod-gb200.yaml");
  const Catalog& catalog = testing::bundled_catalog();
  for (const int su : gb200_su_counts(gb200)) {
    SCOPED_TRACE("GB200 SU " + std::to_string(su));
    const Cluster cluster = plan_text(gb200_spec(gb200, su * per_su(gb200, "racks per SU")), catalog);
    const Fabric& fabric = compute(cluster);
    EXPECT_EQ(cluster.gpus, per_su(gb200, "GPUs per SU") * su);
    EXPECT_EQ(cluster.racks_of(RackKind::compute), per_su(gb200, "racks per SU") * su);
    EXPECT_EQ(fabric.switches_in(Tier::leaf), per_su(gb200, "leaf switches per SU") * su);
    EXPECT_EQ(fabric.links_between(Tier::endpoint, Tier::leaf),
              per_su(gb200, "node-leaf cables per SU") * su);
  }
}

// The RA keeps one spine-leaf group (8 leaves, 6 spines) per rail; gputwin cables every leaf to every spine
// of its pod. Until the model has rail-isolated spine groups, the spine count must differ from the RA's, as
// the data says.
TEST(ReferenceDesigns, Gb200SpinesDifferFromTheSpineLeafGroupDesignAsRecorded) {
  const YAML::Node gb200 = reference("superpod-gb200.yaml");
  const YAML::Node spines = reproduction(gb200, "spine switches per SU");
  ASSERT_TRUE(spines["expected_difference"]) << "the model now reproduces the spines: assert them exactly";
  const Catalog& catalog = testing::bundled_catalog();
  for (const int su : gb200_su_counts(gb200)) {
    SCOPED_TRACE("GB200 SU " + std::to_string(su));
    const Cluster cluster = plan_text(gb200_spec(gb200, su * per_su(gb200, "racks per SU")), catalog);
    const Fabric& fabric = compute(cluster);
    const int published = spines["value"].as<int>() * su;
    EXPECT_NE(fabric.switches_in(Tier::spine), published)
        << "gputwin now builds the RA's " << published << " spines; remove expected_difference from the data";
    EXPECT_GT(fabric.switches_in(Tier::spine), 0);
  }
}

// The RA builds a partial SU's full set of leaves; gputwin, whose unit here is one rack, builds only the
// leaves of the racks present. Held as an expected difference until the model has a unit of whole racks.
TEST(ReferenceDesigns, Gb200PartialSuLeavesDifferAsRecorded) {
  const YAML::Node gb200 = reference("superpod-gb200.yaml");
  const YAML::Node partial = reproduction(gb200, "leaf switches for a partial SU");
  ASSERT_TRUE(partial["expected_difference"])
      << "the model now builds a partial SU's leaves: assert them exactly";
  const int racks = partial["partial_su_racks"].as<int>();
  ASSERT_LT(racks, per_su(gb200, "racks per SU"));
  const Cluster cluster = plan_text(gb200_spec(gb200, racks), testing::bundled_catalog());
  const Fabric& fabric = compute(cluster);
  EXPECT_EQ(cluster.racks_of(RackKind::compute), racks);
  EXPECT_NE(fabric.switches_in(Tier::leaf), partial["value"].as<int>())
      << "gputwin now builds the full SU's leaves; remove expected_difference from the data";
  EXPECT_GT(fabric.switches_in(Tier::leaf), 0);
}

// The RA's 1.2 MW per SU is not split; the model has the racks' trays and NVLink switch trays and the compute
// fabric, not power-shelf losses, storage, management or the in-band fabric, so one SU's IT power must stay
// under the published figure.
TEST(ReferenceDesigns, Gb200ScalableUnitPowerBelowThePublishedTdpAsRecorded) {
  const YAML::Node gb200 = reference("superpod-gb200.yaml");
  const YAML::Node tdp = reproduction(gb200, "SU thermal design power (kW)");
  ASSERT_TRUE(tdp["expected_difference"]) << "the model now accounts for the whole SU: assert the TDP";
  EXPECT_EQ(tdp["value"].as<double>(),
            gb200["scalable_unit"]["su_thermal_design_power_mw"].as<double>() * 1000);
  const Cluster cluster =
      plan_text(gb200_spec(gb200, per_su(gb200, "racks per SU")), testing::bundled_catalog());
  const double it_max_kw = in_kilowatts(cluster.power.it_max);
  EXPECT_LT(it_max_kw, tdp["value"].as<double>())
      << "one SU now draws the RA's TDP or more: revisit the data";
  EXPECT_GT(it_max_kw, 0.0);
}

}  // namespace
}  // namespace gputwin
