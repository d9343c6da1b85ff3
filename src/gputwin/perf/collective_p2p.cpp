// alltoall and sendrecv: not in NCCL's tuning model; point to point over the bottleneck link.
#include <algorithm>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {

AlgorithmCost point_to_point_cost(const Case& c) {
  const auto& t = c.topo;
  const auto ring = CollectiveAlgorithm::Ring;
  const auto simple = CollectiveProtocol::Simple;
  // All peers are reached in parallel: one Simple step's latency on the link crossed.
  const auto link = t.nodes > 1 ? CollectiveModel::kNet : t.intra_link;
  const double latency = c.base_us(ring, simple) + c.hop_us(link, ring, simple);
  if (c.op == CollectiveOp::sendrecv) {
    // Each rank sends S to the next: a node-boundary pair runs on one GPU's NIC share.
    const double bw = t.nodes > 1 ? std::min(t.intra_gbps, t.per_gpu_nic_gbps) : t.intra_gbps;
    return {latency, bw, bw, t.nodes > 1 ? "NIC" : t.intra_name()};
  }
  // alltoall: each GPU sends S(n-1)/n, of which S(n - ranks_per_node)/n leaves the node through its NICs.
  const double n = t.ranks;
  const double intra_s_per_byte = t.ranks_per_node > 1 ? (t.ranks_per_node - 1) / n / t.intra_gbps : 0.0;
  const double inter_s_per_byte =
      t.nodes > 1 ? t.ranks_per_node * (n - t.ranks_per_node) / n / t.inter_gbps : 0.0;
  const double slowest = std::max(intra_s_per_byte, inter_s_per_byte);
  const bool nic_bound = inter_s_per_byte > intra_s_per_byte;
  return {latency, slowest > 0 ? 1.0 / slowest : 0.0, nic_bound ? t.inter_gbps : t.intra_gbps,
          nic_bound ? "NIC" : t.intra_name()};
}

}  // namespace gputwin::collectives
