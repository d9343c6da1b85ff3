// The --query-gpu CSV and default-table readers, on the nvidia_gpu_exporter captures (one file holding many
// nvidia-smi outputs, split by capture_sections).
#include <gtest/gtest.h>

#include "gputwin/validate/capture_sections.hpp"
#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/nvidia_smi_query_csv.hpp"
#include "gputwin/validate/nvidia_smi_table.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

const std::string kH100 =
    "nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
const std::string kH100Mig =
    "nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h100-mig__590.48.01.txt";
const std::string kH200Mig =
    "nvidia-smi-captures/nvidia_gpu_exporter/linux-x86_64__nvidia-h200-mig__590.48.01.txt";

class Capture {
 public:
  explicit Capture(const std::string& relative) : path_(fixture(relative)), text_(read_input_file(path_)) {
    sections_ = split_capture_sections(text_);
  }
  [[nodiscard]] const CaptureSection& section(const std::string& title_start) const {
    for (const CaptureSection& section : sections_)
      if (section.title.rfind(title_start, 0) == 0) return section;
    throw std::runtime_error("no section " + title_start);
  }
  [[nodiscard]] NodeFacts query_csv(const std::string& phase) const {
    const CaptureSection& csv = section(phase + " :: query-gpu");
    const auto result = NvidiaSmiQueryCsv::parse(csv.body, path_, csv.first_line);
    EXPECT_TRUE(result.ok()) << result.error_text();
    return result.ok() ? result.value() : NodeFacts{};
  }
  [[nodiscard]] NodeFacts table(const std::string& phase) const {
    const CaptureSection& box = section(phase + " :: nvidia-smi (default table)");
    const auto result = NvidiaSmiTable::parse(box.body, path_, box.first_line);
    EXPECT_TRUE(result.ok()) << result.error_text();
    return result.ok() ? result.value() : NodeFacts{};
  }
  [[nodiscard]] const std::vector<CaptureSection>& sections() const { return sections_; }

 private:
  std::string path_;
  std::string text_;
  std::vector<CaptureSection> sections_;
};

TEST(CaptureSections, SplitsAnExporterCaptureKeepingLineNumbers) {
  GPUTWIN_REQUIRE_FIXTURE(fixture(kH100));
  const Capture capture(kH100);
  const CaptureSection& table = capture.section("idle :: nvidia-smi (default table)");
  EXPECT_EQ(table.command, "nvidia-smi");
  EXPECT_EQ(table.first_line, 1453);  // the line after the banner ending at line 1452
  EXPECT_EQ(table.body.substr(0, 3), "Tue");
  EXPECT_GT(capture.sections().size(), 20U);
}

TEST(NvidiaSmiQueryCsv, ReadsAnIdleAndALoadedH100) {
  GPUTWIN_REQUIRE_FIXTURE(fixture(kH100));
  const Capture capture(kH100);
  const NodeFacts idle = capture.query_csv("idle");
  EXPECT_EQ(idle.driver_version, "590.48.01");
  ASSERT_EQ(idle.gpus.size(), 1U);
  const GpuFacts& gpu = idle.gpus[0];
  EXPECT_EQ(gpu.index, 0);
  EXPECT_EQ(gpu.model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu.bus_id, "00000000:00:09.0");
  EXPECT_EQ(gpu.persistence_mode, true);
  EXPECT_EQ(gpu.pcie.generation_current, 5);
  EXPECT_EQ(gpu.pcie.width_max, 16);
  EXPECT_EQ(gpu.ecc_enabled, true);
  EXPECT_EQ(gpu.ecc.volatile_uncorrectable, 0);
  EXPECT_EQ(gpu.temperature_celsius, 41.0);
  ASSERT_TRUE(gpu.active_clock_event_reasons.has_value());
  EXPECT_EQ(*gpu.active_clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(gpu.mig_enabled, false);

  const GpuFacts loaded = capture.query_csv("load").gpus.at(0);
  ASSERT_TRUE(loaded.power.draw && loaded.power.enforced_limit && loaded.power.default_limit);
  EXPECT_DOUBLE_EQ(in_watts(*loaded.power.draw), 631.95);
  EXPECT_DOUBLE_EQ(in_watts(*loaded.power.enforced_limit), 700.0);
  EXPECT_DOUBLE_EQ(in_watts(*loaded.power.default_limit), 700.0);
  EXPECT_EQ(loaded.clocks.sm_mhz, 1980.0);
  EXPECT_EQ(loaded.max_clocks.memory_mhz, 2619.0);
  EXPECT_EQ(loaded.temperature_celsius, 59.0);
  EXPECT_TRUE(loaded.active_clock_event_reasons->empty());
}

TEST(NvidiaSmiQueryCsv, ReadsMigMode) {
  GPUTWIN_REQUIRE_FIXTURE(fixture(kH200Mig));
  const GpuFacts gpu = Capture(kH200Mig).query_csv("load").gpus.at(0);
  EXPECT_EQ(gpu.model, "NVIDIA H200");
  EXPECT_EQ(gpu.mig_enabled, true);
}

TEST(NvidiaSmiQueryCsv, NamesLineAndColumnOfABadCell) {
  const auto result = NvidiaSmiQueryCsv::parse("index, name, power.draw [W]\n0, H100, hot W\n", "q.csv", 5);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 6);
  EXPECT_EQ(result.errors()[0].field, "power.draw");
}

