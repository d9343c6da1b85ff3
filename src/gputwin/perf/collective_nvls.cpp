// NVLS and NVLSTree: NVLink SHARP, the reduction done in the NVSwitches (Hopper and later); NVLSTree adds a
// tree of domains over the network. A domain is what NCCL treats as one node: the host, or under multi-node
// NVLink the whole NVLink clique (NVLS runs across the 18 trays of an NVL72: NCCL's NVLS channel count has a
// "single node/MNNVL domain" case, transport/nvls.cc).
#include <algorithm>
#include <cmath>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {
namespace {

// NVLink SHARP needs NVSwitch and Hopper or later (NCCL's NVLS efficiency is 0 before Hopper), Simple
// protocol.
bool nvls_possible(const Case& c, CollectiveProtocol p) {
  return p == CollectiveProtocol::Simple && c.topo.nvswitch && c.model.nvls_efficiency[c.topo.arch] > 0 &&
         c.topo.ranks_per_domain > 1;
}

// Achieved NVLS algorithm bandwidth inside a node. all_reduce: each GPU sends its whole buffer into the
// switch (reduction) and receives its reduced 1/n share, then multicasts that share and receives all shares,
// so each direction of its links carries S(1 + 1/n). all_gather / reduce_scatter carry S per direction.
double nvls_intra_algbw(const Case& c) {
  const auto& t = c.topo;
  const double link = t.intra_gbps * c.model.nvls_efficiency[t.arch];
  const double n = t.ranks_per_domain;
  return c.op == CollectiveOp::all_reduce ? link * n / (n + 1) : link;
}

// What each direction of a domain's NICs gives NVLSTree: on two domains each domain's NICs carry S each way;
// beyond, a tree node forwards for two children, halving what each direction gives (NCCL doubles its inter
// bandwidth on <= 2 nodes).
double nvls_tree_inter_algbw(const Topology& t) {
  return t.inter_gbps * (t.domains <= 2 ? 1.0 : 0.5);
}

// The tree of domains' depth as NCCL's latency counts it (log2 of the node count, each way).
int nvls_tree_depth(const Topology& t) {
  return static_cast<int>(std::floor(std::log2(std::max(1, t.domains))));
}

class Nvls final : public AlgorithmModel {
 public:
  [[nodiscard]] AlgorithmCost cost(const Case& c, CollectiveProtocol p) const override {
    const bool op_ok = c.op == CollectiveOp::all_reduce || c.op == CollectiveOp::all_gather ||
                       c.op == CollectiveOp::reduce_scatter;
    // Across domains NVLS needs CollNet (SHARP) support, off by default: NVLSTree serves multi-domain
    // all_reduce.
    if (!op_ok || !nvls_possible(c, p) || c.topo.domains > 1) return {};
    const double latency = c.hop_us(c.topo.intra_link, CollectiveAlgorithm::NVLS, p);
    return {latency, nvls_intra_algbw(c), c.topo.intra_gbps, "NVLink (NVSwitch multicast)"};
  }
};

class NvlsTree final : public AlgorithmModel {
 public:
  [[nodiscard]] AlgorithmCost cost(const Case& c, CollectiveProtocol p) const override {
    const auto& t = c.topo;
    // NCCL disables NVLSTree on one node (one domain).
    if (c.op != CollectiveOp::all_reduce || !nvls_possible(c, p) || t.domains == 1) return {};
    const double inter = nvls_tree_inter_algbw(t);
    // NCCL's per-channel NVLSTree cap, on the bus bandwidth (bus = alg x 2(n-1)/n for all_reduce).
    const double cap = t.channels * c.model.per_channel_max_nvls_tree_bw[t.arch][t.node_column] * t.ranks /
                       (2.0 * (t.ranks - 1));
    const double algbw = std::min({nvls_intra_algbw(c), inter, cap});
    const auto algo = CollectiveAlgorithm::NVLSTree;
    const double latency = c.base_us(algo, p) + c.hop_us(t.intra_link, algo, p) +
                           2 * nvls_tree_depth(t) * c.hop_us(CollectiveModel::kNet, algo, p);
    const bool nic_bound = inter < nvls_intra_algbw(c);
    return {latency, algbw, nic_bound ? t.inter_gbps : t.intra_gbps, nic_bound ? "NIC" : "NVLink"};
  }
};

}  // namespace

double nvls_tree_fill_us(const Case& c, const ChunkPlan& plan) {
  if (plan.loop_bytes <= 0) return 0;
  const auto& t = c.topo;
  // One loop's bytes (or the whole message when smaller) through each stage: each GPU sends its share into
  // the switch and takes the result out at the NVLink rate NVLS achieves; each tree hop at the NICs' rate.
  // Approximate in two ways, stated: the switch stage runs at the NVLS rate, not at the bandwidth term's
  // (which carries S (1 + 1/nodes) through the switch and may be bound by the per-channel cap), so "the
  // slowest stage once" subtracted below is the stage's, not exactly the bandwidth term's per loop; and the
  // loop is cut on NCCL's NVLS channel count (chunking.nvls_tree.channels), while the estimate's printed
  // channels and per-channel cap use the topology's channel count.
  const double loop = std::min(plan.loop_bytes, c.bytes);
  const double switch_us = transfer_us(loop, t.intra_gbps * c.model.nvls_efficiency[t.arch]);
  const double hop_us = transfer_us(loop, nvls_tree_inter_algbw(t));
  const int hops = 2 * nvls_tree_depth(t);
  if (hops == 0 || !(switch_us > 0) || !(hop_us > 0)) return 0;
  const double slowest = std::max(switch_us, hop_us);
  return 2 * switch_us + hops * hop_us - slowest;
}

const AlgorithmModel& nvls_model() {
  static const Nvls model;
  return model;
}

const AlgorithmModel& nvls_tree_model() {
  static const NvlsTree model;
  return model;
}

}  // namespace gputwin::collectives
