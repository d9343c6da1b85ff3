#include "gputwin/validate/inventory.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

std::filesystem::path scratch_fleet(const std::string& name) {
  const auto root = std::filesystem::temp_directory_path() / ("gputwin-inventory-" + name);
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  return root;
}

TEST(Inventory, ReadsOneNodePerFileOfADirectory) {
  const std::string folder = fixture("nvidia-smi-xml/telegraf");
  GPUTWIN_REQUIRE_FIXTURE(folder);
  const auto inventory = take_inventory(folder, testing::bundled_checks());
  ASSERT_TRUE(inventory.ok()) << inventory.error_text();
  ASSERT_EQ(inventory.value().fleet.nodes.size(), 10U);
  // Sorted by node name: 3090-v13, a100-sxm4-v12, a10g, dual_a5000-v13, ...
  const FleetNode& a100 = inventory.value().fleet.nodes.at(1);
  EXPECT_EQ(a100.name, "a100-sxm4-v12");
  EXPECT_EQ(a100.facts->gpus.size(), 1U);
  EXPECT_TRUE(a100.errors.empty());
}

TEST(Inventory, ReadsTheCaptureOfANodeDirectory) {
  const std::string folder = fixture("nvidia-smi-captures");
  GPUTWIN_REQUIRE_FIXTURE(folder);
  const auto inventory = take_inventory(folder, testing::bundled_checks());
  ASSERT_TRUE(inventory.ok()) << inventory.error_text();
  ASSERT_EQ(inventory.value().fleet.nodes.size(),
            1U);  // the nvidia_gpu_exporter directory is one node of 3 files
  EXPECT_EQ(inventory.value().fleet.nodes[0].facts->driver_version, "590.48.01");
}

// Issue 13 item 5: a .txt is not taken for an nvidia-smi table; each file's kind comes from its content, as
// `validate` finds it.
TEST(Inventory, ReadsFilesByContentNotByExtension) {
  const std::string log = fixture("nccl-tests/superbenchmark/nccl_allreduce.log");
  const std::string scrape = fixture(
      "dcgm/k8s-ai-conformance/dcgm-exporter-metrics_T4_ericsson-ccd__accelerator_metrics.md_L14-35.txt");
  GPUTWIN_REQUIRE_FIXTURE(log);
  const auto root = scratch_fleet("by-content");
  std::filesystem::create_directories(root / "node01");
  std::ofstream(root / "node01" / "nccl.txt") << read_input_file(log);
  std::ofstream(root / "node01" / "metrics.txt") << read_input_file(scrape);
  const auto inventory = take_inventory(root.string(), testing::bundled_checks());
  ASSERT_TRUE(inventory.ok()) << inventory.error_text();
  const FleetNode& node = inventory.value().fleet.nodes.at(0);
  EXPECT_TRUE(node.errors.empty()) << node.errors[0].to_string();
  EXPECT_EQ(node.nccl_runs.size(), 1U);
  ASSERT_TRUE(node.facts.has_value());
  EXPECT_EQ(node.facts->gpus.at(0).model, "Tesla T4");
  EXPECT_FALSE(inventory_has_input_errors(inventory.value()));
}

// Issue 13 item 5: health follows the checks' rules: an idle GPU in P8 runs its link at gen 1 to save power.
TEST(Inventory, HealthFollowsTheChecksRules) {
  const auto root = scratch_fleet("health");
  std::ofstream(root / "idle.csv")
      << "index, name, pci.bus_id, pstate, pcie.link.gen.current, pcie.link.gen.max, "
         "clocks_event_reasons.gpu_idle\n"
         "0, Tesla T4, 00000000:37:00.0, P8, 1, 3, Active\n";
  std::ofstream(root / "sick.csv") << "index, name, persistence_mode, ecc.errors.uncorrected.volatile.total\n"
                                      "0, Tesla T4, Enabled, 0\n1, Tesla T4, Disabled, 2\n";
  const auto inventory = take_inventory(root.string(), testing::bundled_checks());
  ASSERT_TRUE(inventory.ok()) << inventory.error_text();
  EXPECT_TRUE(health_of_node(inventory.value(), "idle").empty());
  EXPECT_EQ(health_of_node(inventory.value(), "sick"),
            std::vector<std::string>{"GPU 1: ecc-uncorrectable, persistence-mode-off"});
}

TEST(Inventory, AMissingDirectoryDoesNotExist) {
  const auto inventory = take_inventory("/nonexistent/measured", testing::bundled_checks());
  ASSERT_FALSE(inventory.ok());
  EXPECT_EQ(inventory.errors()[0].field, "--measured");
  EXPECT_EQ(inventory.errors()[0].message, "does not exist");
}

}  // namespace
}  // namespace gputwin::validate
