#include "gputwin/catalog/gpu_systems.hpp"

#include <gtest/gtest.h>

#include "gputwin/catalog/catalog_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::catalog_with;

// A 4-GPU box that gives no scale_up_domain, and a CPU-only server.
const std::vector<std::pair<std::string, std::string>> kPlainSystems{{"plain.yaml", R"(systems:
  - id: four-gpu-box
    source: "test"
    accelerator: h100-pcie
    accelerators: 4
    rack_units: 2 U
    power_max: 3 kW
    nics: {compute: {ports: 4, speed: 400 Gb/s}}
  - id: cpu-box
    source: "test"
    rack_units: 1 U
    power_max: 1 kW
    nics: {compute: {ports: 1, speed: 100 Gb/s}}
)"}};

TEST(GpuSystems, DomainIsTheBoxUnlessItSpansTrays) {
  const Catalog& catalog = bundled_catalog();
  const System& box = catalog.get<System>("dgx-h100");
  ASSERT_EQ(box.accelerators, 8);
  EXPECT_EQ(gpus_per_scale_up_domain(box), 8);
  EXPECT_EQ(systems_per_scale_up_domain(box), 1);
  EXPECT_FALSE(scale_up_domain_spans_systems(box));

  const System& tray = catalog.get<System>("gb200-nvl72-tray");
  ASSERT_EQ(tray.accelerators, 4);
  EXPECT_EQ(gpus_per_scale_up_domain(tray), 72);
  EXPECT_EQ(systems_per_scale_up_domain(tray), 18);
  EXPECT_TRUE(scale_up_domain_spans_systems(tray));

  // The L40S box's GPUs have no NVLink (scale_up_domain 1): the domain the models place TP in is the box.
  const System& pcie = catalog.get<System>("pcie-8gpu-l40s");
  ASSERT_EQ(pcie.scale_up_domain, 1);
  EXPECT_EQ(gpus_per_scale_up_domain(pcie), 8);
  EXPECT_EQ(systems_per_scale_up_domain(pcie), 1);
}

TEST(GpuSystems, SystemWithoutTheFieldIsItsOwnDomain) {
  const Catalog catalog = catalog_with(kPlainSystems);
  const System& box = catalog.get<System>("four-gpu-box");
  EXPECT_EQ(gpus_per_scale_up_domain(box), 4);
  EXPECT_EQ(systems_per_scale_up_domain(box), 1);
  EXPECT_FALSE(scale_up_domain_spans_systems(box));
  const System& cpu = catalog.get<System>("cpu-box");
  EXPECT_EQ(gpus_per_scale_up_domain(cpu), 1);  // never 0: callers divide by it
  EXPECT_EQ(systems_per_scale_up_domain(cpu), 1);
}

TEST(GpuSystems, RackIdResolvesToItsComputeTrayAndBack) {
  const Catalog& catalog = bundled_catalog();
  const GpuSystemLookup rack = find_gpu_system(catalog, "gb200-nvl72");
  ASSERT_NE(rack.rack, nullptr);
  ASSERT_NE(rack.node, nullptr);
  EXPECT_EQ(rack.node->info.id, "gb200-nvl72-tray");
  EXPECT_TRUE(rack.has_gpus());
  EXPECT_EQ(rack.nodes_per_unit(), 18);
  EXPECT_EQ(rack_system_holding(catalog, *rack.node), rack.rack);
  EXPECT_EQ(find_gpu_system(catalog, "gb300-nvl72").node->info.id, "gb300-nvl72-tray");

  const GpuSystemLookup box = find_gpu_system(catalog, "dgx-h100");
  EXPECT_EQ(box.rack, nullptr);
  EXPECT_EQ(box.node, &catalog.get<System>("dgx-h100"));
  EXPECT_EQ(box.nodes_per_unit(), 1);
  EXPECT_EQ(rack_system_holding(catalog, *box.node), nullptr);

  // The tray named alone: the system itself, not its rack.
  const GpuSystemLookup tray = find_gpu_system(catalog, "gb200-nvl72-tray");
  EXPECT_EQ(tray.rack, nullptr);
  EXPECT_EQ(tray.nodes_per_unit(), 1);

  const GpuSystemLookup unknown = find_gpu_system(catalog, "no-such-system");
  EXPECT_EQ(unknown.node, nullptr);
  EXPECT_FALSE(unknown.has_gpus());
  const Catalog plain = catalog_with(kPlainSystems);
  const GpuSystemLookup cpu = find_gpu_system(plain, "cpu-box");
  ASSERT_NE(cpu.node, nullptr);
  EXPECT_FALSE(cpu.has_gpus());
}

}  // namespace
}  // namespace gputwin
