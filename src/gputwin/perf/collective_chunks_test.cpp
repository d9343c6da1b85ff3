// Chunks, slices and threads of one operation (enqueue.cc calcCollChunking, topoGetAlgoInfo) and the
// store-and-forward fill of a rooted Simple chain (perf/collective_chunks.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/nccl_tests_loop.hpp"
#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::perf_setup;
using testing::source_path;

constexpr double kMiB = 1024.0 * 1024;
constexpr CollectiveChoice kRingSimple{CollectiveAlgorithm::Ring, CollectiveProtocol::Simple};

// 4 DGX H100 over InfiniBand: 32 ranks, 18 channels (the held-out runs' cluster).
CollectiveEstimate on_four_dgx_h100(CollectiveOp op, double bytes, CollectiveChoice choice = {}) {
  const PerfHardware hw = perf_hardware_of_system(perf_setup().catalog, "dgx-h100", 4).value();
  return estimate_collective(hw, perf_setup().collectives, op, ByteSize::from_base(bytes),
                             CollectiveGroup{32, 8}, choice);
}

double step_payload(CollectiveProtocol p) {
  const auto& k = perf_setup().collectives.chunking;
  const int i = static_cast<int>(p);
  return k.buffer_bytes[i] / k.steps * k.data_share[i];
}

TEST(CollectiveChunks, RingSimpleChunksSpanTheOperationsStepsOtherProtocolsOne) {
  // Simple's 4 MiB buffer / 8 steps = 512 KiB a step: broadcast moves one-step chunks and slices, all_gather
  // four-step chunks of two-step slices (collectives.h); LL carries 8 data bytes in each 16-byte line.
  const auto broadcast = on_four_dgx_h100(CollectiveOp::broadcast, 8 * 1024 * kMiB, kRingSimple);
  EXPECT_DOUBLE_EQ(broadcast.chunk_bytes, step_payload(CollectiveProtocol::Simple));
  EXPECT_DOUBLE_EQ(broadcast.slice_bytes, broadcast.chunk_bytes);
  const auto gather = on_four_dgx_h100(CollectiveOp::all_gather, 8 * 1024 * kMiB, kRingSimple);
  EXPECT_DOUBLE_EQ(gather.chunk_bytes, 4 * broadcast.chunk_bytes);
  EXPECT_DOUBLE_EQ(gather.slice_bytes, 2 * broadcast.chunk_bytes);
  const auto ll = on_four_dgx_h100(CollectiveOp::broadcast, 64 * 1024);
  ASSERT_EQ(ll.protocol, "LL");
  EXPECT_DOUBLE_EQ(ll.chunk_bytes, step_payload(CollectiveProtocol::LL));
  EXPECT_LT(ll.chunk_bytes, broadcast.chunk_bytes);
  // A chain moves a channel's share chunk by chunk; a ring moves ranks chunks a loop.
  EXPECT_EQ(broadcast.chunks_per_channel,
            static_cast<int>(std::ceil(8 * 1024 * kMiB / 18 / broadcast.chunk_bytes)));
  EXPECT_EQ(gather.chunks_per_channel,
            static_cast<int>(std::ceil(8 * 1024 * kMiB / 18 / (32 * gather.chunk_bytes))));
}

TEST(CollectiveChunks, TreeLl128ShrinksItsChunkForMidSizeMessages) {
  // 1 MiB of Tree/LL128 all_reduce on 4 nodes of 8: a channel holds 1 MiB / 18 = 58 KB, under
  // (1 + log2 4 + 0.1 x 8) x 64 / 8 chunks of any size, so the 576000-byte LL128 chunk halves to 72000 (the
  // first rule stops at 128 KiB), then to 18000 (the second at 32 KiB), and rounds down to LL128's 3840-byte
  // grain: 15360. At 1 GiB a channel holds enough chunks to keep a full step.
  const CollectiveChoice tree_ll128{CollectiveAlgorithm::Tree, CollectiveProtocol::LL128};
  const auto mid = on_four_dgx_h100(CollectiveOp::all_reduce, kMiB, tree_ll128);
  const auto large = on_four_dgx_h100(CollectiveOp::all_reduce, 1024 * kMiB, tree_ll128);
  const double grain = perf_setup().collectives.chunking.grain_bytes[1];
  EXPECT_DOUBLE_EQ(large.chunk_bytes, std::floor(step_payload(CollectiveProtocol::LL128) / grain) * grain);
  EXPECT_DOUBLE_EQ(mid.chunk_bytes, 4 * grain);
  EXPECT_LT(mid.chunk_bytes, large.chunk_bytes / 8);
}

