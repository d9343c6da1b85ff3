// PAT (parallel aggregated trees) for all_gather / reduce_scatter with one GPU per node (per NVLink domain
// under MNNVL: NCCL's nNodes counts cliques), and CollNet, which
// needs NCCL_COLLNET_ENABLE and in-network reduction (SHARP) and is off by default.
#include <cmath>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {
namespace {

class Pat final : public AlgorithmModel {
 public:
  [[nodiscard]] AlgorithmCost cost(const Case& c, CollectiveProtocol p) const override {
    const auto& t = c.topo;
    const bool op_ok = c.op == CollectiveOp::all_gather || c.op == CollectiveOp::reduce_scatter;
    if (!op_ok || p != CollectiveProtocol::Simple || t.ranks_per_domain != 1 || t.domains < 2) return {};
    const auto pat = CollectiveAlgorithm::PAT;
    const double latency =
        c.base_us(pat, p) +
        std::floor(std::log2(t.domains)) * c.hop_us(CollectiveModel::kNet, pat, p) / c.model.pat_net_divisor +
        c.model.pat_per_rank_us * t.ranks;
    const double link = t.ring_gbps();
    const double algbw = link * c.model.refinements.pat_share * t.ranks / ring_steps(c.op, t.ranks);
    return {latency, algbw, link, "NIC"};
  }
};

class CollNetOff final : public AlgorithmModel {
 public:
  [[nodiscard]] AlgorithmCost cost(const Case&, CollectiveProtocol) const override { return {}; }
};

}  // namespace

const AlgorithmModel& pat_model() {
  static const Pat model;
  return model;
}

const AlgorithmModel& collnet_model() {
  static const CollNetOff model;
  return model;
}

}  // namespace gputwin::collectives
