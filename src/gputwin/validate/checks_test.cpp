#include "gputwin/validate/checks.hpp"

#include <gtest/gtest.h>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/validate/nvidia_smi_xml.hpp"
#include "gputwin/validate/text_values.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

GpuFacts healthy_gpu(int index) {
  GpuFacts gpu;
  gpu.index = index;
  gpu.line = 10 + index * 100;
  gpu.model = "NVIDIA H100 80GB HBM3";
  gpu.vbios_version = "96.00.89.00.01";
  gpu.ecc.volatile_uncorrectable = 0;
  gpu.ecc.aggregate_uncorrectable = 0;
  gpu.row_remapping = {0, 0, false, false};
  gpu.pcie = {5, 5, 16, 16};
  gpu.performance_state = "P0";
  gpu.active_clock_event_reasons = std::vector<std::string>{};
  gpu.power.limit = watts(700);
  gpu.power.default_limit = watts(700);
  gpu.persistence_mode = true;
  return gpu;
}

FleetNode healthy_node(const std::string& name, int gpus = 2) {
  FleetNode node;
  node.name = name;
  NodeFacts facts;
  facts.source = name + "/nvidia-smi.xml";
  facts.driver_version = "550.90.07";
  facts.cuda_version = "12.4";
  for (int i = 0; i < gpus; ++i) facts.gpus.push_back(healthy_gpu(i));
  node.facts = facts;
  return node;
}

std::vector<Finding> evaluate(const std::vector<FleetNode>& nodes, const CheckOptions& options = {}) {
  Fleet fleet;
  fleet.nodes = nodes;
  return evaluate_checks(fleet, testing::bundled_checks(), options);
}

std::vector<std::string> rules_of(const std::vector<Finding>& findings) {
  std::vector<std::string> rules;
  for (const Finding& finding : findings) rules.push_back(finding.node + "/" + finding.rule);
  return rules;
}

TEST(Checks, HealthyFleetHasNoFinding) {
  EXPECT_TRUE(evaluate({healthy_node("a"), healthy_node("b"), healthy_node("c")}).empty());
}

TEST(Checks, MemoryErrorsAreCriticalOnTheirGpuAndLine) {
  FleetNode node = healthy_node("n1");
  node.facts->gpus[1].ecc.volatile_uncorrectable = 2;
  node.facts->gpus[1].ecc.aggregate_uncorrectable = 5;
  node.facts->gpus[0].row_remapping.pending = true;
  node.facts->gpus[0].row_remapping.failure = true;
  const auto findings = evaluate({node});
  ASSERT_EQ(findings.size(), 3U);
  EXPECT_EQ(findings[0].rule, "row-remap-failure");
  EXPECT_EQ(findings[1].rule, "row-remap-pending");
  EXPECT_EQ(findings[2].rule, "ecc-uncorrectable");
  EXPECT_EQ(findings[2].severity, Severity::critical);
  EXPECT_EQ(findings[2].gpu, 1);
  EXPECT_EQ(findings[2].where.file, "n1/nvidia-smi.xml");
  EXPECT_EQ(findings[2].where.line, 110);
  EXPECT_EQ(findings[2].message, "uncorrectable (double-bit) ECC errors: volatile 2, aggregate 5");
}

TEST(Checks, LinkGenerationIsJudgedOnlyUnderLoad) {
  FleetNode node = healthy_node("n1");
  node.facts->gpus[0].pcie.generation_current = 1;  // P0, working: a finding
  node.facts->gpus[1].pcie.generation_current = 1;
  node.facts->gpus[1].performance_state = "P8";  // idle: the link saves power
  node.facts->gpus[1].pcie.width_current = 8;    // width is judged in any state
  const auto findings = evaluate({node});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].rule, "pcie-generation-below-max");
  EXPECT_EQ(findings[0].gpu, 0);
  EXPECT_EQ(findings[0].message, "PCIe link gen 1 of gen 5 while not idle (performance state P0)");
  EXPECT_EQ(findings[1].rule, "pcie-width-below-max");
  EXPECT_EQ(findings[1].message, "PCIe link x8 of x16");
}

TEST(Checks, ThrottlePowerAndPersistenceAreWarnings) {
  FleetNode node = healthy_node("n1");
  node.facts->gpus[0].active_clock_event_reasons =
      std::vector<std::string>{"gpu_idle", "sw_power_cap", "sync_boost"};
  node.facts->gpus[1].power.limit = watts(500);
  node.facts->gpus[1].persistence_mode = false;
  const auto findings = evaluate({node});
  ASSERT_EQ(findings.size(), 3U);
  EXPECT_EQ(findings[0].message,
            "clocks held down by sw_power_cap");  // gpu_idle and sync_boost are no faults
  EXPECT_EQ(findings[1].rule, "persistence-mode-off");
  EXPECT_EQ(findings[2].message, "power limit 500 W below the default 700 W");
  for (const Finding& finding : findings) EXPECT_EQ(finding.severity, Severity::warning);
}

