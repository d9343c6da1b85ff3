#include "gputwin/catalog/catalog.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;

Result<Catalog> parse(const std::vector<std::pair<std::string, std::string>>& documents) {
  return Catalog::parse(documents);
}

const std::string kSwitch = R"(switches:
  - id: test-switch
    name: "A test switch"
    source: "test"
    technology: ethernet
    rack_units: 1 U
    cages: 32
    cage: OSFP
    port_modes: [{ports: 64, speed: 400 Gb/s}]
    power_max: 1 kW
)";

TEST(Catalog, BundledCatalogHasEveryPartTheIssueAsksFor) {
  const Catalog& catalog = bundled_catalog();
  for (const char* id :
       {"a100-40gb-sxm", "a100-80gb-sxm", "a100-40gb-pcie", "a100-80gb-pcie", "h100-sxm", "h100-pcie",
        "h100-nvl", "h200-sxm", "b200", "gb200", "l40s", "l4", "mi300x", "mi325x", "mi355x", "gaudi3"}) {
    EXPECT_NE(catalog.find<Accelerator>(id), nullptr) << id;
  }
  for (const char* id :
       {"dgx-h100", "dgx-h200", "dgx-b200", "dgx-b300", "hgx-h100-8gpu", "hgx-b200-8gpu", "hgx-b300-8gpu",
        "amd-mi300x-8gpu", "amd-mi325x-8gpu", "amd-mi355x-8gpu", "pcie-8gpu-l40s"}) {
    EXPECT_NE(catalog.find<System>(id), nullptr) << id;
  }
  for (const char* id : {"qm9700", "q3400", "sn5600", "sn5610", "sn4600c", "sn2201"}) {
    EXPECT_NE(catalog.find<Switch>(id), nullptr) << id;
  }
  for (const Medium medium : {Medium::passive_copper, Medium::active_copper, Medium::multimode,
                              Medium::singlemode, Medium::twisted_pair}) {
    const auto& cables = catalog.all<Cable>();
    EXPECT_TRUE(std::any_of(cables.begin(), cables.end(), [&](const Cable& c) { return c.medium == medium; }))
        << medium_name(medium);
  }
  for (const auto& part : catalog.all<Accelerator>()) {
    EXPECT_FALSE(part.info.source.empty()) << part.info.id;
    EXPECT_GT(in_gigabytes(part.memory), 0.0) << part.info.id;
  }
}

double dense_teraflops(const Accelerator& part, const std::string& precision) {
  const auto rate = part.dense_compute.find(precision);
  return rate == part.dense_compute.end() || !rate->second ? -1 : in_teraflops(*rate->second);
}

// The AMD Instinct parts of 2024-2025: MI325X is the MI300X's compute with 256 GB HBM3E; MI355X (CDNA 4)
// doubles the matrix rates per CU and adds FP4 (dense figures, sparse ones are twice these).
TEST(Catalog, AmdInstinctMi325xAndMi355xCarryTheirDenseRatesMemoryAndLinks) {
  const Catalog& catalog = bundled_catalog();
  const Accelerator& mi300x = catalog.get<Accelerator>("mi300x");
  const Accelerator& mi325x = catalog.get<Accelerator>("mi325x");
  EXPECT_EQ(mi325x.architecture, "cdna3");
  EXPECT_DOUBLE_EQ(dense_teraflops(mi325x, "bf16"), dense_teraflops(mi300x, "bf16"));
  EXPECT_DOUBLE_EQ(dense_teraflops(mi325x, "fp8"), 2614.9);
  EXPECT_DOUBLE_EQ(in_gigabytes(mi325x.memory), 256);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(mi325x.memory_bandwidth), 6000);
  EXPECT_DOUBLE_EQ(in_watts(mi325x.tdp), 1000);
  ASSERT_TRUE(mi325x.scale_up && mi325x.scale_up->bandwidth);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(*mi325x.scale_up->bandwidth), 7 * 128);  // 7 peer links

  const Accelerator& mi355x = catalog.get<Accelerator>("mi355x");
  EXPECT_EQ(mi355x.architecture, "cdna4");
  EXPECT_EQ(mi355x.form_factor, "oam");
  EXPECT_DOUBLE_EQ(dense_teraflops(mi355x, "bf16"), 2516.6);  // 2400 MHz x 512 FMA x 2 x 1024 cores
  EXPECT_DOUBLE_EQ(dense_teraflops(mi355x, "fp8"), 5000);
  EXPECT_DOUBLE_EQ(dense_teraflops(mi355x, "fp4"), 10100);
  EXPECT_DOUBLE_EQ(dense_teraflops(mi355x, "fp32"), 157.3);
  EXPECT_DOUBLE_EQ(in_gigabytes(mi355x.memory), 288);
  EXPECT_DOUBLE_EQ(in_gigabytes_per_second(mi355x.memory_bandwidth), 8000);
  EXPECT_DOUBLE_EQ(in_watts(mi355x.tdp), 1400);
  ASSERT_TRUE(mi355x.scale_up && mi355x.scale_up->bandwidth);
  EXPECT_NEAR(in_gigabytes_per_second(*mi355x.scale_up->bandwidth), 7 * 153.6, 1e-9);
}

