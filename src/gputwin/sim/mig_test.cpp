// MIG placement facts from the NVIDIA MIG User Guide ("Supported MIG Profiles", A100-40GB placements),
// checked on the catalog's profile sets (data/catalog/mig.yaml).
#include "gputwin/sim/mig.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/sim/mig_pool.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;

const MigProfileSet& a100_40gb() {
  return bundled_catalog().get<MigProfileSet>("a100-40gb");
}
const MigProfileSet& a100_80gb() {
  return bundled_catalog().get<MigProfileSet>("a100-80gb");
}

int profile(const MigProfileSet& set, const std::string& name) {
  const auto index = mig_profile_index(set, name);
  if (!index) throw std::invalid_argument("test: no profile " + name);
  return *index;
}

// Places `name` where best_start says and returns the start (-1 when it cannot be placed).
int place_best(MigGpu& gpu, const std::string& name) {
  const int p = profile(a100_40gb(), name);
  const auto start = gpu.best_start(p);
  if (!start) return -1;
  gpu.place(p, *start);
  return *start;
}

TEST(MigGpu, AfterA4gAtSlot0A3gFitsAtSlot4) {
  MigGpu gpu(a100_40gb());
  gpu.place(profile(a100_40gb(), "4g.20gb"), 0);
  EXPECT_TRUE(gpu.can_create(profile(a100_40gb(), "3g.20gb"), 4));
  EXPECT_FALSE(gpu.can_create(profile(a100_40gb(), "3g.20gb"), 0));  // slots 0-3 are the 4g's
  EXPECT_EQ(place_best(gpu, "3g.20gb"), 4);
  EXPECT_EQ(gpu.busy_compute_slices(), 7);
  EXPECT_EQ(gpu.usable_compute_slices(), 0);
  EXPECT_EQ(gpu.stranded_compute_slices(), 0);
}

TEST(MigGpu, SevenOneSliceInstancesFitButNotAnEighth) {
  MigGpu gpu(a100_40gb());
  std::set<int> starts;
  for (int i = 0; i < 7; ++i) starts.insert(place_best(gpu, "1g.5gb"));
  EXPECT_EQ(starts, (std::set<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(place_best(gpu, "1g.5gb"), -1);
  EXPECT_EQ(gpu.busy_compute_slices(), 7);
}

TEST(MigGpu, SlotSevenIsNeverAOneSliceStart) {
  const MigGpu gpu(a100_40gb());
  EXPECT_FALSE(gpu.can_create(profile(a100_40gb(), "1g.5gb"), 7));
  EXPECT_FALSE(gpu.can_create(profile(a100_40gb(), "1g.5gb+me"), 7));
  EXPECT_TRUE(gpu.can_create(profile(a100_40gb(), "1g.5gb"), 6));
}

TEST(MigGpu, TwoThreeSliceInstancesStrandTheSeventhSlice) {
  MigGpu gpu(a100_40gb());
  gpu.place(profile(a100_40gb(), "3g.20gb"), 0);
  gpu.place(profile(a100_40gb(), "3g.20gb"), 4);
  EXPECT_EQ(gpu.busy_compute_slices(), 6);
  EXPECT_EQ(gpu.stranded_compute_slices(), 1);  // all 8 memory slots are taken
  for (const auto& p : a100_40gb().profiles)
    EXPECT_FALSE(gpu.best_start(profile(a100_40gb(), p.name))) << p.name;
}

TEST(MigGpu, ThreeSliceInstanceGoesToSlot4SoA4gStillFits) {
  MigGpu gpu(a100_40gb());
  EXPECT_EQ(place_best(gpu, "3g.20gb"), 4);  // at 0 it would strand a slice and block the 4g.20gb
  EXPECT_EQ(gpu.stranded_compute_slices(), 0);
  EXPECT_EQ(place_best(gpu, "4g.20gb"), 0);

  MigGpu wrong(a100_40gb());
  wrong.place(profile(a100_40gb(), "3g.20gb"), 0);
  EXPECT_EQ(wrong.stranded_compute_slices(), 1);  // slots 4-7 hold at most 3 more slices
  EXPECT_FALSE(wrong.best_start(profile(a100_40gb(), "4g.20gb")));
}

TEST(MigGpu, OneSliceInstanceKeepsTheFirstHalfFree) {
  MigGpu gpu(a100_40gb());
  EXPECT_EQ(place_best(gpu, "1g.5gb"), 6);  // slots 0-3 stay free for a 4g.20gb
  EXPECT_EQ(place_best(gpu, "4g.20gb"), 0);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), 4);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), 5);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), -1);  // 7 compute slices in use
}

TEST(MigGpu, WholeGpuProfileOnlyAtZeroAndAlone) {
  MigGpu gpu(a100_40gb());
  EXPECT_EQ(place_best(gpu, "7g.40gb"), 0);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), -1);
  gpu.release(profile(a100_40gb(), "7g.40gb"), 0);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), 6);
  EXPECT_EQ(place_best(gpu, "7g.40gb"), -1);
}

TEST(MigGpu, InstanceLimitsPerProfile) {
  MigGpu gpu(a100_40gb());
  EXPECT_NE(place_best(gpu, "1g.5gb+me"), -1);
  EXPECT_EQ(place_best(gpu, "1g.5gb+me"), -1);  // one media-extension instance per GPU
  MigGpu pairs(a100_40gb());
  for (int i = 0; i < 3; ++i) EXPECT_NE(place_best(pairs, "2g.10gb"), -1);
  EXPECT_EQ(place_best(pairs, "2g.10gb"), -1);  // starts 0, 2, 4 only
  EXPECT_EQ(place_best(pairs, "1g.10gb"), 6);   // 2g+2g+2g+1g: all 7 slices
  EXPECT_EQ(pairs.stranded_compute_slices(), 0);
}