TEST(CollectiveChunks, RingThreadsHalveForSmallMessages) {
  // 64 KiB broadcast on 32 ranks: Ring/LL's threshold is 8 B x 32 ranks per thread; one channel of 512
  // threads would want 128 KiB, so NCCL halves to 256 (64 KiB = 1 x 256 x 256 B stops it).
  const auto small = on_four_dgx_h100(CollectiveOp::broadcast, 64 * 1024);
  ASSERT_EQ(small.algorithm, "Ring");
  ASSERT_EQ(small.protocol, "LL");
  EXPECT_EQ(small.channels, 1);
  EXPECT_EQ(small.threads_per_channel, 256);
  const auto large = on_four_dgx_h100(CollectiveOp::broadcast, 8 * 1024 * kMiB, kRingSimple);
  EXPECT_EQ(large.threads_per_channel, 512);
  const auto tree = on_four_dgx_h100(CollectiveOp::all_reduce, 64 * 1024);
  EXPECT_EQ(tree.threads_per_channel, 0) << "only rings are reported";
}

// NCCL's cost model gives a rooted ring no bandwidth of its own (tuning.cc ncclTopoTuneModel, read at b647562
// and in the 2.30.7 transcription): every ring's busBw is nChannels x the channel's bandwidth, with no per-
// collective refinement under Simple, and algBw = busBw x nRanks / nsteps (nsteps: n for broadcast and reduce,
// n - 1 for all_gather, 2(n - 1) for all_reduce), which nccl-tests' busbw factors (1, (n-1)/n, 2(n-1)/n) undo.
// So the bandwidth term alone gives broadcast, reduce, all_gather and all_reduce one bus bandwidth per link:
// NCCL predicts no rooted ring slower per byte, and the measured 88 % of all_gather (accuracy.md) has no rule
// behind it in NCCL. What a rooted chain pays more is a per-operation fill, outside the bandwidth term.
TEST(CollectiveRootedRing, NcclGivesItTheBusBandwidthOfEveryOtherRing) {
  const double bytes = 8 * 1024 * kMiB;
  auto bus_from_bandwidth_term = [&](CollectiveOp op) {
    const auto e = on_four_dgx_h100(op, bytes, kRingSimple);
    return bytes / (e.bandwidth_us * 1e3) * busbw_factor(op, 32);
  };
  const double gather = bus_from_bandwidth_term(CollectiveOp::all_gather);
  EXPECT_NEAR(bus_from_bandwidth_term(CollectiveOp::broadcast), gather, 1e-9 * gather);
  EXPECT_NEAR(bus_from_bandwidth_term(CollectiveOp::reduce), gather, 1e-9 * gather);
  EXPECT_NEAR(bus_from_bandwidth_term(CollectiveOp::all_reduce), gather, 1e-9 * gather);
  const auto broadcast = on_four_dgx_h100(CollectiveOp::broadcast, bytes, kRingSimple);
  EXPECT_GT(broadcast.pipeline_fill_us, 0) << "the chain's own cost is its fill, not a lower bandwidth";
  EXPECT_LT(broadcast.busbw_gbps, gather);
}

