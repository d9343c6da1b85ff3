// One fact model per GPU, filled by every reader: a dcgm-exporter scrape is checked like an nvidia-smi output
// (issue 13 item 1); outputs of one node are merged, the richer source winning and a disagreement named
// (item 2); facts present in files are extracted (item 6: the driver label of a scrape, the CUDA version of
// an nvidia_gpu_exporter capture).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/prometheus/exposition_text.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/dcgm_exporter_facts.hpp"
#include "gputwin/validate/node_facts_merge.hpp"
#include "gputwin/validate/text_values.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

std::string labels(int gpu) {
  return "{gpu=\"" + std::to_string(gpu) +
         "\",UUID=\"GPU-5\",pci_bus_id=\"00000000:18:00.0\",modelName=\"NVIDIA H100 80GB HBM3\","
         "Hostname=\"node05\",DCGM_FI_DRIVER_VERSION=\"550.90.07\"}";
}

// A sick H100 as dcgm-exporter reports it, with curl's trailing line after the exposition.
const std::string kSickScrape =
    "DCGM_FI_DEV_XID_ERRORS" + labels(0) + " 79\n" + "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" + labels(0) + " 12\n" +
    "DCGM_FI_DEV_ROW_REMAP_FAILURE" + labels(0) + " 1\n" + "DCGM_FI_DEV_GPU_TEMP" + labels(0) + " 97\n" +
    "DCGM_FI_DEV_FB_FREE" + labels(0) + " 80000\n" + "DCGM_FI_DEV_FB_USED" + labels(0) + " 1000\n" +
    "DCGM_FI_DEV_FB_RESERVED" + labels(0) + " 559\n" + "* Connection #0 to host localhost left intact\n";

std::string written(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("gputwin-fact-model-" + name);
  std::ofstream(path) << text;
  return path.string();
}

std::vector<std::string> rules_of(const std::vector<Finding>& findings) {
  std::vector<std::string> rules;
  for (const Finding& finding : findings) rules.push_back(finding.rule);
  return rules;
}

bool has_rule(const std::vector<Finding>& findings, const std::string& rule) {
  const auto rules = rules_of(findings);
  return std::find(rules.begin(), rules.end(), rule) != rules.end();
}

TEST(DcgmExporterFacts, FillsTheFactModelFromDefaultCounterNames) {
  const auto scrape = prometheus::ExpositionText::parse(kSickScrape, "metrics.txt");
  ASSERT_TRUE(scrape.ok()) << scrape.error_text();
  const NodeFacts facts = facts_from_dcgm_scrape(scrape.value());
  EXPECT_EQ(facts.driver_version, "550.90.07");
  EXPECT_EQ(facts.hostname, "node05");
  ASSERT_EQ(facts.gpus.size(), 1U);
  const GpuFacts& gpu = facts.gpus[0];
  EXPECT_EQ(gpu.model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.last_xid, 79);
  EXPECT_EQ(gpu.ecc.volatile_uncorrectable, 12);
  EXPECT_EQ(gpu.row_remapping.failure, true);
  EXPECT_EQ(gpu.temperature_celsius, 97.0);
  ASSERT_TRUE(gpu.memory_total.has_value());
  EXPECT_DOUBLE_EQ(gpu.memory_total->base(), 81559.0 * 1048576.0);  // free + used + reserved
  EXPECT_EQ(gpu.line, 1);
}

TEST(DcgmExporterFacts, ASickScrapeFailsEveryCheckItCarries) {
  const FleetNode node = read_fleet_node("node05", {written("sick-metrics.txt", kSickScrape)});
  ASSERT_TRUE(node.errors.empty()) << node.errors[0].to_string();
  ASSERT_TRUE(node.facts.has_value());
  Fleet fleet;
  fleet.nodes = {node};
  const auto findings = evaluate_checks(fleet, testing::bundled_checks(), {});
  EXPECT_TRUE(has_rule(findings, "xid-critical"));
  EXPECT_TRUE(has_rule(findings, "ecc-uncorrectable"));
  EXPECT_TRUE(has_rule(findings, "row-remap-failure"));
  EXPECT_TRUE(has_rule(findings, "temperature-above-limit"));
  for (const Finding& finding : findings)
    if (finding.rule == "xid-critical") {
      EXPECT_EQ(finding.severity, Severity::critical);
      EXPECT_EQ(finding.gpu, 0);
      EXPECT_EQ(finding.where.line, 1);
    }
}

