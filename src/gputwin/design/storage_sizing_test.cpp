#include "gputwin/design/storage_sizing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::plan_errors;
using testing::plan_text;
using testing::source_path;

// The bundled 4-SU DGX H100 SuperPOD (127 nodes, a storage fabric) with a `storage:` section appended.
std::string superpod_with(const std::string& storage) {
  std::ifstream file(source_path("examples/dgx-h100-superpod-4su.yaml"));
  std::stringstream text;
  text << file.rdbuf();
  return text.str() + storage;
}

const StorageRequirement& binding(const StorageSummary& storage) {
  return storage.requirements.at(storage.binding);
}

double gb_per_s(DataRate rate) {
  return rate.base() / 8e9;
}

// Hand-computed with the DDN AI400X2's catalog figures: 90 GB/s read, 65 GB/s write, 500 TB usable.
TEST(StorageSizing, TheCheckpointBindsWhenItsWriteRateNeedsTheMostAppliances) {
  const Cluster cluster = plan_text(
      superpod_with("storage:\n  appliance: ddn-ai400x2\n  checkpoint: {size: 10 TB, write_within: 30 s}\n"
                    "  dataset_read: 100 GB/s\n  capacity: 1 PB\n"));
  const StorageSummary& storage = cluster.storage;
  ASSERT_EQ(storage.requirements.size(), 3u);
  // 10 TB / 30 s = 333.3 GB/s of write: ceil(333.3 / 65) = 6; 100 GB/s read: ceil(100 / 90) = 2;
  // 1 PB: 1000 TB / 500 TB = 2 exactly.
  EXPECT_NEAR(storage.requirements[0].amount, 333.333, 1e-3);
  EXPECT_EQ(storage.requirements[0].appliances, 6);
  EXPECT_EQ(storage.requirements[1].appliances, 2);
  EXPECT_EQ(storage.requirements[2].appliances, 2);
  EXPECT_EQ(storage.appliances, 6);
  EXPECT_EQ(binding(storage).need, StorageNeed::checkpoint_write);
  EXPECT_DOUBLE_EQ(gb_per_s(storage.read_bandwidth), 540.0);
  EXPECT_DOUBLE_EQ(gb_per_s(*storage.write_bandwidth), 390.0);
  EXPECT_DOUBLE_EQ(storage.capacity->base(), 3000e12);
}

TEST(StorageSizing, TheCapacityBindsWhenItNeedsTheMostAppliances) {
  const Cluster cluster = plan_text(
      superpod_with("storage:\n  appliance: ddn-ai400x2\n  dataset_read: 50 GB/s\n  capacity: 5 PB\n"));
  // 5000 TB / 500 TB = 10; 50 GB/s / 90 GB/s -> 1.
  EXPECT_EQ(cluster.storage.appliances, 10);
  EXPECT_EQ(binding(cluster.storage).need, StorageNeed::capacity);
  EXPECT_EQ(cluster.storage.requirements[0].appliances, 1);
}

TEST(StorageSizing, TheDatasetReadBindsWhenItNeedsTheMostAppliances) {
  const Cluster cluster = plan_text(
      superpod_with("storage:\n  appliance: ddn-ai400x2\n  dataset_read: 500 GB/s\n  capacity: 1 PB\n"));
  // 500 / 90 = 5.56 -> 6; 1000 TB / 500 TB = 2.
  EXPECT_EQ(cluster.storage.appliances, 6);
  EXPECT_EQ(binding(cluster.storage).need, StorageNeed::dataset_read);
}

TEST(StorageSizing, TheTierTakesTheReferenceRatesAtTheDesignsScalableUnits) {
  const Cluster better = plan_text(superpod_with("storage:\n  appliance: ddn-ai400x2\n  tier: better\n"));
  // 127 nodes / 32 per SU -> 4 SU: 160 GB/s read (ceil(160 / 90) = 2) and 80 GB/s write (ceil(80 / 65) = 2).
  EXPECT_EQ(better.storage.scalable_units, 4);
  ASSERT_EQ(better.storage.requirements.size(), 2u);
  EXPECT_DOUBLE_EQ(better.storage.requirements[0].amount, 160.0);
  EXPECT_DOUBLE_EQ(better.storage.requirements[1].amount, 80.0);
  EXPECT_EQ(better.storage.appliances, 2);
  EXPECT_EQ(binding(better.storage).need, StorageNeed::tier_read);  // the first of equals binds

  const Cluster best = plan_text(superpod_with("storage:\n  appliance: ddn-ai400x2\n  tier: best\n"));
  // 500 GB/s read: ceil(5.56) = 6; 250 GB/s write: ceil(3.85) = 4.
  EXPECT_EQ(best.storage.requirements[0].appliances, 6);
  EXPECT_EQ(best.storage.requirements[1].appliances, 4);
  EXPECT_EQ(best.storage.appliances, 6);
}

