// The checks end to end on real captures (../shared/fixtures, read in place): nodes assembled from the files
// of one origin each, as scripts/fixture_fleet.py does for the README's run.
#include <gtest/gtest.h>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/outliers.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

// Four DGX A100, the machines the superbenchmark logs were measured on.
BusbwPredictor dgx_a100_design() {
  const auto catalog = Catalog::load({std::string(GPUTWIN_SOURCE_DIR) + "/data/catalog"});
  auto model = load_collective_model(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/nccl-cost-model.yaml");
  return design_busbw_predictor(perf_hardware_of_system(catalog.value(), "dgx-a100", 4).value(),
                                std::move(model).value());
}

Fleet real_fleet() {
  Fleet fleet;
  fleet.nodes.push_back(read_fleet_node("a10g", {fixture("nvidia-smi-xml/telegraf/a10g.xml")}));
  fleet.nodes.push_back(
      read_fleet_node("superbench", {fixture("nccl-tests/superbenchmark/nccl_allreduce.log"),
                                     fixture("nccl-tests/superbenchmark/nccl_alltoall.log")}));
  fleet.nodes.push_back(
      read_fleet_node("t4", {fixture("nccl-tests/gpu-systems-lab/allreduce-nccl-tests.json")}));
  fleet.nodes.push_back(
      read_fleet_node("virtualclient", {fixture("dcgm/VirtualClient/DCGMIDiag_r3_results.json"),
                                        fixture("dcgm/dcgm-exporter/default-counters.csv")}));
  return fleet;
}

std::vector<std::string> described(const std::vector<Finding>& findings) {
  std::vector<std::string> lines;
  for (const Finding& finding : findings)
    lines.push_back(finding.node + " " + finding.rule + ": " + finding.message);
  return lines;
}

TEST(FixtureFleet, RealCapturesAgainstADgxA100Design) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/a10g.xml"));
  CheckOptions options;
  options.predict_busbw = dgx_a100_design();
  const auto findings = evaluate_checks(real_fleet(), testing::bundled_checks(), options);
  // The DGX A100 runs land within 10 % of the model (all_reduce 1.9 %, alltoall 6.5 % below); the T4 pair
  // is no DGX A100 and falls far short of one; the A10G sits in an x8 slot with persistence off;
  // dcgm-exporter's counters CSV is no output of any tool.
  EXPECT_EQ(
      described(findings),
      (std::vector<std::string>{
          "a10g pcie-width-below-max: PCIe link x8 of x16",
          "a10g persistence-mode-off: persistence mode off",
          "t4 nccl-busbw-below-prediction: all_reduce on 2 GPUs at 134217728 bytes: busbw 5.73 GB/s, 97.5 % "
          "below the predicted 233.65 GB/s (margin 10 %)",
          "virtualclient input-not-understood: no reader understands this file (no marker of nvidia-smi, "
          "nccl-tests, dcgmi diag or a /metrics scrape)",
      }));
  options.busbw_margin = 0.05;
  int superbench = 0;
  for (const Finding& finding : evaluate_checks(real_fleet(), testing::bundled_checks(), options))
    superbench += finding.node == "superbench" ? 1 : 0;
  EXPECT_EQ(superbench, 1);  // alltoall, 6.5 % below
}

}  // namespace
}  // namespace gputwin::validate
