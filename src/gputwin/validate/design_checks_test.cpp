// The measured fleet against the design (issue 13 item 3): GPU model, GPUs per node, GPU memory, node count.
#include <gtest/gtest.h>

#include <fstream>

#include "gputwin/design/design_test_support.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/design_inputs.hpp"
#include "gputwin/validate/pcie_links.hpp"
#include "gputwin/validate/text_values.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

DesignedFleet h100_design(int nodes) {
  DesignedFleet design;
  design.spec = "cluster.yaml";
  for (int n = 1; n <= nodes; ++n) design.node_names.push_back("node-" + std::to_string(n));
  design.gpus_per_node = 8;
  design.accelerator = "h100-sxm";
  design.accelerator_name = "H100 SXM 80GB";
  design.gpu_memory = gigabytes(80);
  design.reported_names = {"NVIDIA H100 80GB HBM3"};
  design.host_link = "PCIe Gen5 x16";
  design.pcie_lane_rates =
      load_pcie_lane_rates(std::string(GPUTWIN_SOURCE_DIR) + "/data/validate/pcie-links.yaml").value();
  return design;
}

FleetNode node_of(const std::string& name, const std::string& model, int gpus, double memory_mib = 81559) {
  FleetNode node;
  node.name = name;
  NodeFacts facts;
  facts.source = name + "/nvidia-smi.xml";
  for (int i = 0; i < gpus; ++i) {
    GpuFacts gpu;
    gpu.index = i;
    gpu.model = model;
    gpu.memory_total = bytes(memory_mib * 1048576);
    facts.gpus.push_back(gpu);
  }
  node.facts = facts;
  return node;
}

// A T4 pair seen only through its nccl-tests run, far below what an H100 node would reach.
FleetNode t4_run_node(const std::string& name) {
  FleetNode node;
  node.name = name;
  NcclTestsRun run;
  run.source = name + "/all_reduce_perf.log";
  run.collective = "all_reduce";
  run.devices = {"Tesla T4", "Tesla T4"};
  CollectiveRow row;
  row.line = 30;
  row.size = bytes(134217728);
  row.out_of_place.bus_bandwidth = gigabytes_per_second(5.73);
  row.out_of_place.algorithm_bandwidth = gigabytes_per_second(5.73);
  run.rows.push_back(row);
  node.nccl_runs.push_back(run);
  return node;
}

std::vector<std::string> described(const std::vector<Finding>& findings) {
  std::vector<std::string> lines;
  for (const Finding& finding : findings)
    lines.push_back(finding.node + " " + finding.rule + ": " + finding.message);
  return lines;
}

std::vector<Finding> against(const std::vector<FleetNode>& nodes, const DesignedFleet& design) {
  Fleet fleet;
  fleet.nodes = nodes;
  CheckOptions options;
  options.design = design;
  options.predict_busbw = [](std::string_view, int, std::int64_t) { return BusbwPrediction{233.65, ""}; };
  return evaluate_checks(fleet, testing::bundled_checks(), options);
}

TEST(DesignChecks, AFleetAsDesignedHasNoFinding) {
  EXPECT_TRUE(
      against({node_of("node01", "NVIDIA H100 80GB HBM3", 8), node_of("node02", "NVIDIA H100 80GB HBM3", 8)},
              h100_design(2))
          .empty());
}

TEST(DesignChecks, AWrongGpuModelIsReportedAsThatNotAsABandwidthShortfall) {
  const auto findings =
      against({node_of("node01", "NVIDIA H100 80GB HBM3", 8), t4_run_node("node02")}, h100_design(2));
  EXPECT_EQ(
      described(findings),
      (std::vector<std::string>{
          "node02 gpu-model-mismatch: 2 x Tesla T4 where the design has NVIDIA H100 80GB HBM3 (H100 SXM "
          "80GB)",
          "node02 nccl-busbw-not-compared: all_reduce: busbw not compared with the design (the node's GPUs "
          "are not the designed model, see gpu-model-mismatch)",
      }));
}