TEST(NvidiaSmiQueryCsv, RejectsARowWithMissingCells) {
  const auto result = NvidiaSmiQueryCsv::parse("index, name, uuid\n0, H100\n", "q.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 2);
}

TEST(NvidiaSmiTable, ReadsTheDefaultTableOfAnH100) {
  GPUTWIN_REQUIRE_FIXTURE(fixture(kH100));
  const Capture capture(kH100);
  const NodeFacts idle = capture.table("idle");
  EXPECT_EQ(idle.driver_version, "590.48.01");
  EXPECT_EQ(idle.cuda_version, "13.1");
  ASSERT_EQ(idle.gpus.size(), 1U);
  EXPECT_EQ(idle.gpus[0].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(idle.gpus[0].persistence_mode, true);
  EXPECT_EQ(idle.gpus[0].bus_id, "00000000:00:09.0");
  EXPECT_EQ(idle.gpus[0].ecc.volatile_uncorrectable, 0);
  EXPECT_EQ(idle.gpus[0].mig_enabled, false);
  const GpuFacts loaded = capture.table("load").gpus.at(0);
  ASSERT_TRUE(loaded.power.draw && loaded.power.limit && loaded.memory_used);
  EXPECT_DOUBLE_EQ(in_watts(*loaded.power.draw), 629.0);
  EXPECT_DOUBLE_EQ(in_watts(*loaded.power.limit), 700.0);
  EXPECT_EQ(loaded.temperature_celsius, 59.0);
  EXPECT_EQ(loaded.performance_state, "P0");
  EXPECT_DOUBLE_EQ(loaded.memory_used->base(), 19818.0 * 1048576.0);
}

TEST(NvidiaSmiTable, ReadsTheMigDevicesOfAnH200) {
  GPUTWIN_REQUIRE_FIXTURE(fixture(kH200Mig));
  const GpuFacts gpu = Capture(kH200Mig).table("load").gpus.at(0);
  EXPECT_EQ(gpu.mig_enabled, true);
  EXPECT_EQ(gpu.ecc_enabled, true);  // the ECC cell shows "On" in MIG mode
  EXPECT_FALSE(gpu.ecc.volatile_uncorrectable.has_value());
  ASSERT_EQ(gpu.mig_devices.size(), 5U);
  EXPECT_EQ(gpu.mig_devices[0].gpu_instance_id, 2);
  EXPECT_EQ(gpu.mig_devices[1].compute_instance_id, 1);
  EXPECT_EQ(gpu.mig_devices[1].multiprocessor_count, 32);
  EXPECT_EQ(gpu.mig_devices[4].index, 4);
  ASSERT_TRUE(gpu.mig_devices[3].memory_total.has_value());
  EXPECT_DOUBLE_EQ(gpu.mig_devices[3].memory_total->base(), 16384.0 * 1048576.0);
}

TEST(NvidiaSmiTable, ReadsTheMigDevicesOfAnH100) {
  GPUTWIN_REQUIRE_FIXTURE(fixture(kH100Mig));
  const GpuFacts gpu = Capture(kH100Mig).table("load").gpus.at(0);
  EXPECT_EQ(gpu.mig_devices.size(), 4U);  // 3g.40gb, 2g.20gb, 1g.10gb x2
}

}  // namespace
}  // namespace gputwin::validate
