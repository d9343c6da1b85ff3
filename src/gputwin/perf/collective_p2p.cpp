// alltoall and sendrecv: not in NCCL's tuning model; point to point over the bottleneck link (NVLink inside a
// scale-up domain, NICs between domains).
#include <algorithm>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {

AlgorithmCost point_to_point_cost(const Case& c) {
  const auto& t = c.topo;
  const auto ring = CollectiveAlgorithm::Ring;
  const auto simple = CollectiveProtocol::Simple;
  // All peers are reached in parallel: one Simple step's latency on the link crossed.
  const auto link = t.domains > 1 ? CollectiveModel::kNet : t.intra_link;
  const double latency = c.base_us(ring, simple) + c.hop_us(link, ring, simple);
  if (c.op == CollectiveOp::sendrecv) {
    // Each rank sends S to the next: a node-boundary pair runs on one GPU's NIC share.
    const double bw = t.domains > 1 ? std::min(t.intra_gbps, t.per_gpu_nic_gbps) : t.intra_gbps;
    return {latency, bw, bw, t.domains > 1 ? "NIC" : t.intra_name()};
  }
  // alltoall: each GPU sends S(n-1)/n, of which S(n - ranks_per_domain)/n leaves the domain through its NICs;
  // the rest stays on NVLink, across trays too when the domain spans nodes. Every GPU sends through its own
  // NIC (rail-optimized), so all the group's NICs of a domain carry it, not only a ring's.
  const double n = t.ranks;
  const double intra_s_per_byte = t.ranks_per_domain > 1 ? (t.ranks_per_domain - 1) / n / t.intra_gbps : 0.0;
  const double inter_s_per_byte =
      t.domains > 1 ? t.ranks_per_domain * (n - t.ranks_per_domain) / n / t.all_nics_gbps : 0.0;
  const double slowest = std::max(intra_s_per_byte, inter_s_per_byte);
  const bool nic_bound = inter_s_per_byte > intra_s_per_byte;
  return {latency, slowest > 0 ? 1.0 / slowest : 0.0, nic_bound ? t.all_nics_gbps : t.intra_gbps,
          nic_bound ? "NIC" : t.intra_name()};
}

}  // namespace gputwin::collectives