// DGX/HGX B300 use 800 Gb/s ConnectX-8, one port per GPU; HGX B200 stays at 400 Gb/s ConnectX-7.
TEST(Catalog, BlackwellEightGpuServersCarryTheirGpusNicsAndPower) {
  const Catalog& catalog = bundled_catalog();
  struct Expected {
    const char* id;
    const char* accelerator;
    double nic_gbps;
    double power_kw;
    double rack_units;
  };
  for (const Expected& e :
       {Expected{"dgx-b300", "b300", 800, 14, 10}, Expected{"hgx-b300-8gpu", "b300", 800, 14.5, 9},
        Expected{"hgx-b200-8gpu", "b200", 400, 14.3, 10}}) {
    const System& system = catalog.get<System>(e.id);
    EXPECT_EQ(system.accelerator, e.accelerator) << e.id;
    EXPECT_EQ(system.accelerators, 8) << e.id;
    EXPECT_EQ(system.scale_up_domain, 8) << e.id;
    const NicGroup& compute = system.nics.at(NetworkRole::compute);
    EXPECT_EQ(compute.ports, 8) << e.id;
    EXPECT_DOUBLE_EQ(in_gigabits_per_second(compute.speed), e.nic_gbps) << e.id;
    EXPECT_DOUBLE_EQ(in_kilowatts(system.power_max), e.power_kw) << e.id;
    EXPECT_DOUBLE_EQ(in_rack_units(system.rack_units), e.rack_units) << e.id;
  }
  // The DGX B300 RA's rack: four systems at ~56 kW.
  EXPECT_DOUBLE_EQ(4 * in_kilowatts(catalog.get<System>("dgx-b300").power_max), 56);
}

// AMD's 8-GPU platforms: one Infinity Fabric domain of eight OAM GPUs per server, one 400G NIC per GPU, and
// the stated power estimate (eight GPUs at their TDP plus the same host allowance) applied alike to all
// three.
TEST(Catalog, AmdEightGpuPlatformsAreOneInfinityFabricDomainWithTheStatedPowerRule) {
  const Catalog& catalog = bundled_catalog();
  const std::map<std::string, std::string> platforms{
      {"amd-mi300x-8gpu", "mi300x"}, {"amd-mi325x-8gpu", "mi325x"}, {"amd-mi355x-8gpu", "mi355x"}};
  for (const auto& [id, accelerator] : platforms) {
    const System& system = catalog.get<System>(id);
    EXPECT_EQ(system.accelerator, accelerator) << id;
    EXPECT_EQ(system.accelerators, 8) << id;
    EXPECT_EQ(system.scale_up_domain, 8) << id;
    const Accelerator& gpu = catalog.get<Accelerator>(accelerator);
    ASSERT_TRUE(gpu.scale_up.has_value()) << id;
    EXPECT_EQ(gpu.scale_up->type, "Infinity Fabric") << id;
    EXPECT_NEAR(in_kilowatts(system.power_max), 8 * in_kilowatts(gpu.tdp) + 4.2, 1e-9) << id;
    EXPECT_EQ(system.nics.at(NetworkRole::compute).ports, 8) << id;
    EXPECT_DOUBLE_EQ(in_gigabits_per_second(system.nics.at(NetworkRole::compute).speed), 400) << id;
  }
}

