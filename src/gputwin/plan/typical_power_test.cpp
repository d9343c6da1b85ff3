// Every system's typical power from the power model reaches the catalog and the design: a published draw for
// DGX H100, modelled elsewhere, none for a server without GPUs; plan's typical IT power is then below its
// maximum and says where it comes from.
#include "gputwin/plan/typical_power.hpp"

#include <gtest/gtest.h>

#include "gputwin/plan/load_design.hpp"

namespace gputwin {
namespace {

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

const Catalog& bundled() {
  static const Catalog catalog = load_catalog({{}, true}).value();
  return catalog;
}

TEST(TypicalPower, EverySystemWithGpusGetsOneWithItsBasis) {
  const System& dgx = bundled().get<System>("dgx-h100");
  ASSERT_TRUE(dgx.power_typical.has_value());
  ASSERT_TRUE(dgx.typical_note.has_value());
  EXPECT_EQ(dgx.typical_note->basis, "published");
  EXPECT_DOUBLE_EQ(dgx.power_typical->base(), 7750);
  for (const System& system : bundled().all<System>()) {
    EXPECT_EQ(system.power_typical.has_value(), !system.accelerator.empty()) << system.info.id;
    if (system.typical_note) {
      EXPECT_FALSE(system.typical_note->source.empty()) << system.info.id;
    }
  }
  for (const RackSystem& rack : bundled().all<RackSystem>()) {
    ASSERT_TRUE(rack.power_typical.has_value()) << rack.info.id;
    EXPECT_LT(*rack.power_typical, rack.power_max) << rack.info.id;
  }
}

TEST(TypicalPower, AFigureTheCatalogFileGivesIsKept) {
  auto catalog = Catalog::load({source_path("data/catalog")});
  ASSERT_TRUE(catalog.ok());
  Catalog c = std::move(catalog).value();
  const auto first =
      c.fill_typical_power("dgx-h100", Power::from_base(9000), {"modelled", "derived", "s", {}, {}});
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first.value());
  const auto second =
      c.fill_typical_power("dgx-h100", Power::from_base(8000), {"modelled", "derived", "s", {}, {}});
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second.value());
  EXPECT_DOUBLE_EQ(c.get<System>("dgx-h100").power_typical->base(), 9000);
  const auto over =
      c.fill_typical_power("dgx-b200", Power::from_base(20000), {"published", "read", "s", {}, {}});
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.errors().front().field, "dgx-b200.power_typical");
  EXPECT_GT(over.errors().front().where.line, 0);
}

TEST(TypicalPower, PlanTypicalPowerComesFromTheModelNotTheMaximum) {
  const auto design = load_design(source_path("examples/dgx-h100-superpod-1su.yaml"), bundled());
  ASSERT_TRUE(design.ok()) << design.error_text();
  const PowerSummary& power = design.value().cluster.power;
  EXPECT_FALSE(power.typical_from_max);
  ASSERT_TRUE(power.node_typical.has_value());
  EXPECT_EQ(power.node_typical_basis, "published");
  EXPECT_LT(power.it_typical, power.it_max);
  // The compute nodes' share falls from 10.2 to 7.75 kW each; switches and servers keep theirs.
  const int nodes = design.value().cluster.nodes;
  EXPECT_NEAR((power.it_max - power.it_typical).base(), nodes * (10200.0 - 7750.0),
              0.2 * nodes * (10200.0 - 7750.0));
  for (const Warning& w : design.value().cluster.warnings) EXPECT_NE(w.code, "typical-power-unknown");
}

}  // namespace
}  // namespace gputwin
