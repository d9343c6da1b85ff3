// Chunks and slices of one operation, as NCCL's enqueue step cuts a channel's share (calcCollChunking), and
// the one cost they add to the latency + bandwidth model: a rooted Simple chain is store-and-forward per
// slice, so its first slice crosses every hop before the chain streams. The constants are in
// nccl-cost-model.yaml, `chunking:`, with the files they were read from.
#include <algorithm>
#include <cmath>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {
namespace {

constexpr double kMicrosecondsPerSecond = 1e6;
constexpr double kBytesPerGigabyte = 1e9;

bool rooted(CollectiveOp op) {
  return op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
}

// Tree/LL128 halves its chunk while a channel has too few chunks for the tree's depth (x 64, then x 16).
double tree_ll128_chunk(const Case& c, double chunk, double channel_bytes) {
  const auto& k = c.model.chunking;
  const double nodes = std::max(1, c.topo.domains);
  const double ppn = static_cast<double>(c.topo.ranks) / nodes;
  const double depth = 1 + std::floor(std::log2(nodes)) + k.tree_ll128_steps_per_rank * ppn;
  const auto chunks = [&] { return std::floor(channel_bytes / chunk); };
  while (chunks() < depth * k.tree_ll128_first_chunks / ppn && chunk > k.tree_ll128_first_above_bytes)
    chunk /= 2;
  while (chunks() < depth * k.tree_ll128_second_chunks / ppn && chunk > k.tree_ll128_second_above_bytes)
    chunk /= 2;
  return chunk;
}

// NVLSTree's chunk (calcCollChunking): nvlsChunkSize, capped from a number of domains, then cut while the
// message is under a few loops of every channel's heads.
double nvls_tree_chunk(const Case& c, double concurrent_ops) {
  const auto& k = c.model.chunking;
  double chunk = k.nvls_tree_chunk_bytes;
  if (c.topo.domains >= k.nvls_tree_cap_nodes) chunk = std::min(chunk, k.nvls_tree_cap_bytes);
  for (const auto& cut : k.nvls_tree_reductions)
    if (c.bytes < cut.loops * concurrent_ops * chunk && chunk > cut.to_bytes) chunk = cut.to_bytes;
  return chunk;
}

ChunkPlan nvls_tree_plan(const Case& c) {
  ChunkPlan plan;
  const auto& k = c.model.chunking;
  const int channels = k.nvls_tree_channels[c.topo.arch];
  const int heads = nvls_heads(c);
  if (channels <= 0 || heads <= 0) return plan;
  const double concurrent_ops = static_cast<double>(channels) * heads;
  plan.chunk_bytes = nvls_tree_chunk(c, concurrent_ops);
  plan.slice_bytes = plan.chunk_bytes;  // ProtoSimple<1, 1>: one chunk, one slice, one step
  plan.loop_bytes = concurrent_ops * plan.chunk_bytes;
  plan.chunk_rounds = std::max(1, static_cast<int>(std::ceil(c.bytes / plan.loop_bytes)));
  plan.store_and_forward = true;
  return plan;
}

}  // namespace

double transfer_us(double bytes, double gbps) {
  return gbps > 0 ? bytes / (gbps * kBytesPerGigabyte) * kMicrosecondsPerSecond : 0;
}

int nvls_heads(const Case& c) {
  const auto& t = c.topo;
  return std::min({t.ranks_per_domain, std::max(1, t.nics_used), c.model.chunking.nvls_tree_max_heads});
}

ChunkPlan chunk_plan(const Case& c, CollectiveAlgorithm a, CollectiveProtocol p, int channels) {
  ChunkPlan plan;
  if (a == CollectiveAlgorithm::NVLSTree && p == CollectiveProtocol::Simple) return nvls_tree_plan(c);
  if (a != CollectiveAlgorithm::Ring && a != CollectiveAlgorithm::Tree) return plan;
  const auto& k = c.model.chunking;
  const int proto = static_cast<int>(p);
  const auto op = static_cast<std::size_t>(c.op);
  const bool ring_simple = a == CollectiveAlgorithm::Ring && p == CollectiveProtocol::Simple;
  const bool has_steps = op < k.ring_simple_steps.size();
  const int chunk_steps = ring_simple && has_steps ? k.ring_simple_steps[op][0] : 1;
  const int slice_steps = ring_simple && has_steps ? k.ring_simple_steps[op][1] : 1;
  const double step = k.buffer_bytes[proto] / k.steps * k.data_share[proto];
  const double channel_bytes = c.bytes / std::max(1, channels);
  double chunk = step * chunk_steps;
  if (a == CollectiveAlgorithm::Tree && p == CollectiveProtocol::LL128)
    chunk = tree_ll128_chunk(c, chunk, channel_bytes);
  chunk = std::max(k.grain_bytes[proto], std::floor(chunk / k.grain_bytes[proto]) * k.grain_bytes[proto]);
  plan.chunk_bytes = chunk;
  plan.slice_bytes = chunk / chunk_steps * slice_steps;
  // A ring moves ranks chunks per loop (one per rank's slot); a chain or a tree one.
  const bool ring_pattern = a == CollectiveAlgorithm::Ring && !rooted(c.op);
  const double loop = ring_pattern ? chunk * c.topo.ranks : chunk;
  plan.chunk_rounds = std::max(1, static_cast<int>(std::ceil(channel_bytes / loop)));
  plan.store_and_forward = p == CollectiveProtocol::Simple;
  return plan;
}

double chain_fill_us(const Case& c, CollectiveAlgorithm a, CollectiveProtocol p, const ChunkPlan& plan,
                     int channels) {
  if (a != CollectiveAlgorithm::Ring || p != CollectiveProtocol::Simple || !rooted(c.op)) return 0;
  if (!plan.store_and_forward || plan.slice_bytes <= 0 || c.topo.ranks < 3) return 0;
  const auto& t = c.topo;
  // One slice, or the channel's whole share when it is smaller, on one channel of each link.
  const double slice = std::min(plan.slice_bytes, c.bytes / std::max(1, channels));
  const double per_channel = 1.0 / std::max(1, t.channels);
  const int intra_hops = t.ranks_per_domain > 1 ? t.ranks - t.domains : 0;
  const int inter_hops = t.domains - 1;
  const double intra_us = transfer_us(slice, t.intra_gbps * per_channel);
  const double inter_us = transfer_us(slice, t.inter_gbps * per_channel);
  double slowest = 0;
  if (intra_hops > 0) slowest = std::max(slowest, intra_us);
  if (inter_hops > 0) slowest = std::max(slowest, inter_us);
  return std::max(0.0, intra_hops * intra_us + inter_hops * inter_us - slowest);
}

}  // namespace gputwin::collectives
