// MIG rules from the NVIDIA MIG User Guide ("Supported MIG Profiles", A100-40GB placements), checked on the
// catalog's profile sets (data/catalog/mig.yaml): layouts, and the ranking of starts.
#include "gputwin/catalog/mig_rules.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "gputwin/catalog/catalog_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;

const MigProfileSet& a100_40gb() {
  return bundled_catalog().get<MigProfileSet>("a100-40gb");
}

int profile(const MigProfileSet& set, const std::string& name) {
  const auto index = mig_profile_index(set, name);
  if (!index) throw std::invalid_argument("test: no profile " + name);
  return *index;
}

std::string layout_error(const std::string& text) {
  try {
    (void)parse_mig_layout(text, a100_40gb());
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(MigLayout, ValidLayoutsGetTheirStarts) {
  const MigLayout layout = parse_mig_layout("3g.20gb+2g.10gb+1g.5gb+1g.5gb", a100_40gb());
  ASSERT_EQ(layout.instances.size(), 4u);
  EXPECT_EQ(layout.instances[0], (MigInstance{profile(a100_40gb(), "2g.10gb"), 0, false}));
  EXPECT_EQ(layout.instances[1], (MigInstance{profile(a100_40gb(), "1g.5gb"), 2, false}));
  EXPECT_EQ(layout.instances[2], (MigInstance{profile(a100_40gb(), "1g.5gb"), 3, false}));
  EXPECT_EQ(layout.instances[3], (MigInstance{profile(a100_40gb(), "3g.20gb"), 4, false}));

  const MigLayout halves = parse_mig_layout("3g.20gb+4g.20gb", a100_40gb());  // order written does not matter
  EXPECT_EQ(halves.instances[0].start, 0);
  EXPECT_EQ(halves.instances[0].profile, profile(a100_40gb(), "4g.20gb"));
  EXPECT_EQ(halves.instances[1].start, 4);

  const MigLayout media = parse_mig_layout("1g.5gb+me+1g.5gb@6", a100_40gb());
  ASSERT_EQ(media.instances.size(), 2u);
  EXPECT_EQ(media.instances[1], (MigInstance{profile(a100_40gb(), "1g.5gb"), 6, false}));
}

TEST(MigLayout, InvalidLayoutsSayWhy) {
  EXPECT_NE(layout_error("3g.20gb+3g.20gb+1g.5gb").find("needs 9 memory slots; one a100-40gb GPU has 8"),
            std::string::npos);
  EXPECT_NE(layout_error("4g.20gb+4g.20gb").find("at most 1 4g.20gb"), std::string::npos);
  EXPECT_NE(layout_error("7g.40gb+1g.5gb").find("needs 8 compute slices"), std::string::npos);
  EXPECT_NE(layout_error("2g.10gb@2+4g.20gb").find("no valid placement"), std::string::npos);
  EXPECT_NE(layout_error("1g.5gb@7").find("no valid placement"), std::string::npos);
  EXPECT_NE(
      layout_error("5g.20gb").find("'5g.20gb' is not a MIG profile of a100-40gb; its profiles are 1g.5gb"),
      std::string::npos);
  EXPECT_NE(layout_error("3g.20gb++1g.5gb").find("empty profile name"), std::string::npos);
  EXPECT_NE(layout_error("1g.5gb@x").find("expected a start slot"), std::string::npos);
}

TEST(MigRules, ThreeSliceStartRankedToKeepTheFirstHalfForA4g) {
  EXPECT_EQ(mig_ranked_starts(a100_40gb(), {}, profile(a100_40gb(), "3g.20gb")), (std::vector<int>{4, 0}));
  const std::vector<MigInstance> four_at_zero = {{profile(a100_40gb(), "4g.20gb"), 0, true}};
  EXPECT_FALSE(mig_can_create(a100_40gb(), four_at_zero, profile(a100_40gb(), "3g.20gb"), 0));
  EXPECT_TRUE(mig_can_create(a100_40gb(), four_at_zero, profile(a100_40gb(), "3g.20gb"), 4));
  EXPECT_EQ(mig_max_extra_compute(a100_40gb(), four_at_zero), 3);
}

}  // namespace
}  // namespace gputwin
