// Collectives on a scale-up domain larger than a node (GB200 NVL72: 18 trays of 4 GPUs, one 72-GPU NVLink
// domain). Until the catalog carries the tray systems, the trays are built by hand from the gb200
// accelerator.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "gputwin/perf/collective_algorithms.hpp"
#include "gputwin/perf/collective_sweep.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

const testing::PerfSetup& setup() {
  return testing::perf_setup();
}

// `trays` GB200 compute trays of 4 GPUs, one 400 Gb/s NIC per GPU, in NVLink domains of `domain` GPUs.
PerfHardware gb200_trays(int trays, int domain = 72) {
  PerfHardware hw = perf_hardware_of_accelerator(setup().catalog, "gb200", 4).value();
  hw.nodes = trays;
  hw.scale_up_domain = domain;
  hw.nics_per_node = 4;
  hw.nic_speed = gigabits_per_second(400);
  hw.fabric_tiers = 2;
  return checked_domain(hw).value();
}

// The same GPUs as if a node were a whole 72-GPU domain with its 72 NICs: what NCCL sees once it fuses an
// NVLink clique's topologies into one.
PerfHardware gb200_as_72_gpu_nodes(int nodes) {
  PerfHardware hw = perf_hardware_of_accelerator(setup().catalog, "gb200", 72).value();
  hw.nodes = nodes;
  hw.nics_per_node = 72;
  hw.nic_speed = gigabits_per_second(400);
  hw.fabric_tiers = 2;
  return hw;
}

CollectiveEstimate estimate(const PerfHardware& hw, CollectiveOp op, double bytes, CollectiveGroup group,
                            CollectiveChoice choice = {}) {
  return estimate_collective(hw, setup().collectives, op, ByteSize::from_base(bytes), group, choice);
}

constexpr double kLarge = 8.0 * (1ULL << 30);

TEST(CollectiveDomain, AGroupOfTheWholeNvl72RunsNvlsOnNvlinkAcrossTrays) {
  const PerfHardware trays = gb200_trays(18);
  const auto e = estimate(trays, CollectiveOp::all_reduce, kLarge, CollectiveGroup{72, 4});
  EXPECT_EQ(e.algorithm, "NVLS");
  EXPECT_EQ(e.bottleneck.rfind("NVLink", 0), 0u) << e.bottleneck;
  // The same trays taken as separate domains (the old node = domain rule) put the 72 ranks on the NICs.
  PerfHardware tray_domains = trays;
  tray_domains.scale_up_domain = 4;
  const auto over_nics = estimate(tray_domains, CollectiveOp::all_reduce, kLarge, CollectiveGroup{72, 4});
  EXPECT_EQ(over_nics.bottleneck, "NIC");
  EXPECT_GT(e.busbw_gbps, 3 * over_nics.busbw_gbps);
}

// NCCL fuses an NVLink clique into one node: every operation, size and algorithm costs the same on 18 trays
// of one domain as on one 72-GPU node, and on 36 trays as on two such nodes.
TEST(CollectiveDomain, A72GpuDomainOfTraysCostsWhatOne72GpuNodeCosts) {
  for (int domains : {1, 2}) {
    const PerfHardware trays = gb200_trays(18 * domains);
    const PerfHardware nodes = gb200_as_72_gpu_nodes(domains);
    for (int op = 0; op < 7; ++op) {
      for (double bytes : {1024.0, 1048576.0, 67108864.0, kLarge}) {
        const auto o = static_cast<CollectiveOp>(op);
        const auto a = estimate(trays, o, bytes, CollectiveGroup{72 * domains, 4});
        const auto b = estimate(nodes, o, bytes, CollectiveGroup{72 * domains, 72});
        EXPECT_EQ(a.algorithm, b.algorithm) << collective_name(o) << " " << bytes << " B, " << domains;
        EXPECT_EQ(a.protocol, b.protocol) << collective_name(o) << " " << bytes << " B, " << domains;
        EXPECT_DOUBLE_EQ(a.time_us, b.time_us) << collective_name(o) << " " << bytes << " B, " << domains;
      }
    }
  }
}

