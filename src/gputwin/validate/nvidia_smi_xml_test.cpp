#include "gputwin/validate/nvidia_smi_xml.hpp"

#include <gtest/gtest.h>

#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

NodeFacts read_fixture(const std::string& name) {
  const auto result = NvidiaSmiXml::read_file(fixture("nvidia-smi-xml/telegraf/" + name));
  EXPECT_TRUE(result.ok()) << result.error_text();
  return result.ok() ? result.value() : NodeFacts{};
}

TEST(NvidiaSmiXml, ReadsSchemaV12WithMigDevices) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/a100-sxm4-v12.xml"));
  const NodeFacts node = read_fixture("a100-sxm4-v12.xml");
  EXPECT_EQ(node.driver_version, "535.54.03");
  EXPECT_EQ(node.cuda_version, "12.2");
  ASSERT_EQ(node.gpus.size(), 1U);
  const GpuFacts& gpu = node.gpus[0];
  EXPECT_EQ(gpu.model, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(gpu.serial, "1650522003820");
  EXPECT_EQ(gpu.uuid, "GPU-513536b6-7d19-9063-b049-1e69664bb298");
  EXPECT_EQ(gpu.bus_id, "00000000:01:00.0");
  EXPECT_EQ(gpu.vbios_version, "92.00.36.00.02");
  EXPECT_EQ(gpu.persistence_mode, false);
  EXPECT_EQ(gpu.mig_enabled, true);
  ASSERT_EQ(gpu.mig_devices.size(), 4U);
  EXPECT_EQ(gpu.mig_devices[0].gpu_instance_id, 3);
  EXPECT_EQ(gpu.mig_devices[3].gpu_instance_id, 6);
  EXPECT_EQ(gpu.mig_devices[0].multiprocessor_count, 14);
  ASSERT_TRUE(gpu.mig_devices[0].memory_total.has_value());
  EXPECT_DOUBLE_EQ(gpu.mig_devices[0].memory_total->base(), 19968.0 * 1048576.0);
  EXPECT_EQ(gpu.pcie.generation_current, 4);
  EXPECT_EQ(gpu.pcie.width_max, 16);
  EXPECT_EQ(gpu.temperature_celsius, 27.0);
  ASSERT_TRUE(gpu.power.draw && gpu.power.default_limit);
  EXPECT_DOUBLE_EQ(in_watts(*gpu.power.draw), 67.03);
  EXPECT_DOUBLE_EQ(in_watts(*gpu.power.default_limit), 500.0);
  // A100 ECC on: counts are reported (0), and the DRAM/SRAM layout is summed.
  EXPECT_EQ(gpu.ecc.aggregate_uncorrectable, 0);
  EXPECT_EQ(gpu.ecc.volatile_correctable, 0);
  ASSERT_TRUE(gpu.active_clock_event_reasons.has_value());
  EXPECT_TRUE(gpu.active_clock_event_reasons->empty());
}

TEST(NvidiaSmiXml, ReadsSchemaV11ThrottleReasonsAndRowRemapping) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/a10g.xml"));
  const GpuFacts gpu = read_fixture("a10g.xml").gpus.at(0);
  EXPECT_EQ(gpu.model, "NVIDIA A10G");
  EXPECT_EQ(gpu.pcie.generation_current, 1);
  EXPECT_EQ(gpu.pcie.generation_max, 4);
  EXPECT_EQ(gpu.pcie.width_current, 8);  // a x16 card running at x8
  EXPECT_EQ(gpu.pcie.width_max, 16);
  ASSERT_TRUE(gpu.active_clock_event_reasons.has_value());
  EXPECT_EQ(*gpu.active_clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(gpu.row_remapping.pending, false);
  EXPECT_EQ(gpu.row_remapping.failure, false);
  EXPECT_EQ(gpu.row_remapping.uncorrectable, 0);
  EXPECT_FALSE(gpu.retired_pages.double_bit_ecc.has_value());  // "N/A" stays absent, not 0
  ASSERT_TRUE(gpu.power.enforced_limit.has_value());
  EXPECT_DOUBLE_EQ(in_watts(*gpu.power.enforced_limit), 300.0);
  EXPECT_EQ(gpu.max_clocks.sm_mhz, 1710.0);
  EXPECT_EQ(gpu.clocks.memory_mhz, 405.0);
}

TEST(NvidiaSmiXml, ReadsSchemaV13PowerAndClockEvents) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/3090-v13.xml"));
  const NodeFacts node = read_fixture("3090-v13.xml");
  EXPECT_EQ(node.driver_version, "590.44.01");
  EXPECT_EQ(node.cuda_version, "13.1");
  const GpuFacts& gpu = node.gpus.at(0);
  EXPECT_FALSE(gpu.serial.has_value());  // "N/A"
  EXPECT_EQ(gpu.persistence_mode, true);
  EXPECT_FALSE(gpu.mig_enabled.has_value());  // "N/A" on a GeForce card
  ASSERT_TRUE(gpu.power.draw && gpu.power.default_limit);
  EXPECT_DOUBLE_EQ(in_watts(*gpu.power.draw), 35.15);  // <instant_power_draw> of <gpu_power_readings>
  EXPECT_DOUBLE_EQ(in_watts(*gpu.power.default_limit), 350.0);
  ASSERT_TRUE(gpu.active_clock_event_reasons.has_value());
  EXPECT_EQ(*gpu.active_clock_event_reasons, std::vector<std::string>{"sw_power_cap"});
  EXPECT_FALSE(gpu.ecc.aggregate_uncorrectable.has_value());  // every ECC count is N/A
}