TEST(DcgmExporterFacts, ReadsClockEventReasonsAndNvlinkErrors) {
  const auto scrape = prometheus::ExpositionText::parse(
      "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS" + labels(0) + " 68\n" +
          "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL" + labels(0) + " 3\n",
      "m.txt");
  ASSERT_TRUE(scrape.ok()) << scrape.error_text();
  const GpuFacts gpu = facts_from_dcgm_scrape(scrape.value()).gpus.at(0);
  // 68 = 0x44: sw_power_cap (0x4) and hw_thermal_slowdown (0x40)
  EXPECT_EQ(gpu.active_clock_event_reasons,
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(gpu.nvlink_errors.crc_flit, 3);
}

TEST(DcgmExporterFacts, ReadsTheDriverLabelOfARealScrape) {
  const std::string path =
      fixture("dcgm/k8s-ai-conformance/dcgm-exporter-metrics_L4_kops__output.md_L51-121.txt");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const NodeFacts facts = facts_from_dcgm_scrape(prometheus::ExpositionText::read_file(path).value());
  EXPECT_EQ(facts.driver_version, "580.105.08");
  ASSERT_EQ(facts.gpus.size(), 1U);
  EXPECT_EQ(facts.gpus[0].model, "NVIDIA L4");
  EXPECT_FALSE(facts.gpus[0].memory_temperature_celsius.has_value());  // an L4 exports 0: no HBM sensor
}

NodeFacts node_of(const std::string& source, GpuFacts gpu) {
  NodeFacts facts;
  facts.source = source;
  facts.gpus.push_back(std::move(gpu));
  return facts;
}

GpuFacts gpu_with_uuid(int line) {
  GpuFacts gpu;
  gpu.index = 0;
  gpu.uuid = "GPU-1";
  gpu.line = line;
  return gpu;
}

TEST(MergeNodeFacts, ASilentSourceNeverHidesAnothersValue) {
  GpuFacts csv = gpu_with_uuid(10);
  csv.mig_enabled = true;  // the CSV knows the mode, not the instances
  GpuFacts table = gpu_with_uuid(20);
  table.mig_enabled = true;
  table.mig_devices = {MigDevice{0, 2, 0, 60, bytes(40448.0 * 1048576)},
                       MigDevice{1, 3, 0, 32, bytes(20096.0 * 1048576)}};
  const NodeFacts merged = merge_node_facts({node_of("q.csv", csv), node_of("table.txt", table)});
  ASSERT_EQ(merged.gpus.size(), 1U);
  EXPECT_EQ(merged.gpus[0].mig_devices.size(), 2U);
  EXPECT_TRUE(merged.disagreements.empty());
}

TEST(MergeNodeFacts, ASettingReportedDifferentlyIsADisagreementTheRicherSourceWins) {
  GpuFacts xml = gpu_with_uuid(10);
  xml.persistence_mode = true;
  GpuFacts scrape = gpu_with_uuid(3);
  scrape.persistence_mode = false;
  const NodeFacts merged = merge_node_facts({node_of("n.xml", xml), node_of("m.prom", scrape)});
  EXPECT_EQ(merged.gpus[0].persistence_mode, true);
  ASSERT_EQ(merged.disagreements.size(), 1U);
  EXPECT_EQ(merged.disagreements[0].fact, "persistence mode");
  EXPECT_EQ(merged.disagreements[0].used_at, "n.xml:10");
  EXPECT_EQ(merged.disagreements[0].other_at, "m.prom:3");
}

TEST(MergeNodeFacts, TheWorstFaultAnySourceSawIsUsed) {
  GpuFacts xml = gpu_with_uuid(10);
  xml.ecc.volatile_uncorrectable = 0;
  GpuFacts scrape = gpu_with_uuid(3);
  scrape.ecc.volatile_uncorrectable = 12;
  scrape.last_xid = 79;
  const NodeFacts merged = merge_node_facts({node_of("n.xml", xml), node_of("m.prom", scrape)});
  EXPECT_EQ(merged.gpus[0].ecc.volatile_uncorrectable, 12);
  EXPECT_EQ(merged.gpus[0].last_xid, 79);  // the XML has no XID counter: silent, no disagreement
  ASSERT_EQ(merged.disagreements.size(), 1U);
  EXPECT_EQ(merged.disagreements[0].used, "12");
  EXPECT_EQ(merged.disagreements[0].used_at, "m.prom:3");
}

TEST(MergeNodeFacts, GpusAreMatchedByUuidNotByPosition) {
  GpuFacts first = gpu_with_uuid(10);
  GpuFacts other = gpu_with_uuid(3);
  other.uuid = "GPU-2";
  other.index = 1;
  const NodeFacts merged = merge_node_facts({node_of("n.xml", first), node_of("m.prom", other)});
  ASSERT_EQ(merged.gpus.size(), 2U);
  EXPECT_EQ(merged.gpus[1].source, "m.prom");
}

TEST(MergeNodeFacts, ADisagreementIsAFindingOfItsOwn) {
  GpuFacts xml = gpu_with_uuid(10);
  xml.mig_enabled = false;
  GpuFacts scrape = gpu_with_uuid(3);
  scrape.mig_enabled = true;
  FleetNode node;
  node.name = "n1";
  node.facts = merge_node_facts({node_of("n1/n.xml", xml), node_of("n1/m.prom", scrape)});
  Fleet fleet;
  fleet.nodes = {node};
  const auto findings = evaluate_checks(fleet, testing::bundled_checks(), {});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].rule, "sources-disagree");
  EXPECT_EQ(findings[0].gpu, 0);
  EXPECT_EQ(findings[0].message,
            "outputs disagree on MIG mode: no in n1/n.xml:10, yes in n1/m.prom:3; no is used");
}