TEST(CollectiveChainFill, ARootedSimpleChainPaysItsFirstSliceAtEveryHop) {
  // 16 MiB broadcast forced to Ring/Simple on 32 ranks: a channel holds 932 KB, more than one 512 KiB slice,
  // so the first slice crosses 28 NVLink hops and 3 network hops before the chain streams; the bandwidth term
  // already counts one slice at the slowest hop.
  const auto e = on_four_dgx_h100(CollectiveOp::broadcast, 16 * kMiB, kRingSimple);
  ASSERT_EQ(e.channels, 18);
  const double slice = e.slice_bytes;
  const double fastest_us = slice / (e.link_busbw_gbps / 18 * 1e9) * 1e6;  // the bottleneck's share
  EXPECT_GT(e.pipeline_fill_us, 29 * fastest_us * 0.9);
  EXPECT_LT(e.pipeline_fill_us, 31 * fastest_us * 1.1);
  EXPECT_NEAR(e.time_us, e.latency_us + e.bandwidth_us + e.pipeline_fill_us, 1e-9);
  EXPECT_GT(e.pipeline_fill_us, e.bandwidth_us) << "at this size the fill outweighs the bytes";
}

TEST(CollectiveChainFill, OnlyStoreAndForwardChainsPayIt) {
  for (const CollectiveProtocol p : {CollectiveProtocol::LL, CollectiveProtocol::LL128}) {
    const auto e = on_four_dgx_h100(CollectiveOp::broadcast, 16 * kMiB, {CollectiveAlgorithm::Ring, p});
    EXPECT_EQ(e.pipeline_fill_us, 0.0) << protocol_name(p) << " forwards line by line";
  }
  for (const CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_gather}) {
    const auto e = on_four_dgx_h100(op, 16 * kMiB, kRingSimple);
    EXPECT_EQ(e.pipeline_fill_us, 0.0) << collective_name(op) << ": a ring streams every step's piece";
  }
  const auto reduce = on_four_dgx_h100(CollectiveOp::reduce, 16 * kMiB, kRingSimple);
  EXPECT_GT(reduce.pipeline_fill_us, 0);
}

TEST(CollectiveChainFill, ASmallShareFillsWithItselfAndLongerChainsFillLonger) {
  // Below one slice a channel's whole share is what crosses each hop: 1 MiB on 18 channels is 58 KB.
  const auto small = on_four_dgx_h100(CollectiveOp::broadcast, kMiB, kRingSimple);
  const auto large = on_four_dgx_h100(CollectiveOp::broadcast, 64 * kMiB, kRingSimple);
  EXPECT_NEAR(small.pipeline_fill_us / large.pipeline_fill_us, kMiB / small.channels / large.slice_bytes,
              0.01);
  const PerfHardware one_node = perf_hardware_of_system(perf_setup().catalog, "dgx-h100", 1).value();
  const auto eight = estimate_collective(one_node, perf_setup().collectives, CollectiveOp::broadcast,
                                         ByteSize::from_base(64 * kMiB), CollectiveGroup{8, 8}, kRingSimple);
  EXPECT_LT(eight.pipeline_fill_us, large.pipeline_fill_us / 3);
}

TEST(CollectiveChainFill, NcclTestsLoopWaitsForItOncePerLoopBlockingEveryTime) {
  const auto one = on_four_dgx_h100(CollectiveOp::broadcast, 16 * kMiB, kRingSimple);
  const NcclTestsTime loop = nccl_tests_time(one, perf_setup().collectives, {20, false});
  const NcclTestsTime blocking = nccl_tests_time(one, perf_setup().collectives, {20, true});
  EXPECT_DOUBLE_EQ(blocking.time_us, one.time_us);
  ASSERT_TRUE(loop.pipelined);
  const double base = perf_setup().collectives.base_latency_us[static_cast<int>(CollectiveAlgorithm::Ring)]
                                                              [static_cast<int>(CollectiveProtocol::Simple)];
  EXPECT_NEAR(loop.hop_us * 32, one.latency_us - base + one.pipeline_fill_us, 1e-6);
  EXPECT_LT(loop.time_us, one.time_us - one.pipeline_fill_us / 2);
}