TEST(DesignChecks, GpuCountAndMemoryPerNode) {
  const auto findings = against(
      {node_of("node01", "NVIDIA H100 80GB HBM3", 4), node_of("node02", "NVIDIA H100 80GB HBM3", 8, 40960)},
      h100_design(2));
  EXPECT_EQ(
      described(findings),
      (std::vector<std::string>{
          "node01 gpu-count-mismatch: 4 GPUs where the design has 8 per node",
          "node02 gpu-memory-mismatch: GPU memory 42.9 GB where the design's H100 SXM 80GB has 80 GB (more "
          "than 10 % apart)",
      }));
}

TEST(DesignChecks, MissingNodesAreNamedAndExtraNodesFlagged) {
  const auto findings =
      against({node_of("node01", "NVIDIA H100 80GB HBM3", 8), node_of("node-3", "NVIDIA H100 80GB HBM3", 8),
               node_of("node09", "NVIDIA H100 80GB HBM3", 8)},
              h100_design(4));
  EXPECT_EQ(described(findings),
            (std::vector<std::string>{
                "- nodes-missing: 2 of the design's 4 nodes have no measured outputs: node-2, node-4",
                "node09 nodes-not-in-design: a measured node beyond the design's 4 nodes (node-1 to node-4)",
            }));
  EXPECT_EQ(findings[0].severity, Severity::critical);
  EXPECT_EQ(findings[0].where.file, "cluster.yaml");
}

TEST(DesignChecks, AnAcceleratorWithoutKnownNamesIsSaidNotGuessed) {
  DesignedFleet design = h100_design(1);
  design.reported_names.clear();
  const auto findings = against({t4_run_node("node01")}, design);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.back().rule, "design-not-compared");
  EXPECT_EQ(findings.back().severity, Severity::info);
}

// The designed H100 SXM's host link is PCIe Gen5 x16: 32 GT/s x 128/130 / 8 x 16 = 63.0 GB/s each way.
TEST(DesignChecks, AGpuWhoseLinkCannotReachTheDesignsIsReported) {
  FleetNode node = node_of("node01", "NVIDIA H100 80GB HBM3", 4);
  const std::vector<PcieLinkShape> maxima = {{5, 16}, {4, 16}, {5, 8}, {6, 16}};
  for (std::size_t i = 0; i < maxima.size(); ++i) {
    node.facts->gpus[i].pcie.generation_max = maxima[i].generation;
    node.facts->gpus[i].pcie.width_max = maxima[i].lanes;
  }
  DesignedFleet design = h100_design(1);
  design.gpus_per_node = 4;
  const auto findings = against({node}, design);
  EXPECT_EQ(described(findings),
            (std::vector<std::string>{
                "node01 pcie-link-below-design: PCIe link gen 4 x16 at most (31.5 GB/s each way) where the "
                "design's H100 SXM 80GB has PCIe Gen5 x16 (63.0 GB/s)",
                "node01 pcie-link-below-design: PCIe link gen 5 x8 at most (31.5 GB/s each way) where the "
                "design's H100 SXM 80GB has PCIe Gen5 x16 (63.0 GB/s)",
            }));
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].gpu.value_or(-1), 1);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[1].gpu.value_or(-1), 2);
}

TEST(DesignChecks, AHostLinkThatIsNotPcieIsSaidNotCompared) {
  DesignedFleet design = h100_design(1);
  design.host_link = "NVLink-C2C to Grace CPU";
  FleetNode node = node_of("node01", "NVIDIA H100 80GB HBM3", 8);
  node.facts->gpus[0].pcie.generation_max = 1;
  node.facts->gpus[0].pcie.width_max = 1;
  const auto findings = against({node}, design);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].rule, "design-not-compared");
  EXPECT_NE(findings[0].message.find("PCIe links not compared"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[0].message.find("'NVLink-C2C to Grace CPU'"), std::string::npos) << findings[0].message;
}

