#include "gputwin/validate/inventory.hpp"

#include <gtest/gtest.h>

#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

TEST(Inventory, ReadsOneNodePerFileOfADirectory) {
  const std::string folder = fixture("nvidia-smi-xml/telegraf");
  GPUTWIN_REQUIRE_FIXTURE(folder);
  const auto inventory = read_inventory(folder);
  ASSERT_TRUE(inventory.ok()) << inventory.error_text();
  ASSERT_EQ(inventory.value().nodes.size(), 10U);
  // Sorted by node name: 3090-v13, a100-sxm4-v12, a10g, dual_a5000-v13, ...
  const NodeInventory& a100 = inventory.value().nodes.at(1);
  EXPECT_EQ(a100.node, "a100-sxm4-v12");
  EXPECT_EQ(a100.facts.gpus.size(), 1U);
  EXPECT_TRUE(a100.errors.empty());
}

TEST(Inventory, ReadsTheQueryCsvOfACaptureInANodeDirectory) {
  const std::string folder = fixture("nvidia-smi-captures");
  GPUTWIN_REQUIRE_FIXTURE(folder);
  const auto inventory = read_inventory(folder);
  ASSERT_TRUE(inventory.ok()) << inventory.error_text();
  ASSERT_EQ(inventory.value().nodes.size(), 1U);  // the nvidia_gpu_exporter directory is one node of 3 files
  EXPECT_EQ(inventory.value().nodes[0].facts.driver_version, "590.48.01");
}

TEST(Inventory, NotesWhatStandsOut) {
  GpuFacts gpu;
  gpu.ecc.aggregate_uncorrectable = 2;
  gpu.row_remapping.pending = true;
  gpu.pcie = {4, 5, 8, 16};
  gpu.persistence_mode = false;
  gpu.active_clock_event_reasons = std::vector<std::string>{"gpu_idle", "hw_thermal_slowdown"};
  const std::vector<std::string> expected = {"DBE 2",           "row remap pending",
                                             "PCIe gen 4 of 5", "x8 of x16",
                                             "persistence off", "throttled (hw_thermal_slowdown)"};
  EXPECT_EQ(health_notes(gpu), expected);
  EXPECT_TRUE(health_notes(GpuFacts{}).empty());  // nothing reported, nothing noted
}

TEST(Inventory, RejectsAMissingDirectory) {
  const auto inventory = read_inventory("/nonexistent/measured");
  ASSERT_FALSE(inventory.ok());
  EXPECT_EQ(inventory.errors()[0].field, "--measured");
}

}  // namespace
}  // namespace gputwin::validate