const std::string kH100MigCapture =
    "nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h100-mig__590.48.01.txt";

TEST(ExporterCapture, TheTableAddsTheMigInstancesAndCudaVersionTheCsvCannotSay) {
  const std::string path = fixture(kH100MigCapture);
  GPUTWIN_REQUIRE_FIXTURE(path);
  const FleetNode node = read_fleet_node("h100-mig", {path});
  ASSERT_TRUE(node.facts.has_value());
  EXPECT_EQ(node.facts->cuda_version, "13.1");
  ASSERT_EQ(node.facts->gpus.size(), 1U);
  EXPECT_EQ(node.facts->gpus[0].mig_devices.size(), 4U);
  EXPECT_TRUE(node.facts->disagreements.empty());
}

TEST(ExporterCapture, ItsMigLayoutMatchesTheLayoutItShows) {
  const std::string path = fixture(kH100MigCapture);
  GPUTWIN_REQUIRE_FIXTURE(path);
  const auto catalog = Catalog::load({std::string(GPUTWIN_SOURCE_DIR) + "/data/catalog"});
  ASSERT_TRUE(catalog.ok()) << catalog.error_text();
  Fleet fleet;
  fleet.nodes = {read_fleet_node("h100-mig", {path})};
  CheckOptions options;
  const MigProfileSet& h100 = catalog.value().get<MigProfileSet>("h100-80gb");
  options.mig = intended_mig("3g.40gb+2g.20gb+1g.10gb+1g.10gb", h100);
  for (const Finding& finding : evaluate_checks(fleet, testing::bundled_checks(), options))
    EXPECT_NE(finding.rule, "mig-layout-mismatch") << finding.message;
  options.mig = intended_mig("1g.10gb+1g.10gb", h100);
  EXPECT_TRUE(has_rule(evaluate_checks(fleet, testing::bundled_checks(), options), "mig-layout-mismatch"));
}

}  // namespace
}  // namespace gputwin::validate