TEST(MigGpu, ReleaseFreesTheSlots) {
  MigGpu gpu(a100_40gb());
  gpu.place(profile(a100_40gb(), "4g.20gb"), 0);
  EXPECT_THROW(gpu.place(profile(a100_40gb(), "2g.10gb"), 2), std::logic_error);
  gpu.release(profile(a100_40gb(), "4g.20gb"), 0);
  EXPECT_TRUE(gpu.can_create(profile(a100_40gb(), "2g.10gb"), 2));
  EXPECT_THROW(gpu.release(profile(a100_40gb(), "4g.20gb"), 0), std::logic_error);
}

TEST(MigGpu, FixedLayoutOnlyHandsOutItsInstances) {
  MigGpu gpu(a100_40gb(), parse_mig_layout("3g.20gb+2g.10gb+1g.5gb+1g.5gb", a100_40gb()));
  EXPECT_EQ(gpu.usable_compute_slices(), 7);
  EXPECT_EQ(place_best(gpu, "2g.10gb"), 0);
  EXPECT_EQ(place_best(gpu, "2g.10gb"), -1);  // dynamic mode would make another at 2; the layout has one
  EXPECT_EQ(place_best(gpu, "4g.20gb"), -1);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), 2);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), 3);
  EXPECT_EQ(place_best(gpu, "1g.5gb"), -1);
  EXPECT_EQ(gpu.busy_compute_slices(), 4);
  EXPECT_EQ(gpu.usable_compute_slices(), 3);  // the free 3g.20gb
  gpu.release(profile(a100_40gb(), "2g.10gb"), 0);
  EXPECT_EQ(place_best(gpu, "2g.10gb"), 0);  // the instance stays after its job ends
  EXPECT_FALSE(gpu.can_create(profile(a100_40gb(), "1g.5gb"), 6));
}

TEST(MigGpu, FixedLayoutOfTwoHalvesStrandsASlice) {
  const MigGpu gpu(a100_40gb(), parse_mig_layout("3g.20gb+3g.20gb", a100_40gb()));
  EXPECT_EQ(gpu.usable_compute_slices(), 6);
  EXPECT_EQ(gpu.stranded_compute_slices(), 1);
}

TEST(MigPool, EightGpusHoldFiftySixOneSliceInstances) {
  MigPool pool(a100_80gb(), 8);
  const int one_slice = profile(a100_80gb(), "1g.10gb");
  for (int i = 0; i < 56; ++i) ASSERT_TRUE(pool.allocate(one_slice)) << i;
  EXPECT_FALSE(pool.allocate(one_slice));
  EXPECT_EQ(pool.busy_compute_slices(), 56);
  EXPECT_EQ(pool.total_compute_slices(), 56);
  EXPECT_EQ(pool.stranded_compute_slices(), 0);
}

TEST(MigPool, BestFitKeepsEmptyGpusWhole) {
  MigPool pool(a100_80gb(), 2);
  const auto first = pool.allocate(profile(a100_80gb(), "1g.10gb"));
  const auto second = pool.allocate(profile(a100_80gb(), "2g.20gb"));
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->gpu, 0);
  EXPECT_EQ(second->gpu, 0);  // the used GPU, not the empty one
  const auto whole = pool.allocate(profile(a100_80gb(), "7g.80gb"));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->gpu, 1);
  EXPECT_EQ(pool.busy_compute_slices(), 10);
  EXPECT_EQ(pool.usable_compute_slices(), 4);
  pool.release(*whole);
  pool.release(*first);
  pool.release(*second);
  EXPECT_EQ(pool.busy_compute_slices(), 0);
  EXPECT_EQ(pool.usable_compute_slices(), 14);
}

TEST(MigPool, KeepsSlotsForTheLargeProfiles) {
  MigPool pool(a100_80gb(), 2);
  const int half = profile(a100_80gb(), "3g.40gb");
  const int four = profile(a100_80gb(), "4g.40gb");
  const auto a = pool.allocate(four);  // GPU 0, slots 0-3
  const auto b = pool.allocate(half);  // GPU 0 at 4: fills it
  const auto c = pool.allocate(half);  // GPU 1 at 4
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(b->gpu, 0);
  EXPECT_EQ(b->start, 4);
  EXPECT_EQ(c->gpu, 1);
  EXPECT_EQ(c->start, 4);
  EXPECT_EQ(pool.stranded_compute_slices(), 0);
  ASSERT_TRUE(pool.allocate(four));  // GPU 1's slots 0-3 were kept for it
}

TEST(MigPool, FixedLayoutHostsOnlyItsProfiles) {
  MigPool pool(a100_80gb(), 3, parse_mig_layout("3g.40gb+2g.20gb+1g.10gb+1g.10gb", a100_80gb()));
  EXPECT_TRUE(pool.can_ever_host(profile(a100_80gb(), "2g.20gb")));
  EXPECT_FALSE(pool.can_ever_host(profile(a100_80gb(), "4g.40gb")));
  EXPECT_FALSE(pool.allocate(profile(a100_80gb(), "4g.40gb")));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool.allocate(profile(a100_80gb(), "3g.40gb")));
  EXPECT_FALSE(pool.allocate(profile(a100_80gb(), "3g.40gb")));
  EXPECT_EQ(pool.busy_compute_slices(), 9);
  EXPECT_EQ(pool.usable_compute_slices(), 12);
  MigPool dynamic(a100_80gb(), 1);
  EXPECT_TRUE(dynamic.can_ever_host(profile(a100_80gb(), "4g.40gb")));
}

}  // namespace
}  // namespace gputwin
