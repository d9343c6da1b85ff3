#include "gputwin/validate/fleet.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

FileKind kind_of_fixture(const std::string& relative) {
  return detect_file_kind(read_input_file(fixture(relative)));
}

TEST(FileKind, RealCapturesAreRecognisedByContent) {
  const std::string xml = fixture("nvidia-smi-xml/telegraf/a100-sxm4-v12.xml");
  GPUTWIN_REQUIRE_FIXTURE(xml);
  EXPECT_EQ(kind_of_fixture("nvidia-smi-xml/telegraf/a100-sxm4-v12.xml"), FileKind::nvidia_smi_xml);
  EXPECT_EQ(kind_of_fixture("nvidia-smi-xml/telegraf/gtx-1660-ti.xml"),
            FileKind::nvidia_smi_xml);  // no DOCTYPE
  EXPECT_EQ(kind_of_fixture(
                "nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"),
            FileKind::nvidia_smi_capture);
  EXPECT_EQ(kind_of_fixture("nccl-tests/superbenchmark/nccl_allreduce.log"), FileKind::nccl_tests_text);
  EXPECT_EQ(kind_of_fixture(
                "nccl-tests/deepops/2x-DGX-A100-HDR-IB_all_reduce__nvidia-network-operator.md_L240-276.txt"),
            FileKind::nccl_tests_text);
  EXPECT_EQ(kind_of_fixture("nccl-tests/awsome-distributed-training/"
                            "p5-H100-EFA-awsbatch_all_reduce__aws-batch_README.md_L28-64.txt"),
            FileKind::nccl_tests_text);  // Open MPI's "[1,0]<stdout>:" prefix is no JSON array
  EXPECT_EQ(kind_of_fixture("nccl-tests/gpu-systems-lab/allreduce-nccl-tests.json"),
            FileKind::nccl_tests_json);
  EXPECT_EQ(kind_of_fixture("dcgm/VirtualClient/DCGMIDiag_r3_results.json"), FileKind::dcgm_diag);
  EXPECT_EQ(kind_of_fixture("dcgm/k8s-ai-conformance/dcgm-exporter-metrics_L4_kops__output.md_L51-121.txt"),
            FileKind::prometheus_text);
  // The DCGM schema is JSON but no tool output; dcgm-exporter's counters CSV is no nvidia-smi query.
  EXPECT_EQ(kind_of_fixture("dcgm/DCGM/dcgm_diag_schema.json"), FileKind::unknown);
  EXPECT_EQ(kind_of_fixture("dcgm/dcgm-exporter/default-counters.csv"), FileKind::unknown);
}

TEST(FileKind, SmallTextsOfEachKind) {
  EXPECT_EQ(
      detect_file_kind("name, index, pci.bus_id, power.draw [W]\nNVIDIA H100, 0, 00000000:18:00.0, 70.1 W\n"),
      FileKind::nvidia_smi_query_csv);
  EXPECT_EQ(detect_file_kind("| NVIDIA-SMI 550.90.07    Driver Version: 550.90.07    CUDA Version: 12.4 |\n"),
            FileKind::nvidia_smi_table);
  EXPECT_EQ(detect_file_kind("DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40\n"), FileKind::prometheus_text);
  EXPECT_EQ(detect_file_kind(""), FileKind::unknown);
  EXPECT_EQ(detect_file_kind(std::string("\x7f"
                                         "ELF\0\0\1",
                                         7)),
            FileKind::unknown);
  EXPECT_EQ(detect_file_kind("rack B07 cabled on Monday\n"), FileKind::unknown);
  EXPECT_EQ(detect_file_kind("{\"results\": []}"), FileKind::unknown);  // no bus_bw: not nccl-tests
  EXPECT_EQ(detect_file_kind("DCGM_FI_DEV_SM_CLOCK, gauge, SM clock frequency (in MHz).\n"),
            FileKind::unknown);
}

std::filesystem::path scratch_node(const std::string& name) {
  const auto directory = std::filesystem::temp_directory_path() / "gputwin-fleet-test" / name;
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  return directory;
}

