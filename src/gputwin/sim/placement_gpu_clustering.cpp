// GpuClustering: put pods of the same GPU kind (share, 1-GPU, 2-GPU, ...) together. A node scores 75 when it
// holds only this kind, 50 when this kind among others, 25 when it holds no GPU pod, 0 otherwise, plus up to 25
// for how full its GPUs are: 25 x (8000 - free milli) / 8000 in integer arithmetic.
#include "gputwin/sim/placement_policy.hpp"

namespace gputwin::placement {
namespace {

// The reference fixes the fullness scale at 8 GPUs' worth of milli, whatever the node's size.
constexpr std::int64_t kFullnessScaleMilli = 8000;

class GpuClusteringPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "clustering"; }
  std::optional<PodPlacement> place(const ShareCluster& cluster, const PodSpec& pod, RandomSource&) override {
    const std::uint32_t kind = affinity_bit(pod);
    const auto node = highest_scoring(cluster, pod, [&](int n) -> std::int64_t {
      if (kind == 0) return 0;  // CPU-only pods: every node scores 0
      const ShareNode& state = cluster.node(n);
      const std::int64_t fullness = (100 / 4) * (kFullnessScaleMilli - state.gpu_milli_left()) / kFullnessScaleMilli;
      if (state.affinity == kind) return fullness + 75;
      if ((state.affinity & kind) != 0) return fullness + 50;
      if (state.affinity == 0) return fullness + 25;
      return fullness;
    });
    if (!node) return std::nullopt;
    return PodPlacement{*node, cluster.best_fit_gpus(*node, pod)};
  }
};

}  // namespace

std::unique_ptr<PlacementPolicy> gpu_clustering_policy() { return std::make_unique<GpuClusteringPolicy>(); }

}  // namespace gputwin::placement