TEST(Checks, VersionMinorityIsNamed) {
  FleetNode odd = healthy_node("c");
  odd.facts->driver_version = "535.183.01";
  odd.facts->gpus[1].vbios_version = "96.00.30.00.01";
  const auto findings = evaluate({healthy_node("a"), healthy_node("b"), odd});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].node, "c");
  EXPECT_EQ(findings[0].message,
            "driver 535.183.01 differs from the fleet's most common 550.90.07 (2 of 3 nodes)");
  EXPECT_EQ(findings[1].gpu, 1);
  EXPECT_EQ(findings[1].message,
            "VBIOS 96.00.30.00.01 differs from the fleet's most common 96.00.89.00.01 (5 of 6 NVIDIA H100 "
            "80GB HBM3 GPUs)");
}

TEST(Checks, VersionTieNamesEveryNode) {
  FleetNode b = healthy_node("b");
  b.facts->cuda_version = "12.2";
  const auto findings = evaluate({healthy_node("a"), b});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].node, "a");
  EXPECT_EQ(findings[0].message,
            "CUDA 12.4 differs from the fleet's most common (a tie: 12.2, 12.4) (1 of 2 nodes)");
  EXPECT_EQ(findings[1].node, "b");
}

TEST(Checks, DcgmFailIsCriticalAndWarnIsWarningPerGpu) {
  FleetNode node = healthy_node("n1");
  DcgmDiagReport report;
  report.source = "n1/diag.json";
  report.tests.push_back({"Hardware",
                          "GPU Memory",
                          std::nullopt,
                          {{std::nullopt, {3}, "Fail", {"2 uncorrectable errors"}, std::nullopt},
                           {std::nullopt, {0, 1}, "Pass", {}, std::nullopt},
                           {std::nullopt, {2}, "Warn", {}, std::nullopt}}});
  node.diag_reports.push_back(report);
  const auto findings = evaluate({node});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].rule, "dcgm-diag-fail");
  EXPECT_EQ(findings[0].gpu, 3);
  EXPECT_EQ(findings[0].message, "DCGM diag Hardware test 'GPU Memory' failed: 2 uncorrectable errors");
  EXPECT_EQ(findings[1].rule, "dcgm-diag-warn");
  EXPECT_EQ(findings[1].message, "DCGM diag Hardware test 'GPU Memory' warned");
}

TEST(Checks, DcgmResultOfACpuIsNoGpuFinding) {
  FleetNode node = healthy_node("n1");
  DcgmDiagReport report;
  report.source = "n1/diag4.json";
  report.tests.push_back({"Hardware",
                          "CPU EUD",
                          std::nullopt,
                          {{std::string("CPU"), {0}, "Fail", {"CPU 0 failed"}, std::nullopt}}});
  node.diag_reports.push_back(report);
  const auto findings = evaluate({node});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_FALSE(findings[0].gpu.has_value());
  EXPECT_EQ(findings[0].message, "DCGM diag Hardware test 'CPU EUD' failed: CPU 0: CPU 0 failed");
}

NcclTestsRun all_reduce_run(double busbw_gbps, std::int64_t wrong) {
  NcclTestsRun run;
  run.source = "n1/all_reduce_perf.log";
  run.collective = "all_reduce";
  run.devices.assign(8, "NVIDIA H100 80GB HBM3");
  for (int i = 0; i < 2; ++i) {
    CollectiveRow row;
    row.line = 20 + i;
    row.size = bytes(i == 0 ? 1048576 : 8589934592.0);
    row.out_of_place.bus_bandwidth = gigabytes_per_second(i == 0 ? 10 : busbw_gbps);
    row.out_of_place.wrong = i == 0 ? wrong : 0;
    run.rows.push_back(row);
  }
  return run;
}

TEST(Checks, WrongResultsAreCritical) {
  FleetNode node = healthy_node("n1");
  node.nccl_runs.push_back(all_reduce_run(480, 7));
  const auto findings = evaluate({node});
  ASSERT_EQ(rules_of(findings), (std::vector<std::string>{"n1/nccl-wrong-results"}));
  EXPECT_EQ(findings[0].message, "all_reduce: 7 wrong elements at 1048576 bytes");
  EXPECT_EQ(findings[0].where.line, 20);
}

TEST(Checks, BusbwThatCannotBePredictedIsSaid) {
  CheckOptions options;
  options.predict_busbw = [](std::string_view, int ranks, std::int64_t) -> BusbwPrediction {
    return {std::nullopt, std::to_string(ranks) + " ranks, the design has 4 GPUs"};
  };
  FleetNode node = healthy_node("n1");
  node.nccl_runs.push_back(all_reduce_run(480, 0));
  const auto findings = evaluate({node}, options);
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].severity, Severity::info);
  EXPECT_EQ(findings[0].message,
            "all_reduce: busbw not compared with the design (8 ranks, the design has 4 GPUs)");
}