// The 800G switches the Blackwell Ultra designs use: Quantum-X800 Q3400 (144 XDR ports, the B300 XDR RA's
// leaf: 72 down + 72 up) and the Spectrum-4 SN5600 / SN5610 (64 x 800GbE, split 2 x 400G).
TEST(Catalog, EightHundredGigabitSwitchesHaveTheirRadix) {
  const Catalog& catalog = bundled_catalog();
  EXPECT_EQ(catalog.get<Switch>("q3400").radix_at(gigabits_per_second(800)), 144);
  EXPECT_EQ(catalog.get<Switch>("q3400").technology, "infiniband");
  for (const char* id : {"sn5600", "sn5610"}) {
    const Switch& spectrum = catalog.get<Switch>(id);
    EXPECT_EQ(spectrum.technology, "ethernet") << id;
    EXPECT_EQ(spectrum.radix_at(gigabits_per_second(800)), 64) << id;
    EXPECT_EQ(spectrum.radix_at(gigabits_per_second(400)), 128) << id;
  }
}

TEST(Catalog, TwinPortTransceiversExistForTheQm9700Cages) {
  const Catalog& catalog = bundled_catalog();
  const Switch& qm9700 = catalog.get<Switch>("qm9700");
  EXPECT_EQ(qm9700.radix_at(gigabits_per_second(400)), 64);
  EXPECT_EQ(qm9700.ports_per_cage_at(gigabits_per_second(400)), 2);
  EXPECT_EQ(qm9700.radix_at(gigabits_per_second(100)), 0);
  const Transceiver& twin = catalog.get<Transceiver>("mma4z00-ns");
  EXPECT_EQ(twin.ports, 2);
  EXPECT_EQ(twin.medium, Medium::multimode);
}

TEST(Catalog, MigPlacementsMatchThePublishedTable) {
  const MigProfileSet& h100 = bundled_catalog().get<MigProfileSet>("h100-80gb");
  EXPECT_EQ(h100.memory_slots, 8);
  EXPECT_EQ(h100.compute_slices, 7);
  std::map<int, std::pair<int, std::vector<int>>> by_id;
  for (const auto& profile : h100.profiles)
    by_id[profile.profile_id] = {profile.size_slots, profile.start_slots};
  EXPECT_EQ(by_id[19], (std::pair<int, std::vector<int>>{1, {0, 1, 2, 3, 4, 5, 6}}));
  EXPECT_EQ(by_id[15], (std::pair<int, std::vector<int>>{2, {0, 2, 4, 6}}));
  EXPECT_EQ(by_id[14], (std::pair<int, std::vector<int>>{2, {0, 2, 4}}));
  EXPECT_EQ(by_id[9], (std::pair<int, std::vector<int>>{4, {0, 4}}));
  EXPECT_EQ(by_id[0], (std::pair<int, std::vector<int>>{8, {0}}));
  EXPECT_EQ(bundled_catalog().get<Accelerator>("h100-sxm").mig_profile_set, "h100-80gb");
}