TEST(PcieLinks, RatesByGenerationAndWidthFromTheData) {
  const auto rates = load_pcie_lane_rates(std::string(GPUTWIN_SOURCE_DIR) + "/data/validate/pcie-links.yaml");
  ASSERT_TRUE(rates.ok()) << rates.error_text();
  // Worked by hand: GT/s x payload / line bits / 8 x lanes.
  EXPECT_DOUBLE_EQ(*pcie_link_gigabytes_per_second(rates.value(), {1, 1}), 0.25);
  EXPECT_DOUBLE_EQ(*pcie_link_gigabytes_per_second(rates.value(), {2, 16}), 8.0);
  EXPECT_DOUBLE_EQ(*pcie_link_gigabytes_per_second(rates.value(), {3, 8}), 8.0 * 128 / 130);
  EXPECT_DOUBLE_EQ(*pcie_link_gigabytes_per_second(rates.value(), {4, 16}), 32.0 * 128 / 130);
  EXPECT_DOUBLE_EQ(*pcie_link_gigabytes_per_second(rates.value(), {5, 16}), 64.0 * 128 / 130);
  EXPECT_DOUBLE_EQ(*pcie_link_gigabytes_per_second(rates.value(), {6, 16}), 128.0);
  EXPECT_FALSE(pcie_link_gigabytes_per_second(rates.value(), {7, 16}).has_value());
  EXPECT_FALSE(pcie_link_gigabytes_per_second(rates.value(), {5, 0}).has_value());
}

TEST(PcieLinks, TheCatalogsHostLinkTypesParse) {
  const auto gen5 = parse_pcie_link("PCIe Gen5 x16");
  ASSERT_TRUE(gen5.has_value());
  EXPECT_EQ(gen5->generation, 5);
  EXPECT_EQ(gen5->lanes, 16);
  EXPECT_EQ(parse_pcie_link("PCIe Gen4 x8")->lanes, 8);
  EXPECT_FALSE(parse_pcie_link("NVLink-C2C to Grace CPU").has_value());
  EXPECT_FALSE(parse_pcie_link("PCIe Gen5").has_value());
  EXPECT_FALSE(parse_pcie_link("").has_value());
}

TEST(PcieLinks, ABadDataFileNamesFileLineAndField) {
  gputwin::testing::expect_located_error(
      load_pcie_lane_rates,
      "schema: gputwin.pcie-links/1\ngenerations:\n  - generation: 5\n"
      "    transfer_rate_gt_per_s: 32\n    payload_bits: 130\n    line_bits: 128\n"
      "    source: \"x\"\n",
      5, {"payload_bits"});
}

TEST(GpuProductNames, TheBundledDataNamesTheDesignedGpus) {
  const auto names =
      load_gpu_product_names(std::string(GPUTWIN_SOURCE_DIR) + "/data/validate/gpu-names.yaml");
  ASSERT_TRUE(names.ok()) << names.error_text();
  EXPECT_EQ(names.value().at("h100-sxm"), std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  EXPECT_EQ(names.value().at("l4"), std::vector<std::string>{"NVIDIA L4"});
}

}  // namespace
}  // namespace gputwin::validate

namespace gputwin::validate {
namespace {

TEST(DesignCheckOptions, TheDesignGivesTheFleetTheBusbwPredictionAndTheIntendedMig) {
  const Cluster cluster = gputwin::testing::plan_file("examples/dgx-h100-superpod-1su.yaml");
  const auto options = design_check_options("pod.yaml", cluster, gputwin::testing::bundled_catalog(), "");
  ASSERT_TRUE(options.ok()) << options.error_text();
  ASSERT_TRUE(options.value().design.has_value());
  EXPECT_EQ(options.value().design->gpus_per_node, 8);
  EXPECT_EQ(options.value().design->accelerator, "h100-sxm");
  EXPECT_EQ(options.value().design->host_link, "PCIe Gen5 x16");  // the catalog's h100-sxm host_link
  EXPECT_EQ(options.value().design->pcie_lane_rates.size(), 6U);  // generations 1-6
  EXPECT_EQ(static_cast<int>(options.value().design->node_names.size()), cluster.nodes);
  EXPECT_TRUE(static_cast<bool>(options.value().predict_busbw));
  EXPECT_FALSE(options.value().mig.has_value());

  const auto with_mig = design_check_options("pod.yaml", cluster, gputwin::testing::bundled_catalog(),
                                             "3g.40gb+2g.20gb+1g.10gb+1g.10gb");
  ASSERT_TRUE(with_mig.ok()) << with_mig.error_text();
  EXPECT_TRUE(with_mig.value().mig.has_value());
  try {
    (void)design_check_options("pod.yaml", cluster, gputwin::testing::bundled_catalog(), "7g.80gb+7g.80gb");
    FAIL() << "a layout of two full GPUs was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()).rfind("--mig-layout: ", 0), 0u) << error.what();
  }
}

}  // namespace
}  // namespace gputwin::validate