TEST(NvidiaSmiXml, ReadsTwoGpusOfOneNode) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/dual_a5000-v13.xml"));
  const NodeFacts node = read_fixture("dual_a5000-v13.xml");
  ASSERT_EQ(node.gpus.size(), 2U);
  EXPECT_EQ(node.gpus[0].index, 0);
  EXPECT_EQ(node.gpus[1].index, 1);
  EXPECT_EQ(node.gpus[0].bus_id, "00000000:81:00.0");
  EXPECT_EQ(node.gpus[1].bus_id, "00000000:C1:00.0");
  EXPECT_EQ(node.gpus[1].serial, "1234567890123");
  EXPECT_EQ(node.gpus[0].temperature_celsius, 13.0);
}

TEST(NvidiaSmiXml, ReadsALogWithNoDoctypeAndAnOldDriver) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/gtx-1660-ti.xml"));
  const NodeFacts node = read_fixture("gtx-1660-ti.xml");
  EXPECT_EQ(node.driver_version, "418.43");
  const GpuFacts& gpu = node.gpus.at(0);
  EXPECT_EQ(gpu.model, "Graphics Device");
  EXPECT_EQ(gpu.pcie.generation_max, 3);
  ASSERT_TRUE(gpu.power.enforced_limit.has_value());
  EXPECT_DOUBLE_EQ(in_watts(*gpu.power.enforced_limit), 130.0);
}

TEST(NvidiaSmiXml, ReadsATrimmedV10LogWithoutVersions) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/gtx-1070-ti.xml"));
  const NodeFacts node = read_fixture("gtx-1070-ti.xml");
  EXPECT_FALSE(node.driver_version.has_value());
  const GpuFacts& gpu = node.gpus.at(0);
  EXPECT_EQ(gpu.model, "GeForce GTX 1070 Ti");
  EXPECT_FALSE(gpu.power.draw.has_value());           // "N/A"
  EXPECT_FALSE(gpu.pcie.generation_max.has_value());  // element missing
  EXPECT_EQ(gpu.clocks.sm_mhz, 135.0);
}

TEST(NvidiaSmiXml, ReadsPerLocationEccLayout) {
  GPUTWIN_REQUIRE_FIXTURE(fixture("nvidia-smi-xml/telegraf/quadro-p2000-v12.xml"));
  const GpuFacts gpu = read_fixture("quadro-p2000-v12.xml").gpus.at(0);
  EXPECT_EQ(gpu.model, "Quadro P2000");
  EXPECT_FALSE(gpu.ecc.volatile_uncorrectable.has_value());  // <double_bit><total>N/A</total>
  EXPECT_EQ(gpu.pcie.width_current, 8);
}

TEST(NvidiaSmiXml, ReadsEveryFixture) {
  const std::string folder = fixture("nvidia-smi-xml/telegraf");
  GPUTWIN_REQUIRE_FIXTURE(folder);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const auto result = NvidiaSmiXml::read_file(entry.path().string());
    EXPECT_TRUE(result.ok()) << result.error_text();
    if (result.ok()) {
      EXPECT_FALSE(result.value().gpus.empty()) << entry.path();
    }
    ++files;
  }
  EXPECT_EQ(files, 10);
}

TEST(NvidiaSmiXml, CountsFromTheXmlText) {
  const std::string xml = R"(<?xml version="1.0" ?>
<nvidia_smi_log>
  <driver_version>550.54.15</driver_version>
  <gpu id="00000000:18:00.0">
    <product_name>NVIDIA H100 80GB HBM3</product_name>
    <ecc_errors>
      <volatile><sram_correctable>3</sram_correctable><sram_uncorrectable>0</sram_uncorrectable>
        <dram_correctable>4</dram_correctable><dram_uncorrectable>2</dram_uncorrectable></volatile>
      <aggregate><sram_correctable>[Not Supported]</sram_correctable><dram_uncorrectable>7</dram_uncorrectable></aggregate>
    </ecc_errors>
    <remapped_rows><remapped_row_pending>Yes</remapped_row_pending><remapped_row_failure>No</remapped_row_failure></remapped_rows>
  </gpu>
</nvidia_smi_log>)";
  const auto result = NvidiaSmiXml::parse(xml, "inline.xml");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const GpuFacts& gpu = result.value().gpus.at(0);
  EXPECT_EQ(gpu.ecc.volatile_correctable, 7);
  EXPECT_EQ(gpu.ecc.volatile_uncorrectable, 2);
  EXPECT_EQ(gpu.ecc.aggregate_uncorrectable, 7);
  EXPECT_FALSE(gpu.ecc.aggregate_correctable.has_value());
  EXPECT_EQ(gpu.row_remapping.pending, true);
}

TEST(NvidiaSmiXml, NamesFileLineAndElementOfABadValue) {
  const std::string xml =
      "<nvidia_smi_log>\n<gpu id=\"0\">\n<power_readings>\n<power_draw>lots W</power_draw>\n"
      "</power_readings>\n</gpu>\n</nvidia_smi_log>\n";
  const auto result = NvidiaSmiXml::parse(xml, "node7.xml", 10);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 13);  // line 4 of a section that starts at line 10
  EXPECT_EQ(result.errors()[0].field, "gpu.power_readings.power_draw");
  EXPECT_NE(result.error_text().find("node7.xml:13"), std::string::npos) << result.error_text();
}

TEST(NvidiaSmiXml, RejectsAnotherToolsXml) {
  const auto result =
      NvidiaSmiXml::parse("<?xml version=\"1.0\"?>\n<testsuites>\n</testsuites>\n", "junit.xml");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("<testsuites>"), std::string::npos) << result.error_text();
  EXPECT_EQ(result.errors()[0].where.line, 2);
}

}  // namespace
}  // namespace gputwin::validate