TEST(CollectiveDomain, AcrossDomainsNvlsTreeOrRingGoOverTheNicsAndNvlsDoesNot) {
  const PerfHardware trays = gb200_trays(36);
  const CollectiveGroup group{144, 4};
  const auto nvls = estimate(trays, CollectiveOp::all_reduce, kLarge, group, {CollectiveAlgorithm::NVLS, {}});
  EXPECT_FALSE(nvls.available);
  const auto nvls_tree =
      estimate(trays, CollectiveOp::all_reduce, kLarge, group, {CollectiveAlgorithm::NVLSTree, {}});
  EXPECT_TRUE(nvls_tree.available);
  const auto one_domain = estimate(trays, CollectiveOp::all_reduce, kLarge, CollectiveGroup{72, 4});
  const auto two = estimate(trays, CollectiveOp::all_reduce, kLarge, group);
  EXPECT_TRUE(two.algorithm == "NVLSTree" || two.algorithm == "Ring" || two.algorithm == "Tree")
      << two.algorithm;
  EXPECT_LE(two.algbw_gbps, one_domain.algbw_gbps);
  // Small messages pay network hops between the domains.
  EXPECT_GT(estimate(trays, CollectiveOp::all_reduce, 1024, group).latency_us,
            estimate(trays, CollectiveOp::all_reduce, 1024, CollectiveGroup{72, 4}).latency_us);
}

// A ring crosses each domain boundary once per channel: a domain's 72 NICs are not all a ring's.
TEST(CollectiveDomain, ARingUsesOneNicPerChannelAtADomainBoundary) {
  const PerfHardware trays = gb200_trays(36);
  const auto topo = collectives::topology_of(trays, setup().collectives, CollectiveGroup{144, 4});
  EXPECT_EQ(topo.domains, 2);
  EXPECT_EQ(topo.ranks_per_domain, 72);
  EXPECT_EQ(topo.nics_used, 72);
  EXPECT_LT(topo.channels, topo.nics_used);
  EXPECT_DOUBLE_EQ(topo.inter_gbps * topo.nics_used, topo.all_nics_gbps * topo.channels);
}

TEST(CollectiveDomain, TensorParallelOverTwoTraysIsNvlinkUnlessTheGroupIsSplitOverDomains) {
  const PerfHardware trays = gb200_trays(18);
  const auto inside = estimate(trays, CollectiveOp::all_reduce, kLarge, CollectiveGroup{8, 4, 8});
  EXPECT_EQ(inside.bottleneck.rfind("NVLink", 0), 0u) << inside.bottleneck;
  const auto split = estimate(trays, CollectiveOp::all_reduce, kLarge, CollectiveGroup{8, 4, 4});
  EXPECT_EQ(split.bottleneck, "NIC");
  EXPECT_GT(inside.busbw_gbps, split.busbw_gbps);
}

// alltoall leaves through the NICs only for peers outside the domain.
TEST(CollectiveDomain, AlltoallLeavesThroughNicsOnlyOutsideTheDomain) {
  const PerfHardware trays = gb200_trays(36);
  const auto inside = estimate(trays, CollectiveOp::alltoall, kLarge, CollectiveGroup{72, 4});
  EXPECT_EQ(inside.bottleneck, "NVLink");
  const auto across = estimate(trays, CollectiveOp::alltoall, kLarge, CollectiveGroup{144, 4});
  const auto topo = collectives::topology_of(trays, setup().collectives, CollectiveGroup{144, 4});
  // Half of each GPU's data leaves the domain: (144 - 72) / 144 of S over its own NIC.
  const double nic_rate = topo.all_nics_gbps / 72;
  const double expected_algbw = 1.0 / std::max(71.0 / 144 / topo.intra_gbps, 72.0 / 144 / nic_rate);
  EXPECT_NEAR(across.bandwidth_us, kLarge / (expected_algbw * 1e9) * 1e6, 1e-6 * across.bandwidth_us);
}

