#include "gputwin/perf/tp_overlap.hpp"

#include <algorithm>

namespace gputwin {

// k matmul chunks and k - 1 transfers: while the link is the bottleneck every transfer is back to back and
// one chunk's matmul (the last of an all-gather, the first of a reduce-scatter) runs beside none of them.
double chunked_exposed(double comm, double gemm, int chunks) {
  const double k = std::max(1, chunks);
  return std::max(0.0, comm - (k - 1) / k * gemm);
}

// n GEMM splits, each split's reduce-scatter after it: the last one always exposed, the rest where the
// collective outlasts the GEMM.
double split_pipeline_exposed(double comm, double gemm, double splits) {
  const double n = std::max(1.0, splits);
  return comm / n + (n - 1) / n * std::max(0.0, comm - gemm);
}

double bulk_exposed(double comm, double gemm) {
  return std::max(0.0, comm - gemm);
}

double exposed_forward_tensor_comm(TensorParallelOverlap overlap, const TensorParallelLayer& layer,
                                   const TensorParallelOverlapRules& rules) {
  if (overlap == TensorParallelOverlap::none || !layer.sequence_parallel) return layer.whole();
  const TensorParallelGemms& g = layer.gemms;
  const int t = layer.group_size;
  const double gathers = chunked_exposed(layer.all_gather, g.qkv.forward, t) +
                         chunked_exposed(layer.all_gather, g.fc1.forward, t);
  if (overlap == TensorParallelOverlap::userbuffers) {
    const auto scatter = [&](const GemmTimes& gemm) {
      return rules.forward_scatter_ring_exchange ? chunked_exposed(layer.reduce_scatter, gemm.forward, t)
                                                 : split_pipeline_exposed(layer.reduce_scatter, gemm.forward,
                                                                          rules.userbuffers_pipeline_splits);
    };
    return gathers + scatter(g.proj) + scatter(g.fc2);
  }
  return gathers + 2 * layer.shard_copy + chunked_exposed(layer.reduce_scatter, g.proj.forward, t) +
         chunked_exposed(layer.reduce_scatter, g.fc2.forward, t) + 2 * layer.partial_sums;
}

double exposed_backward_tensor_comm(TensorParallelOverlap overlap, const TensorParallelLayer& layer) {
  if (overlap == TensorParallelOverlap::none || !layer.sequence_parallel) return layer.whole();
  const TensorParallelGemms& g = layer.gemms;
  const int t = layer.group_size;
  const double gathers =
      chunked_exposed(layer.all_gather, g.proj.dgrad, t) + chunked_exposed(layer.all_gather, g.fc2.dgrad, t);
  if (overlap == TensorParallelOverlap::userbuffers)
    return gathers + bulk_exposed(layer.reduce_scatter, g.qkv.wgrad) +
           bulk_exposed(layer.reduce_scatter, g.fc1.wgrad);
  return gathers + 2 * layer.shard_copy + 2 * layer.reduce_scatter;
}

}  // namespace gputwin