// The appliances are devices like any other: in the BOM, drawing power, cabled to the storage fabric's
// leaves.
TEST(StorageSizing, TheAppliancesAreInTheBomPowerAndStorageFabric) {
  const Cluster without = plan_text(superpod_with(""));
  const Cluster with =
      plan_text(superpod_with("storage:\n  appliance: ddn-ai400x2\n  dataset_read: 500 GB/s\n"));
  ASSERT_EQ(with.storage.appliances, 6);
  const auto line = std::find_if(with.bom.begin(), with.bom.end(),
                                 [](const BomLine& l) { return l.part == "ddn-ai400x2"; });
  ASSERT_NE(line, with.bom.end());
  EXPECT_EQ(line->count, 6);
  EXPECT_EQ(line->category, "appliance");
  const Power appliance_power = bundled_catalog().get<Appliance>("ddn-ai400x2").power_max * 6;
  // Each appliance's own draw, plus whatever the storage fabric's extra switches and optics add.
  EXPECT_GE(with.power.it_max.base(), (without.power.it_max + appliance_power).base() - 1e-6);
  const int appliance_ports =
      6 * bundled_catalog().get<Appliance>("ddn-ai400x2").nics.at(NetworkRole::storage).ports;
  EXPECT_EQ(
      with.fabric(NetworkRole::storage)->links_between(Tier::endpoint, Tier::leaf),
      without.fabric(NetworkRole::storage)->links_between(Tier::endpoint, Tier::leaf) + appliance_ports);
  int placed = 0;
  for (const Device& device : with.devices) {
    if (device.part != "ddn-ai400x2") continue;
    EXPECT_GE(device.rack, 0) << device.name;
    ++placed;
  }
  EXPECT_EQ(placed, 6);
  EXPECT_FALSE(without.storage.present());
}

TEST(StorageSizing, BadStorageSectionsAreLocatedErrors) {
  struct Case {
    std::string storage;
    std::string where;
    std::string says;
  };
  // The example spec has 46 lines; the storage section starts on line 47.
  const Case cases[] = {
      {"storage:\n  appliance: ufm-3.1\n  capacity: 1 PB\n", "test.yaml:48:14:", "no storage appliance"},
      {"storage:\n  appliance: ibm-ess-3500\n  checkpoint: {size: 2 TB, write_within: 60 s}\n",
       "test.yaml:49:", "no published write bandwidth"},
      {"storage:\n  appliance: ddn-ai400x2\n  checkpoint: {size: 2 TB, write_within: 60}\n",
       "test.yaml:49:", "expected a duration"},
      {"storage:\n  appliance: ddn-ai400x2\n  checkpoint: {size: workload, write_within: 60 s}\n",
       "test.yaml:49:", "nodes.workload"},
      {"storage:\n  appliance: ddn-ai400x2\n  capacity: 5\n", "test.yaml:49:", "capacity"},
      {"storage:\n  appliance: ddn-ai400x2\n", "test.yaml:48:", "at least one of"},
      {"storage:\n  appliance: ddn-ai400x2\n  tier: fastest\n", "test.yaml:49:", "good"},
      {"storage:\n  appliance: ddn-ai400x2\n  speed: 5 GB/s\n", "test.yaml:49:", "speed"},
  };
  for (const Case& c : cases) {
    const std::string errors = plan_errors(superpod_with(c.storage));
    EXPECT_NE(errors.find(c.where), std::string::npos) << c.storage << "\n" << errors;
    EXPECT_NE(errors.find(c.says), std::string::npos) << c.storage << "\n" << errors;
  }
  // No storage fabric to put the appliances on.
  testing::RailSpec rail;
  rail.nodes = 32;
  const std::string errors =
      plan_errors(testing::rail_spec(rail) + "storage: {appliance: ddn-ai400x2, capacity: 1 PB}\n");
  EXPECT_NE(errors.find("fabrics.storage"), std::string::npos) << errors;
}

}  // namespace
}  // namespace gputwin