// nodes x 8 DGX H100 over InfiniBand, whole nodes.
CollectiveEstimate all_reduce_on_dgx_h100(int nodes, double bytes) {
  const PerfHardware hw = perf_hardware_of_system(perf_setup().catalog, "dgx-h100", nodes).value();
  return estimate_collective(hw, perf_setup().collectives, CollectiveOp::all_reduce,
                             ByteSize::from_base(bytes), CollectiveGroup{8 * nodes, 8});
}

TEST(CollectiveChunks, NvlsTreeChunkFollowsNcclsCutsBySizeAndNodeCount) {
  // calcCollChunking, NVLSTree: 16 NVLS channels (SM90) x 8 heads = 128 concurrent chunks. On 2 nodes the
  // 128 KiB nvlsChunkSize holds from 4 x 128 x 128 KiB = 64 MiB; under it 64 KiB, and under 1 x 128 x 64 KiB
  // = 8 MiB, 32 KiB. From 4 nodes the chunk is capped at 64 KiB at every size.
  const std::pair<double, double> two_node_cuts[] = {
      {64 * kMiB, 131072}, {32 * kMiB, 65536}, {8 * kMiB, 65536}, {4 * kMiB, 32768}};
  for (const auto& [bytes, chunk] : two_node_cuts) {
    const auto two = all_reduce_on_dgx_h100(2, bytes);
    ASSERT_EQ(two.algorithm, "NVLSTree") << bytes;  // else another algorithm's chunk rule would be tested
    EXPECT_DOUBLE_EQ(two.chunk_bytes, chunk) << bytes;
  }
  const auto four = all_reduce_on_dgx_h100(4, 8 * 1024 * kMiB);
  ASSERT_EQ(four.algorithm, "NVLSTree");
  EXPECT_DOUBLE_EQ(four.chunk_bytes, 65536);
  EXPECT_EQ(four.chunks_per_channel, 1024);  // 8 GiB / (128 x 64 KiB) loops
}

TEST(CollectiveChunks, NvlsTreeAllReduceAtSixtyFourMibIsAStoreAndForwardPipelineWorkedByHand) {
  // 64 MiB all_reduce on 2 x 8 H100, NVLSTree/Simple with 128 KiB chunks: a loop is 16 x 8 x 128 KiB =
  // 16 MiB, 4 loops. Each chunk goes into the switch, up the tree to the other node, down, and out of the
  // switch (device/all_reduce.h NVLS_TREE: each hand-off a one-slice Simple primitive, store-and-forward).
  // Into or out of the switch one loop takes 16 MiB / (450 x 0.8 x 0.85 GB/s) = 54.83 us; a tree hop over the
  // 8 NICs (8 x 47 GB/s) 44.62 us. The first loop crosses all four stages before the pipeline streams; the
  // bandwidth term counts the slowest stage once: fill = 2 x 54.83 + 2 x 44.62 - 54.83 = 144.07 us.
  // Latency (NCCL's NVLSTree/Simple): 25 + 2 x log2(2) x 20.9 = 66.8 us. Bandwidth: each GPU's links carry
  // S (1 + 1/8) through the switch: 64 MiB / (306 x 8 / 9 GB/s) = 246.72 us. Total 457.59 us (the fit sweep
  // of NVIDIA/nccl-tests #309, 2 x 8 H100, printed 466.1). Latency + bandwidth alone, the formula before the
  // pipeline, gives 313.52 us.
  const double bytes = 64 * kMiB;
  const auto e = all_reduce_on_dgx_h100(2, bytes);
  ASSERT_EQ(e.algorithm, "NVLSTree");
  ASSERT_EQ(e.protocol, "Simple");
  const double loop = 16 * 8 * 131072.0;
  const double switch_us = loop / (450 * 0.8 * 0.85 * 1e3);
  const double hop_us = loop / (8 * 47 * 1e3);
  EXPECT_NEAR(switch_us, 54.83, 0.01);
  EXPECT_NEAR(hop_us, 44.62, 0.01);
  EXPECT_EQ(e.chunks_per_channel, 4);
  EXPECT_NEAR(e.pipeline_fill_us, switch_us + 2 * hop_us, 1e-6);
  EXPECT_NEAR(e.latency_us, 66.8, 1e-9);
  EXPECT_NEAR(e.bandwidth_us, bytes / (450 * 0.8 * 0.85 * 8.0 / 9 * 1e3), 1e-6);
  EXPECT_NEAR(e.time_us, 457.59, 0.01);
  EXPECT_GT(e.time_us - (e.latency_us + e.bandwidth_us), 140);  // what latency + bytes / bandwidth misses
}

