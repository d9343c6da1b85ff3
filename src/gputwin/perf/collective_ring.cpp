// Ring: NCCL's default bandwidth algorithm; every GPU sends and receives along a ring of channels.
#include <algorithm>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {
namespace {

int ring_inter_steps(CollectiveOp op, int domains) {
  return op == CollectiveOp::all_reduce ? 2 * (domains - 1) : domains - 1;
}

class Ring final : public AlgorithmModel {
 public:
  [[nodiscard]] AlgorithmCost cost(const Case& c, CollectiveProtocol p) const override {
    const auto& t = c.topo;
    const auto& r = c.model.refinements;
    const double link = t.ring_gbps();
    double bus = link;
    if (p == CollectiveProtocol::LL) bus = std::min(c.ll_max_gbps(), bus * r.ring_ll_share);
    if (p == CollectiveProtocol::LL128) {
      const double cap = t.channels * c.model.per_channel_max_ring_ll128_bw[t.arch][t.node_column];
      bus = std::min(bus * r.ring_ll128_share, cap);
    }
    const double algbw = bus * t.ranks / ring_steps(c.op, t.ranks);
    return {latency_us(c, p), algbw, link, t.ring_bottleneck()};
  }

 private:
  static double latency_us(const Case& c, CollectiveProtocol p) {
    const auto ring = CollectiveAlgorithm::Ring;
    const int steps = ring_steps(c.op, c.topo.ranks);
    if (c.op == CollectiveOp::broadcast || c.op == CollectiveOp::reduce) {
      // A pipeline, not a ring: each step pays a chunk; NCCL takes Tree's hop latency for Simple.
      const auto link = c.topo.domains > 1 ? CollectiveModel::kNet : c.topo.intra_link;
      const auto hop_algorithm = p == CollectiveProtocol::Simple ? CollectiveAlgorithm::Tree : ring;
      return c.base_us(ring, p) + steps * c.hop_us(link, hop_algorithm, p);
    }
    return ring_latency_us(c, p, steps);
  }

  static double ring_latency_us(const Case& c, CollectiveProtocol p, int steps) {
    const auto& t = c.topo;
    const auto ring = CollectiveAlgorithm::Ring;
    const int inter_steps = ring_inter_steps(c.op, t.domains);
    double net_overhead = 0;  // inter-node rings still post a network operation per step
    if (t.domains > 1) {
      net_overhead = c.model.net_post_overhead_us;
      if (p == CollectiveProtocol::Simple) net_overhead *= c.model.net_post_overhead_simple_factor;
    }
    const double intra = std::max(c.hop_us(t.intra_link, ring, p), net_overhead);
    // With one GPU per node every step crosses the network, where NCCL counts Tree's NET latency.
    const auto inter_algorithm = t.ranks_per_domain == 1 ? CollectiveAlgorithm::Tree : ring;
    const double inter = c.hop_us(CollectiveModel::kNet, inter_algorithm, p);
    double latency = c.base_us(ring, p) + (steps - inter_steps) * intra + inter_steps * inter;
    const bool plateau = t.domains > 1 && c.op == CollectiveOp::all_reduce &&
                         p == CollectiveProtocol::Simple &&
                         c.bytes / (t.channels * t.ranks) >= c.model.ring_plateau_min_bytes;
    if (plateau) latency *= c.model.ring_plateau_factor;
    return latency;
  }
};

}  // namespace

int ring_steps(CollectiveOp op, int ranks) {
  if (op == CollectiveOp::all_reduce) return 2 * (ranks - 1);
  if (op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter) return ranks - 1;
  return ranks;
}

const AlgorithmModel& ring_model() {
  static const Ring model;
  return model;
}

}  // namespace gputwin::collectives
