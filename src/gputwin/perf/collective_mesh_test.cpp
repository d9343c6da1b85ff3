// Collectives on a switchless scale-up mesh (AMD Instinct 8-GPU platforms: each GPU has one Infinity Fabric
// link to each of its 7 peers), selected by architecture from data/perf/collectives-mesh-fabrics.yaml.
#include <gtest/gtest.h>

#include <string>

#include "gputwin/perf/collective_algorithms.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

const testing::PerfSetup& setup() {
  return testing::perf_setup();
}

PerfHardware board(const std::string& accelerator, int gpus) {
  return perf_hardware_of_accelerator(setup().catalog, accelerator, gpus).value();
}

CollectiveEstimate estimate(const PerfHardware& hw, CollectiveOp op, double bytes, int ranks,
                            CollectiveChoice choice = {}) {
  return estimate_collective(hw, setup().collectives, op, ByteSize::from_base(bytes),
                             CollectiveGroup{ranks, ranks}, choice);
}

constexpr double kLarge = 8.0 * (1ULL << 30);

TEST(CollectiveMesh, TheAmdFabricIsReadWithItsSourceAndSelectedByArchitecture) {
  const auto* cdna3 = setup().collectives.mesh_fabric("cdna3");
  ASSERT_NE(cdna3, nullptr);
  EXPECT_EQ(cdna3->peer_links, 7);
  EXPECT_GT(cdna3->efficiency, 0);
  EXPECT_LE(cdna3->efficiency, 1);
  EXPECT_NE(setup().collectives.mesh_fabric("cdna4"), nullptr);
  EXPECT_EQ(setup().collectives.mesh_fabric("hopper"), nullptr);
}

// Per-peer links: a group of r GPUs reaches r - 1 peers at the achieved link rate each.
TEST(CollectiveMesh, RingBandwidthGrowsWithThePeersAGroupReaches) {
  const PerfHardware mi300x = board("mi300x", 8);
  const auto* fabric = setup().collectives.mesh_fabric("cdna3");
  const double link =
      in_gigabytes_per_second(mi300x.scale_up_bandwidth) / fabric->peer_links * fabric->efficiency;
  const CollectiveChoice ring{CollectiveAlgorithm::Ring, CollectiveProtocol::Simple};
  for (int ranks : {2, 4, 8}) {
    const auto topo = collectives::topology_of(mi300x, setup().collectives, CollectiveGroup{ranks, ranks});
    EXPECT_TRUE(topo.mesh);
    EXPECT_FALSE(topo.nvswitch);
    EXPECT_NEAR(topo.intra_gbps, (ranks - 1) * link, 1e-9) << ranks;
    const auto e = estimate(mi300x, CollectiveOp::all_gather, kLarge, ranks, ring);
    EXPECT_EQ(e.bottleneck, "Infinity Fabric mesh");
    EXPECT_NEAR(e.link_busbw_gbps, (ranks - 1) * link, 1e-9);
  }
  // An NVSwitch baseboard gives a group of 4 what it gives a group of 8.
  const PerfHardware h100 = board("h100-sxm", 8);
  EXPECT_DOUBLE_EQ(collectives::topology_of(h100, setup().collectives, CollectiveGroup{4, 4}).intra_gbps,
                   collectives::topology_of(h100, setup().collectives, CollectiveGroup{8, 8}).intra_gbps);
}

TEST(CollectiveMesh, NoSwitchNoNvls) {
  const PerfHardware mi300x = board("mi300x", 8);
  EXPECT_FALSE(
      estimate(mi300x, CollectiveOp::all_reduce, kLarge, 8, {CollectiveAlgorithm::NVLS, {}}).available);
  const auto chosen = estimate(mi300x, CollectiveOp::all_reduce, kLarge, 8);
  EXPECT_NE(chosen.algorithm, "NVLS");
  EXPECT_NE(chosen.algorithm, "NVLSTree");
}

// alltoall: each GPU sends 1/n of its buffer to each peer over that peer's own link.
TEST(CollectiveMesh, AlltoallUsesEveryPeerLinkAtOnce) {
  const PerfHardware mi300x = board("mi300x", 8);
  const auto* fabric = setup().collectives.mesh_fabric("cdna3");
  const double link =
      in_gigabytes_per_second(mi300x.scale_up_bandwidth) / fabric->peer_links * fabric->efficiency;
  const auto e = estimate(mi300x, CollectiveOp::alltoall, kLarge, 8);
  EXPECT_NEAR(e.bandwidth_us, kLarge / 8 / (link * 1e9) * 1e6, 1e-6 * e.bandwidth_us);
}

}  // namespace
}  // namespace gputwin