// The worked circuit values in the shared facility figures follow from V x A x sqrt(3) x 0.8.
TEST(Catalog, CircuitUsablePowerMatchesPublishedWorkedValues) {
  const std::string path = std::string(GPUTWIN_SHARED_DIR) + "/data/facility.yaml";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "../shared is absent: " << path;
  const YAML::Node worked = YAML::LoadFile(path)["circuit_power"]["three_phase"]["worked_values"];
  int checked = 0;
  for (const auto& circuit : bundled_catalog().all<Circuit>()) {
    if (circuit.phases != 3) continue;
    for (const auto& value : worked) {
      if (value["voltage_v"].as<double>() == circuit.voltage.base() &&
          value["current_a"].as<double>() == circuit.current.base()) {
        EXPECT_NEAR(in_kilowatts(circuit.usable_power()), value["usable_kw"].as<double>(), 0.01)
            << circuit.info.id;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 4);
}

// The QM9700's two figures differ in what they count: its maximum is "with active cables", its typical "with
// passive cables"; a DGX H100's maximum input powers the modules in its own cages.
TEST(Catalog, PublishedPowerSaysWhetherItCountsTheModulesInThePartsCages) {
  const Catalog& catalog = bundled_catalog();
  const Switch& qm9700 = catalog.get<Switch>("qm9700");
  EXPECT_EQ(qm9700.module_power.max, ModulePowerScope::included);
  EXPECT_EQ(qm9700.module_power.typical, ModulePowerScope::excluded);
  EXPECT_NE(qm9700.module_power.source.find("with passive cables"), std::string::npos);
  EXPECT_EQ(catalog.get<System>("dgx-h100").module_power.typical, ModulePowerScope::included);
  // A switch with only a typical figure: its maximum is that figure, with the same scope. The SN4600C's
  // 466 W is "typical power with passive cables"; the SN2201's 98 W says nothing of cables.
  const Switch& sn4600c = catalog.get<Switch>("sn4600c");
  EXPECT_EQ(sn4600c.module_power.max, ModulePowerScope::excluded);
  EXPECT_EQ(sn4600c.module_power.typical, ModulePowerScope::excluded);
  EXPECT_NE(sn4600c.module_power.source.find("with passive cables"), std::string::npos);
  EXPECT_EQ(catalog.get<Switch>("sn5600").module_power.typical, ModulePowerScope::excluded);
  const Switch& sn2201 = catalog.get<Switch>("sn2201");
  EXPECT_EQ(sn2201.module_power.max, ModulePowerScope::unknown);
  EXPECT_EQ(sn2201.module_power.typical, ModulePowerScope::unknown);
  // A transceiver keeps its published typical beside its maximum (MMA4Z00-NS400: 8 W typical, 9 W max).
  const Transceiver& adapter_side = catalog.get<Transceiver>("mma4z00-ns400");
  EXPECT_DOUBLE_EQ(in_watts(*adapter_side.power_max), 9.0);
  EXPECT_DOUBLE_EQ(in_watts(*adapter_side.power_typical), 8.0);
}

TEST(Catalog, AModuleScopeThatIsNotOneOfTheThreeOrDescribesNoFigureIsAnError) {
  const auto bad_value = parse({{"s.yaml", kSwitch + R"(    power_includes_modules: {power_max: maybe, source: "t"}
)"}});
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.error_text().find("s.yaml:11:41: switches[0].power_includes_modules.power_max:"),
            std::string::npos)
      << bad_value.error_text();
  const auto no_typical = parse({{"s.yaml", kSwitch + R"(    power_includes_modules: {power_typical: excluded, source: "t"}
)"}});
  ASSERT_FALSE(no_typical.ok());
  EXPECT_NE(no_typical.error_text().find("the part has no power_typical for this to describe"),
            std::string::npos)
      << no_typical.error_text();
}

TEST(Catalog, DuplicateIdAcrossFilesNamesBothPlaces) {
  const auto loaded = parse({{"a.yaml", kSwitch}, {"b.yaml", kSwitch}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error_text().find(
                "b.yaml:2:9: switches[0].id: duplicate id 'test-switch', first defined at a.yaml:2"),
            std::string::npos)
      << loaded.error_text();
}

TEST(Catalog, DanglingReferenceIsAnError) {
  const auto loaded = parse({{"s.yaml", R"(systems:
  - id: box
    source: "test"
    accelerator: gpu-that-does-not-exist
    accelerators: 8
    rack_units: 4 U
    power_max: 5 kW
    nics: {compute: {ports: 8, speed: 400 Gb/s}}
)"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error_text().find("s.yaml:4:18: systems[0].accelerator: refers to accelerator "
                                     "'gpu-that-does-not-exist', which no catalog file defines"),
            std::string::npos)
      << loaded.error_text();
}

TEST(Catalog, ReferenceToThePartOfTheWrongKindIsAnError) {
  const auto loaded = parse({{"s.yaml", kSwitch + R"(pdus:
  - {id: p, source: "test", circuit: test-switch}
)"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error_text().find("which is a switch, not a circuit"), std::string::npos)
      << loaded.error_text();
}

TEST(Catalog, EveryErrorInEveryFileIsReported) {
  std::string bad_unit = kSwitch;
  bad_unit.replace(bad_unit.find("1 kW"), 4, "1 kWh");
  std::string no_source = kSwitch;
  no_source.replace(no_source.find("test-switch"), 11, "other");
  no_source.erase(no_source.find("    source: \"test\"\n"), 19);
  const auto loaded =
      parse({{"unit.yaml", bad_unit}, {"source.yaml", no_source}, {"syntax.yaml", "switches: [\n"}});
  ASSERT_FALSE(loaded.ok());
  ASSERT_EQ(loaded.errors().size(), 3u) << loaded.error_text();
  EXPECT_NE(loaded.error_text().find("unit.yaml:10:16: switches[0].power_max: expected a power"),
            std::string::npos);
  EXPECT_NE(loaded.error_text().find("source.yaml:2:5: switches[0].source: missing required field"),
            std::string::npos);
  EXPECT_NE(loaded.error_text().find("syntax.yaml:"), std::string::npos);
}

TEST(Catalog, Nvl72ComputeTraysSpanARackWideScaleUpDomain) {
  for (const char* id : {"gb200-nvl72-tray", "gb300-nvl72-tray"}) {
    const System& tray = bundled_catalog().get<System>(id);
    EXPECT_EQ(tray.accelerators, 4) << id;
    EXPECT_EQ(tray.scale_up_domain, 72) << id;
    EXPECT_EQ(tray.scale_up_domain % tray.accelerators, 0) << id;
    EXPECT_EQ(tray.cpu_sockets, 2) << id;
    ASSERT_EQ(tray.nics.count(NetworkRole::compute), 1u) << id;
    EXPECT_EQ(tray.nics.at(NetworkRole::compute).ports, 4) << id;
    EXPECT_TRUE(tray.nics.count(NetworkRole::storage) && tray.nics.count(NetworkRole::inband)) << id;
  }
  EXPECT_EQ(in_gigabits_per_second(
                bundled_catalog().get<System>("gb200-nvl72-tray").nics.at(NetworkRole::compute).speed),
            400.0);
  EXPECT_EQ(in_gigabits_per_second(
                bundled_catalog().get<System>("gb300-nvl72-tray").nics.at(NetworkRole::compute).speed),
            800.0);
}

std::string tray_with_domain(int accelerators, int domain) {
  return R"(systems:
  - id: tray
    source: "test"
    accelerator: gb200
    accelerators: )" +
         std::to_string(accelerators) + R"(
    scale_up_domain: )" +
         std::to_string(domain) + R"(
    rack_units: 1 U
    power_max: 6 kW
    nics: {compute: {ports: 4, speed: 400 Gb/s}}
)";
}

TEST(Catalog, ScaleUpDomainSpanningSystemsMustBeAWholeMultiple) {
  const auto extended = testing::catalog_with({{"t.yaml", tray_with_domain(4, 72)}});
  EXPECT_EQ(extended.get<System>("tray").scale_up_domain, 72);

  const auto cut = parse({{"t.yaml", tray_with_domain(4, 70)}});
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error_text().find("t.yaml:6:22: systems[0].scale_up_domain: a scale-up domain of 70 GPUs "
                                  "spans systems of 4 accelerators only as a whole multiple of them"),
            std::string::npos)
      << cut.error_text();
  // Smaller than the box (PCIe cards joined in pairs) stays allowed.
  const auto pairs = testing::catalog_with({{"t.yaml", tray_with_domain(8, 2)}});
  EXPECT_EQ(pairs.get<System>("tray").scale_up_domain, 2);
}

TEST(Catalog, RackSystemsAreTraysSwitchTraysAndPowerShelvesInOneRack) {
  const Catalog& catalog = bundled_catalog();
  for (const char* id : {"gb200-nvl72", "gb300-nvl72"}) {
    const RackSystem& rack = catalog.get<RackSystem>(id);
    const System& tray = catalog.get<System>(rack.compute_tray);
    EXPECT_EQ(rack.compute_trays * tray.accelerators, 72) << id;
    EXPECT_EQ(rack.compute_trays * tray.accelerators, tray.scale_up_domain) << id;
    EXPECT_EQ(rack.switch_trays.count, 9) << id;
    EXPECT_EQ(rack.power_shelves.count, 8) << id;
    EXPECT_DOUBLE_EQ(in_kilowatts(rack.power_shelves.rating), 33.0) << id;
    // Six 5.5 kW PSUs make the 33 kW shelf.
    EXPECT_DOUBLE_EQ(in_kilowatts(rack.power_shelves.psu_rating) * rack.power_shelves.psus_per_shelf,
                     in_kilowatts(rack.power_shelves.rating))
        << id;
    EXPECT_LE(rack.occupied_rack_units(tray), rack.rack_units) << id;
    EXPECT_EQ(rack.cooling, CoolingMethod::hybrid) << id;
    EXPECT_GT(rack.heat_to_liquid, 0.5) << id;
    EXPECT_LT(rack.heat_to_liquid, 1.0) << id;
    // The parts' maxima stay within the published or derived rack maximum (rounded to 0.1 kW in the catalog).
    EXPECT_LE(in_kilowatts(tray.power_max * rack.compute_trays + rack.switch_trays.power_max * 9),
              in_kilowatts(rack.power_max) + 0.01)
        << id;
  }
  EXPECT_DOUBLE_EQ(in_rack_units(catalog.get<RackSystem>("gb200-nvl72")
                                     .occupied_rack_units(catalog.get<System>("gb200-nvl72-tray"))),
                   37.0);
  const auto& facility = catalog.get<FacilityDefaults>("default");
  EXPECT_NE(catalog.find<CoolantDistributionUnit>(facility.cdu), nullptr);
  EXPECT_DOUBLE_EQ(catalog.get<Coolant>(facility.coolant).specific_heat_j_per_kg_k, 4186.0);
  EXPECT_EQ(catalog.kind_of("in-rack-cdu-250kw"), "cdu");
  EXPECT_EQ(catalog.kind_of("dc-busbar-nvl72"), "busbar");
}

const std::string kRackSystem = R"(rack_systems:
  - id: half-rack
    source: "test"
    compute_tray: gb200-nvl72-tray
    compute_trays: 16
    switch_trays: {count: 9, rack_units: 1 U, power_max: 400 W}
    power_shelves: {count: 8, rack_units: 1 U, rating: 33 kW}
    rack_units: 30 U
    power_max: 120 kW
    cooling: hybrid
    heat_to_liquid: 0.85
    scale_up: {bandwidth_per_gpu: 900 GB/s}
)";

TEST(Catalog, RackSystemThatMissesItsTraysDomainOrRackIsAnError) {
  std::vector<std::pair<std::string, std::string>> documents;
  for (const auto& entry : std::filesystem::directory_iterator(testing::source_path("data/catalog"))) {
    std::ifstream stream(entry.path());
    std::ostringstream text;
    text << stream.rdbuf();
    documents.emplace_back(entry.path().filename().string(), text.str());
  }
  documents.emplace_back("r.yaml", kRackSystem);
  const auto bad = parse(documents);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error_text().find("r.yaml:5:20: rack_systems[0].compute_trays: 16 trays of gb200-nvl72-tray "
                                  "hold 64 GPUs, but the tray's scale_up_domain is 72"),
            std::string::npos)
      << bad.error_text();
  EXPECT_NE(
      bad.error_text().find("r.yaml:8:17: rack_systems[0].rack_units: the trays, switch trays and power "
                            "shelves take 33 U, more than the 30 U rack"),
      std::string::npos)
      << bad.error_text();
}

TEST(Catalog, MigPlacementPastTheLastSlotIsAnError) {
  const auto loaded = parse({{"m.yaml", R"(mig_profile_sets:
  - id: m
    source: "test"
    memory_slots: 8
    compute_slices: 7
    profiles:
      - {name: "3g", compute_slices: 3, size_slots: 4, start_slots: [0, 6], max_instances: 2}
)"}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error_text().find("placement [6, 10) runs past the 8 memory slots"), std::string::npos)
      << loaded.error_text();
}

TEST(Catalog, UsersExtendTheCatalogWithTheirOwnFolder) {
  const auto dir = std::filesystem::temp_directory_path() / "gputwin-catalog-test";
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "mine.yaml") << kSwitch; }
  const auto loaded = Catalog::load({testing::source_path("data/catalog"), dir.string()});
  ASSERT_TRUE(loaded.ok()) << loaded.error_text();
  EXPECT_NE(loaded.value().find<Switch>("test-switch"), nullptr);
  EXPECT_EQ(loaded.value().kind_of("test-switch"), "switch");
  const auto missing = Catalog::load({(dir / "absent").string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error_text().find("catalog folder does not exist"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A source names a document or a path relative to the repository ("../shared/data/facility.yaml"), never a
// folder of the machine the data was written on: the data ships to other machines.
TEST(BundledData, SourcesNameNoAbsolutePathOfTheWritersMachine) {
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(bundled_data_dir())) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      EXPECT_EQ(line.find("/work/"), std::string::npos)
          << entry.path().string() << ":" << number << ": " << line;
    }
  }
  EXPECT_GT(files, 10);
}

}  // namespace
}  // namespace gputwin