// PAT needs one rank per NCCL node: one per domain, not one per tray.
TEST(CollectiveDomain, PatNeedsOneRankPerDomain) {
  const PerfHardware trays = gb200_trays(36);
  const CollectiveChoice pat{CollectiveAlgorithm::PAT, {}};
  EXPECT_FALSE(estimate(trays, CollectiveOp::all_gather, 1 << 20, CollectiveGroup{2, 1}, pat).available);
  EXPECT_TRUE(estimate(trays, CollectiveOp::all_gather, 1 << 20, CollectiveGroup{2, 1, 1}, pat).available);
}

// LL128 is NCCL's default on NVLink paths: between trays of one domain too.
TEST(CollectiveDomain, Ll128StaysEnabledBetweenTraysOfADomain) {
  const PerfHardware trays = gb200_trays(18);
  // Ring forced, protocol left to NCCL's choice among the enabled ones.
  const CollectiveChoice ring{CollectiveAlgorithm::Ring, {}};
  bool ll128 = false;
  for (double bytes = 1024; bytes <= kLarge; bytes *= 2)
    ll128 =
        ll128 ||
        estimate(trays, CollectiveOp::all_reduce, bytes, CollectiveGroup{72, 4}, ring).protocol == "LL128";
  EXPECT_TRUE(ll128);
}

TEST(CollectiveDomain, RanksPerDomainDefaultsToConsecutiveNodes) {
  const PerfHardware trays = gb200_trays(36);
  EXPECT_EQ(ranks_per_domain(trays, CollectiveGroup{144, 4}), 72);
  EXPECT_EQ(ranks_per_domain(trays, CollectiveGroup{36, 1}), 18);
  EXPECT_EQ(ranks_per_domain(trays, CollectiveGroup{8, 4}), 8);
  EXPECT_EQ(ranks_per_domain(trays, CollectiveGroup{8, 4, 4}), 4);
  const CollectiveGroup whole = consecutive_group(trays, 100);
  EXPECT_EQ(whole.ranks_per_node, 4);
  EXPECT_EQ(whole.ranks_per_domain, 72);
  // On an 8-GPU node the domain is the node.
  const PerfHardware dgx = perf_hardware_of_system(setup().catalog, "dgx-h100", 4).value();
  EXPECT_EQ(ranks_per_domain(dgx, CollectiveGroup{32, 8}), 8);
  EXPECT_EQ(consecutive_group(dgx, 32).ranks_per_domain, 8);
}

// nccl-tests across trays of one NVL72 needs no NICs; across two NVL72s it does.
TEST(CollectiveDomain, AGroupNeedsNicsOnlyWhenItLeavesTheDomain) {
  PerfHardware no_nics = gb200_trays(36);
  no_nics.nics_per_node = 0;
  const CollectiveGroup inside = nccl_tests_group(no_nics, 72, 0);
  EXPECT_EQ(inside.ranks_per_node, 4);
  EXPECT_EQ(ranks_per_domain(no_nics, inside), 72);
  EXPECT_THROW((void)nccl_tests_group(no_nics, 144, 0), std::invalid_argument);
  EXPECT_NO_THROW((void)nccl_tests_group(gb200_trays(36), 144, 0));
}

TEST(CollectiveDomain, ADomainThatDoesNotHoldWholeNodesIsAnError) {
  PerfHardware hw = perf_hardware_of_accelerator(setup().catalog, "gb200", 4).value();
  hw.gpus_per_node = 5;
  hw.scale_up_domain = 72;
  const auto checked = checked_domain(hw);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.errors().front().message.find("does not hold whole nodes of 5 GPUs"), std::string::npos);
}

}  // namespace
}  // namespace gputwin