TEST(Checks, BusbwBelowThePredictionByMoreThanTheMargin) {
  CheckOptions options;
  std::int64_t asked_bytes = 0;
  options.predict_busbw = [&](std::string_view collective, int ranks, std::int64_t size) -> BusbwPrediction {
    EXPECT_EQ(collective, "all_reduce");
    EXPECT_EQ(ranks, 8);
    asked_bytes = size;
    return {400.0, ""};
  };
  FleetNode slow = healthy_node("slow");
  slow.nccl_runs.push_back(all_reduce_run(350, 0));  // 12.5 % below
  FleetNode fine = healthy_node("fine");
  fine.nccl_runs.push_back(all_reduce_run(370, 0));  // 7.5 % below
  const auto findings = evaluate({slow, fine}, options);
  EXPECT_EQ(asked_bytes, 8589934592);  // compared at the largest size measured
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].node, "slow");
  EXPECT_EQ(findings[0].where.line, 21);
  EXPECT_EQ(
      findings[0].message,
      "all_reduce on 8 GPUs at 8589934592 bytes: busbw 350.00 GB/s, 12.5 % below the predicted 400.00 GB/s "
      "(margin 10 %)");
  options.busbw_margin = 0.05;
  EXPECT_EQ(evaluate({slow, fine}, options).size(), 2U);
}

TEST(Checks, FilesNotUnderstoodAndUnreadableAreFindings) {
  FleetNode node = healthy_node("n1");
  node.files.push_back({"n1/notes.txt", FileKind::unknown, "no marker of nvidia-smi"});
  node.errors.push_back({{"n1/bad.xml", 13, 0}, "gpu.power_readings.power_draw", "expected a number in W"});
  const auto findings = evaluate({node});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].rule, "input-unreadable");
  EXPECT_EQ(findings[0].severity, Severity::critical);
  EXPECT_EQ(findings[0].where.line, 13);
  EXPECT_EQ(findings[0].message, "gpu.power_readings.power_draw: expected a number in W");
  EXPECT_EQ(findings[1].rule, "input-not-understood");
}

TEST(Checks, ANodeWithoutAReadableCaptureIsCritical) {
  FleetNode empty;
  empty.name = "n2";
  empty.path = "measured/n2";
  empty.files.push_back({"measured/n2/notes.txt", FileKind::unknown, "no marker of nvidia-smi"});
  const auto findings = evaluate({healthy_node("n1"), empty});
  ASSERT_EQ(findings.size(), 2U);
  EXPECT_EQ(findings[0].rule, "node-without-capture");
  EXPECT_EQ(findings[0].severity, Severity::critical);
  EXPECT_EQ(findings[0].node, "n2");
  EXPECT_EQ(findings[0].where.file, "measured/n2");
  EXPECT_EQ(findings[0].message,
            "no readable capture among the node's 1 file: nothing of this node was validated");
}

TEST(Checks, MigLayoutOfTheRealA100CaptureAgainstIntendedLayouts) {
  const std::string path = testing::fixture("nvidia-smi-xml/telegraf/a100-sxm4-v12.xml");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const auto catalog = Catalog::load({std::string(GPUTWIN_SOURCE_DIR) + "/data/catalog"});
  ASSERT_TRUE(catalog.ok()) << catalog.error_text();
  const MigProfileSet& set = catalog.value().get<MigProfileSet>("a100-80gb");
  FleetNode node;
  node.name = "a100";
  node.facts = NvidiaSmiXml::read_file(path).value();
  CheckOptions options;
  // What the capture holds: one A100 in MIG mode with four 1-slice instances of 19968 MiB (1g.20gb).
  options.mig = intended_mig("1g.20gb+1g.20gb+1g.20gb+1g.20gb", set);
  const auto matching = evaluate({node}, options);
  for (const Finding& finding : matching) EXPECT_NE(finding.rule, "mig-layout-mismatch") << finding.message;
  options.mig = intended_mig("3g.40gb+2g.20gb+1g.10gb+1g.10gb", set);
  std::vector<Finding> mig;
  for (const Finding& finding : evaluate({node}, options))
    if (finding.rule == "mig-layout-mismatch") mig.push_back(finding);
  ASSERT_EQ(mig.size(), 1U);
  EXPECT_EQ(mig[0].gpu, 0);
  EXPECT_EQ(mig[0].where.line, 8);
  EXPECT_EQ(mig[0].message,
            "MIG 4 instances (20+20+20+20 GB) differs from the intended 3g.40gb+2g.20gb+1g.10gb+1g.10gb (4 "
            "instances, "
            "40+20+10+10 GB)");
  EXPECT_THROW((void)intended_mig("7g.80gb+1g.10gb", set), std::invalid_argument);
}

}  // namespace
}  // namespace gputwin::validate
