#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/catalog/catalog_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;

double gb_per_s(DataRate rate) {
  return rate.base() / 8e9;
}

TEST(StorageCatalog, EveryStorageApplianceJoinsTheStorageFabricWithASourcedReadRate) {
  int storage_appliances = 0;
  for (const Appliance& part : bundled_catalog().all<Appliance>()) {
    if (!part.storage) continue;
    ++storage_appliances;
    EXPECT_TRUE(part.nics.contains(NetworkRole::storage)) << part.info.id;
    EXPECT_GT(gb_per_s(part.storage->read_bandwidth), 0.0) << part.info.id;
    EXPECT_FALSE(part.info.source.empty()) << part.info.id;
  }
  EXPECT_GE(storage_appliances, 3);
  // A figure no source prints stays absent rather than guessed.
  EXPECT_FALSE(bundled_catalog().get<Appliance>("netapp-aff-a900-ha").storage->write_bandwidth);
  EXPECT_FALSE(bundled_catalog().get<Appliance>("ibm-ess-3500").storage->write_bandwidth);
  EXPECT_FALSE(bundled_catalog().get<Appliance>("ufm-3.1").storage);
}

// The DGX H100 SuperPOD RA's Table 6 as ../shared holds it: every printed rate is what the table answers at
// its SU count, and one node's rates are the per-node row.
TEST(StorageTiers, ReproduceTheReferenceDesignTableAtItsScalableUnitCounts) {
  const std::string path = std::string(GPUTWIN_SHARED_DIR) + "/data/superpod-h100.yaml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared reference data not present: " << path;
  const YAML::Node table = YAML::LoadFile(path)["table_6_storage_guidance"];
  const StorageTierTable& tiers = bundled_catalog().get<StorageTierTable>("dgx-h100-superpod");
  int checked = 0;
  for (const auto& row : table["rows"]) {
    const std::string scope = row["scope"].as<std::string>();
    for (const auto tier : {StorageTier::good, StorageTier::better, StorageTier::best}) {
      const std::string level = storage_tier_name(tier);
      const double read = row["read_gbps"][level].as<double>();
      const double write = row["write_gbps"][level].as<double>();
      StorageRates rates;
      if (scope == "single node") {
        rates = tiers.per_node.at(tier);
      } else {
        const int units = std::stoi(scope);  // "1 SU aggregate", "4 SU aggregate"
        rates = tiers.aggregate_at(tier, units);
      }
      EXPECT_DOUBLE_EQ(gb_per_s(rates.read), read) << scope << " " << level;
      EXPECT_DOUBLE_EQ(gb_per_s(rates.write), write) << scope << " " << level;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 9);
}

TEST(StorageTiers, InterpolateBetweenPrintedRowsAndScaleBeyondThem) {
  const StorageTierTable& tiers = bundled_catalog().get<StorageTierTable>("dgx-h100-superpod");
  // 2 SU, a third of the way from 1 SU (40/20 GB/s) to 4 SU (160/80 GB/s): 40 + 120/3, 20 + 60/3.
  EXPECT_DOUBLE_EQ(gb_per_s(tiers.aggregate_at(StorageTier::better, 2).read), 80.0);
  EXPECT_DOUBLE_EQ(gb_per_s(tiers.aggregate_at(StorageTier::better, 2).write), 40.0);
  // 8 SU: twice the 4-SU row (500/250 GB/s at best).
  EXPECT_DOUBLE_EQ(gb_per_s(tiers.aggregate_at(StorageTier::best, 8).read), 1000.0);
  EXPECT_DOUBLE_EQ(gb_per_s(tiers.aggregate_at(StorageTier::best, 8).write), 500.0);
  // Half an SU: half the 1-SU row (15/7 GB/s at good).
  EXPECT_DOUBLE_EQ(gb_per_s(tiers.aggregate_at(StorageTier::good, 0.5).read), 7.5);
  EXPECT_DOUBLE_EQ(gb_per_s(tiers.aggregate_at(StorageTier::good, 0.5).write), 3.5);
}

TEST(StorageCatalog, BadStorageEntriesAreLocatedErrors) {
  const std::string no_ports = R"(appliances:
  - id: box
    source: "test"
    rack_units: 2 U
    power_max: 1 kW
    nics: {oob: {ports: 1, speed: 1 Gb/s}}
    storage: {read_bandwidth: 10 GB/s}
)";
  auto result = Catalog::parse({{"a.yaml", no_ports}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("a.yaml:6:"), std::string::npos) << result.error_text();
  EXPECT_NE(result.error_text().find("nics.storage"), std::string::npos) << result.error_text();

  const std::string bits = R"(appliances:
  - id: box
    source: "test"
    rack_units: 2 U
    power_max: 1 kW
    nics: {storage: {ports: 1, speed: 200 Gb/s}}
    storage: {read_bandwidth: 10}
)";
  result = Catalog::parse({{"b.yaml", bits}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("b.yaml:7:"), std::string::npos) << result.error_text();

  const std::string descending = R"(storage_tiers:
  - id: t
    source: "test"
    nodes_per_scalable_unit: 32
    per_node: {good: {read: 1 GB/s, write: 1 GB/s}, better: {read: 1 GB/s, write: 1 GB/s}, best: {read: 1 GB/s, write: 1 GB/s}}
    aggregate:
      - {scalable_units: 4, good: {read: 1 GB/s, write: 1 GB/s}, better: {read: 1 GB/s, write: 1 GB/s}, best: {read: 1 GB/s, write: 1 GB/s}}
      - {scalable_units: 1, good: {read: 1 GB/s, write: 1 GB/s}, better: {read: 1 GB/s, write: 1 GB/s}, best: {read: 1 GB/s, write: 1 GB/s}}
)";
  result = Catalog::parse({{"c.yaml", descending}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("c.yaml:8:"), std::string::npos) << result.error_text();
  EXPECT_NE(result.error_text().find("ascending"), std::string::npos) << result.error_text();

  const std::string missing_tier = R"(storage_tiers:
  - id: t
    source: "test"
    nodes_per_scalable_unit: 32
    per_node: {good: {read: 1 GB/s, write: 1 GB/s}, best: {read: 1 GB/s, write: 1 GB/s}}
    aggregate:
      - {scalable_units: 1, good: {read: 1 GB/s, write: 1 GB/s}, better: {read: 1 GB/s, write: 1 GB/s}, best: {read: 1 GB/s, write: 1 GB/s}}
)";
  result = Catalog::parse({{"d.yaml", missing_tier}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("d.yaml:5:"), std::string::npos) << result.error_text();
  EXPECT_NE(result.error_text().find("better"), std::string::npos) << result.error_text();
}

}  // namespace
}  // namespace gputwin
