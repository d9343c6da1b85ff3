#include "gputwin/perf/tp_overlap.hpp"

#include <gtest/gtest.h>

namespace gputwin {
namespace {

constexpr double kMs = 1e-3;

// One layer at TP 8 whose attention and MLP blocks are alike: the input projections (qkv, fc1) take 8 ms
// forward, the output projections (proj, fc2) 2 ms; an all-gather takes 4 ms (shorter than its 8 ms matmul),
// a reduce-scatter 5 ms (longer than its 2 ms one). Pooled, the pass's 18 ms of collectives hide behind its
// 20 ms of GEMMs entirely.
TensorParallelLayer layer() {
  TensorParallelLayer l;
  l.group_size = 8;
  l.sequence_parallel = true;
  l.all_gather = 4 * kMs;
  l.reduce_scatter = 5 * kMs;
  l.gemms.qkv = {8 * kMs, 8 * kMs, 8 * kMs};
  l.gemms.fc1 = {8 * kMs, 8 * kMs, 8 * kMs};
  l.gemms.proj = {2 * kMs, 2 * kMs, 2 * kMs};
  l.gemms.fc2 = {2 * kMs, 2 * kMs, 2 * kMs};
  return l;
}

TEST(TensorParallelOverlap, ChunkedOverlapLeavesOneChunksMatmulUnhidden) {
  // 8 chunks: 7/8 of the matmul hides the transfers.
  EXPECT_DOUBLE_EQ(chunked_exposed(3, 8, 8), 0);  // 3 <= 7
  EXPECT_DOUBLE_EQ(chunked_exposed(8, 8, 8), 1);  // as long as the matmul: one chunk's 1 exposed
  EXPECT_DOUBLE_EQ(chunked_exposed(5, 2, 8), 3.25);
  // Four pipeline splits: the last split's reduce-scatter is always exposed.
  EXPECT_DOUBLE_EQ(split_pipeline_exposed(2, 8, 4), 0.5);
  EXPECT_DOUBLE_EQ(split_pipeline_exposed(5, 2, 4), 1.25 + 0.75 * 3);
  EXPECT_DOUBLE_EQ(split_pipeline_exposed(5, 2, 0), 5);  // no split: nothing overlapped
  EXPECT_DOUBLE_EQ(bulk_exposed(5, 8), 0);
  EXPECT_DOUBLE_EQ(bulk_exposed(5, 2), 3);
}

// PyTorch's fused ops hide each collective behind its own matmul: the all-gathers under the 8 ms input
// projections (4 - 7/8 x 8 < 0: nothing), the reduce-scatters under the 2 ms output projections (5 - 7/8 x 2
// = 3.25 ms each), plus the partial sums and the local shard copies. The pooled rule gave 0.
TEST(TensorParallelOverlap, MicroPipelinedPairsEachCollectiveWithItsMatmul) {
  TensorParallelLayer l = layer();
  const TensorParallelOverlapRules rules{4, false};
  EXPECT_NEAR(exposed_forward_tensor_comm(TensorParallelOverlap::micro_pipelined, l, rules), 6.5 * kMs,
              1e-12);
  l.partial_sums = 0.1 * kMs;
  l.shard_copy = 0.05 * kMs;
  EXPECT_NEAR(exposed_forward_tensor_comm(TensorParallelOverlap::micro_pipelined, l, rules),
              (6.5 + 0.2 + 0.1) * kMs, 1e-12);
  // Backward: the output-gradient all-gathers under proj's and fc2's 2 ms dgrad (4 - 1.75 = 2.25 ms each),
  // the two input-gradient reduce-scatters whole (5 ms each), two shard copies.
  EXPECT_NEAR(exposed_backward_tensor_comm(TensorParallelOverlap::micro_pipelined, l), (4.5 + 10 + 0.1) * kMs,
              1e-12);
}

// Transformer Engine's userbuffers: the ring-exchange all-gathers hide under the input projections; the
// forward reduce-scatters by "pipeline" in 4 splits expose 5/4 + 3/4 x (5 - 2) = 3.5 ms each, by ring
// exchange 3.25 ms each; backward, the output-gradient all-gathers 2.25 ms each beside the 2 ms dgrads and
// the bulk reduce-scatters nothing beside the 8 ms wgrads of qkv and fc1.
TEST(TensorParallelOverlap, UserbuffersPairTransformerEnginesGemms) {
  const TensorParallelLayer l = layer();
  EXPECT_NEAR(exposed_forward_tensor_comm(TensorParallelOverlap::userbuffers, l, {4, false}), 7 * kMs, 1e-12);
  EXPECT_NEAR(exposed_forward_tensor_comm(TensorParallelOverlap::userbuffers, l, {4, true}), 6.5 * kMs,
              1e-12);
  EXPECT_NEAR(exposed_backward_tensor_comm(TensorParallelOverlap::userbuffers, l), 4.5 * kMs, 1e-12);
  // The bulk reduce-scatter is paired with the wgrad of qkv and fc1, not with proj's or fc2's.
  TensorParallelLayer short_wgrad = l;
  short_wgrad.gemms.qkv.wgrad = 1 * kMs;
  EXPECT_NEAR(exposed_backward_tensor_comm(TensorParallelOverlap::userbuffers, short_wgrad), 8.5 * kMs,
              1e-12);
}

// Without sequence parallelism the blocks all-reduce; neither framework overlaps an all-reduce.
TEST(TensorParallelOverlap, AllReducesStayWhole) {
  TensorParallelLayer l = layer();
  l.sequence_parallel = false;
  l.all_reduce = 3 * kMs;
  for (const auto overlap : {TensorParallelOverlap::none, TensorParallelOverlap::userbuffers,
                             TensorParallelOverlap::micro_pipelined}) {
    EXPECT_NEAR(exposed_forward_tensor_comm(overlap, l, {4, false}), 6 * kMs, 1e-12);
    EXPECT_NEAR(exposed_backward_tensor_comm(overlap, l), 6 * kMs, 1e-12);
  }
  l.sequence_parallel = true;
  EXPECT_NEAR(exposed_forward_tensor_comm(TensorParallelOverlap::none, l, {4, false}), 18 * kMs, 1e-12);
}

}  // namespace
}  // namespace gputwin
