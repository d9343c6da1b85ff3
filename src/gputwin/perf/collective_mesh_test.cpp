// Collectives on a switchless scale-up mesh (AMD Instinct 8-GPU platforms: each GPU has one Infinity Fabric
// link to each of its 7 peers, selected by architecture; NVIDIA's HGX H100 4-GPU board: 6 NVLink links to each
// of 3 peers, selected by catalog system), from data/perf/collectives-mesh-fabrics.yaml.
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
  const auto* cdna3 = setup().collectives.mesh_fabric("", "cdna3");
  ASSERT_NE(cdna3, nullptr);
  EXPECT_EQ(cdna3->peer_links, 7);
  ASSERT_TRUE(cdna3->efficiency.has_value());
  EXPECT_GT(*cdna3->efficiency, 0);
  EXPECT_LE(*cdna3->efficiency, 1);
  EXPECT_NE(setup().collectives.mesh_fabric("", "cdna4"), nullptr);
  EXPECT_EQ(setup().collectives.mesh_fabric("dgx-h100", "hopper"), nullptr);
}

// Per-peer links: a group of r GPUs reaches r - 1 peers at the achieved link rate each.
TEST(CollectiveMesh, RingBandwidthGrowsWithThePeersAGroupReaches) {
  const PerfHardware mi300x = board("mi300x", 8);
  const auto* fabric = setup().collectives.mesh_fabric("", "cdna3");
  const double link =
      in_gigabytes_per_second(mi300x.scale_up_bandwidth) / fabric->peer_links * fabric->efficiency.value();
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
  const auto* fabric = setup().collectives.mesh_fabric("", "cdna3");
  const double link =
      in_gigabytes_per_second(mi300x.scale_up_bandwidth) / fabric->peer_links * fabric->efficiency.value();
  const auto e = estimate(mi300x, CollectiveOp::alltoall, kLarge, 8);
  EXPECT_NEAR(e.bandwidth_us, kLarge / 8 / (link * 1e9) * 1e6, 1e-6 * e.bandwidth_us);
}

// The 4-GPU H100 board is chosen by its catalog system, not by the GPU: an H100 on an NVSwitch board keeps
// the switch. It has no efficiency of its own (the NCCL model's NVLink efficiency applies).
TEST(CollectiveMesh, TheFourGpuH100BoardIsAnNvlinkMeshSelectedBySystem) {
  const auto* board4 = setup().collectives.mesh_fabric("hgx-h100-4gpu", "hopper");
  ASSERT_NE(board4, nullptr);
  EXPECT_EQ(board4->peer_links, 3);
  EXPECT_EQ(board4->link, "NVLink");
  EXPECT_FALSE(board4->efficiency.has_value());
  EXPECT_EQ(setup().collectives.mesh_fabric("hgx-h100-8gpu", "hopper"), nullptr);
}

// Hand-worked: an H100 has 900 GB/s of NVLink (450 GB/s one way); on the 4-GPU board a pair shares 6 of each
// GPU's 18 links, 150 GB/s one way, so TP 2 gets a third of what an NVSwitch board gives it and TP 4 (three
// peers at once) all of it; no switch, so no NVLS.
TEST(CollectiveMesh, TpTwoOnTheFourGpuBoardGetsAThirdOfTheSwitchedBandwidth) {
  const PerfHardware board4 = perf_hardware_of_system(setup().catalog, "hgx-h100-4gpu", 1).value();
  const PerfHardware switched = perf_hardware_of_system(setup().catalog, "dgx-h100", 1).value();
  const double efficiency = setup().collectives.nvlink_efficiency;
  const auto topo = [&](const PerfHardware& hw, int ranks) {
    return collectives::topology_of(hw, setup().collectives, CollectiveGroup{ranks, ranks});
  };
  EXPECT_NEAR(topo(board4, 2).intra_gbps, 150 * efficiency, 1e-9);
  EXPECT_NEAR(topo(switched, 2).intra_gbps, 450 * efficiency, 1e-9);
  EXPECT_NEAR(topo(board4, 4).intra_gbps, 450 * efficiency, 1e-9);
  EXPECT_TRUE(topo(board4, 2).mesh);
  EXPECT_FALSE(topo(board4, 4).nvswitch);
  const CollectiveChoice ring{CollectiveAlgorithm::Ring, CollectiveProtocol::Simple};
  const auto e = estimate_collective(board4, setup().collectives, CollectiveOp::all_gather,
                                     ByteSize::from_base(kLarge), CollectiveGroup{2, 2}, ring);
  EXPECT_EQ(e.bottleneck, "NVLink mesh");
  EXPECT_NEAR(e.link_busbw_gbps, 150 * efficiency, 1e-9);
  EXPECT_FALSE(estimate_collective(board4, setup().collectives, CollectiveOp::all_reduce,
                                   ByteSize::from_base(kLarge), CollectiveGroup{4, 4},
                                   {CollectiveAlgorithm::NVLS, {}})
                   .available);
}

}  // namespace
}  // namespace gputwin