TEST(FleetNode, ReadsEveryKindAndReportsWhatItCannot) {
  const std::string xml = fixture("nvidia-smi-xml/telegraf/a100-sxm4-v12.xml");
  GPUTWIN_REQUIRE_FIXTURE(xml);
  const auto directory = scratch_node("node01");
  std::ofstream(directory / "notes.txt") << "rack B07\n";
  std::ofstream(directory / "broken.xml") << "<nvidia_smi_log>\n<gpu>\n<power_readings>\n";
  const FleetNode node =
      read_fleet_node("node01", {xml, fixture("nccl-tests/superbenchmark/nccl_allreduce.log"),
                                 fixture("dcgm/VirtualClient/DCGMIDiag_r3_results.json"),
                                 (directory / "notes.txt").string(), (directory / "broken.xml").string()});
  ASSERT_TRUE(node.facts.has_value());
  EXPECT_EQ(node.facts->gpus.size(), 1U);  // the good XML, though a broken one sorts first
  EXPECT_EQ(node.facts->gpus[0].mig_devices.size(), 4U);
  EXPECT_EQ(node.nccl_runs.size(), 1U);
  EXPECT_EQ(node.diag_reports.size(), 1U);
  ASSERT_EQ(node.errors.size(), 1U);
  EXPECT_EQ(node.errors[0].where.file, (directory / "broken.xml").string());
  EXPECT_GT(node.errors[0].where.line, 0);
  int unknown = 0;
  for (const FleetFile& file : node.files) unknown += file.kind == FileKind::unknown ? 1 : 0;
  EXPECT_EQ(node.files.size(), 5U);
  EXPECT_EQ(unknown, 1);
}

TEST(Fleet, NodesAreSortedAndANonDirectoryIsAnError) {
  const auto root = std::filesystem::temp_directory_path() / "gputwin-fleet-order";
  std::filesystem::remove_all(root);
  for (const char* name : {"node10", "node02", "node01"}) {
    std::filesystem::create_directories(root / name);
    std::ofstream(root / name / "x.txt") << "nothing\n";
  }
  std::filesystem::create_directories(root / "node02" / "logs");
  const auto fleet = read_fleet(root.string());
  ASSERT_TRUE(fleet.ok());
  ASSERT_EQ(fleet.value().nodes.size(), 3U);
  EXPECT_EQ(fleet.value().nodes[0].name, "node01");
  EXPECT_EQ(fleet.value().nodes[2].name, "node10");
  ASSERT_EQ(fleet.value().nodes[1].files.size(), 2U);  // the nested directory is listed, not skipped
  EXPECT_EQ(fleet.value().nodes[1].files[0].kind, FileKind::unknown);
  EXPECT_NE(fleet.value().nodes[1].files[0].unknown_reason.find("a directory"), std::string::npos);
  EXPECT_FALSE(read_fleet((root / "missing").string()).ok());
}

TEST(Fleet, NoDataIsAnErrorNamingTheDirectory) {
  const auto root = std::filesystem::temp_directory_path() / "gputwin-fleet-empty";
  std::filesystem::remove_all(root);
  const auto missing = read_fleet(root.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error_text(), root.string() + ": --measured: does not exist\n");
  std::filesystem::create_directories(root);
  const auto empty = read_fleet(root.string());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.errors()[0].where.file, root.string());
  EXPECT_NE(empty.errors()[0].message.find("holds no node outputs"), std::string::npos);
}

TEST(Fleet, ANodeWithNothingReadableHasNoCapture) {
  const auto directory = scratch_node("node03");
  std::ofstream(directory / "notes.txt") << "rack B07\n";
  EXPECT_FALSE(has_readable_capture(read_fleet_node("node03", {(directory / "notes.txt").string()})));
  EXPECT_FALSE(has_readable_capture(read_fleet_node("node04", {})));
}

}  // namespace
}  // namespace gputwin::validate