TEST(CollectiveChunks, NvlsTreeFillGrowsWithTheTreeAndStaysOffOneNode) {
  // 4 nodes: 64 KiB chunks, 8 MiB loops; the tree is 2 deep each way and a tree node forwards for two
  // children (half the NICs' rate each way, 188 GB/s, the slowest stage): fill = 2 x 8 MiB / 306 +
  // 4 x 8 MiB / 188 - 8 MiB / 188 = 54.83 + 133.86 = 188.7 us. One node runs NVLS (no tree, no fill).
  const auto four = all_reduce_on_dgx_h100(4, 64 * kMiB);
  ASSERT_EQ(four.algorithm, "NVLSTree");
  const double loop = 16 * 8 * 65536.0;
  EXPECT_NEAR(four.pipeline_fill_us, 2 * loop / (306 * 1e3) + 3 * loop / (188 * 1e3), 1e-6);
  const auto one = all_reduce_on_dgx_h100(1, 64 * kMiB);
  ASSERT_EQ(one.algorithm, "NVLS");
  EXPECT_DOUBLE_EQ(one.pipeline_fill_us, 0);
}

TEST(CollectiveModelData, ChunkingIsReadWithItsSourceAndBadValuesAreLocated) {
  const auto& k = perf_setup().collectives.chunking;
  EXPECT_EQ(k.steps, 8);
  EXPECT_EQ(k.ring_simple_steps[static_cast<int>(CollectiveOp::broadcast)][0], 1);
  const auto path = std::filesystem::temp_directory_path() / "gputwin-bad-chunking.yaml";
  std::ifstream in(source_path("data/perf/nccl-cost-model.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string row = "broadcast: [1, 1]";
  ASSERT_NE(text.find(row), std::string::npos);
  text.replace(text.find(row), row.size(), "broadcast: [1, 2]");
  std::ofstream(path) << text;
  const auto bad = load_collective_model(path.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error_text().find("whole number of slices"), std::string::npos) << bad.error_text();
  EXPECT_NE(bad.error_text().find(path.string()), std::string::npos) << bad.error_text();
  std::filesystem::remove(path);
}

TEST(CollectiveModelData, NvlsTreeChunkCutsAreLocatedWhenMalformed) {
  const auto& k = perf_setup().collectives.chunking;
  ASSERT_EQ(k.nvls_tree_reductions.size(), 4u);
  EXPECT_DOUBLE_EQ(k.nvls_tree_reductions.back().to_bytes, 32768);
  const auto path = std::filesystem::temp_directory_path() / "gputwin-bad-nvls-tree-chunking.yaml";
  std::ifstream in(source_path("data/perf/nccl-cost-model.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string row = "- [1, 32768]";
  ASSERT_NE(text.find(row), std::string::npos);
  text.replace(text.find(row), row.size(), "- [1, 32768, 16384]");
  std::ofstream(path) << text;
  const auto bad = load_collective_model(path.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error_text().find("expected [loops, chunk bytes]"), std::string::npos) << bad.error_text();
  EXPECT_NE(bad.error_text().find(path.string()), std::string::npos) << bad.error_text();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gputwin
