// Tree: NCCL's double binary tree for all_reduce (a chain inside the domain, a tree of domains), latency
// log2(domains). Under MNNVL the chain runs over NVLink through all the domain's trays.
#include <algorithm>
#include <cmath>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {
namespace {

class Tree final : public AlgorithmModel {
 public:
  [[nodiscard]] AlgorithmCost cost(const Case& c, CollectiveProtocol p) const override {
    if (c.op != CollectiveOp::all_reduce) return {};
    const auto& t = c.topo;
    const double link = t.ring_gbps();
    const double bus = corrected(c, p, capped(c, p, link));
    return {latency_us(c, p), bus * c.model.refinements.tree_to_algbw, link, t.ring_bottleneck()};
  }

 private:
  // NCCL's Tree refinements: a 0.92 share under a per-channel cap, then LL and LL128 shares and caps.
  static double capped(const Case& c, CollectiveProtocol p, double link) {
    const auto& t = c.topo;
    const auto& r = c.model.refinements;
    double bus =
        std::min(link * r.tree_share, t.channels * c.model.per_channel_max_tree_bw[t.arch][t.node_column]);
    if (p == CollectiveProtocol::LL) bus = std::min(bus / r.tree_ll_divisor, c.ll_max_gbps());
    if (p == CollectiveProtocol::LL128) {
      const double share = t.domains == 1 ? r.tree_ll128_share_one_node : r.tree_ll128_share_multi_node;
      bus = std::min(bus * share, t.channels * c.model.per_channel_max_tree_ll128_bw[t.arch][t.node_column]);
    }
    return bus;
  }

  // NCCL's static correction for medium sizes, indexed by log2(bytes / 64).
  static double corrected(const Case& c, CollectiveProtocol p, double bus) {
    const auto& correction = c.model.tree_correction[static_cast<int>(p)];
    const double size_class = std::floor(std::log2(std::max(1.0, c.bytes / 64)));
    if (size_class < static_cast<double>(correction.size()))
      bus *= correction[static_cast<std::size_t>(size_class)];
    return bus;
  }

  static double latency_us(const Case& c, CollectiveProtocol p) {
    const auto& t = c.topo;
    const auto tree = CollectiveAlgorithm::Tree;
    const double depth = std::floor(std::log2(t.domains));
    return c.base_us(tree, p) + 2 * ((t.ranks_per_domain - 1) * c.hop_us(t.intra_link, tree, p) +
                                     depth * c.hop_us(CollectiveModel::kNet, tree, p));
  }
};

}  // namespace

const AlgorithmModel& tree_model() {
  static const Tree model;
  return model;
}

}  // namespace gputwin::collectives
