// Random: a uniformly random feasible node; a share pod takes a uniformly random GPU that fits.
#include "gputwin/sim/placement_policy.hpp"

namespace gputwin::placement {
namespace {

class RandomPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "random"; }
  std::optional<PodPlacement> place(const ShareCluster& cluster, const PodSpec& pod, RandomSource& random) override {
    feasible_.clear();
    for (int n = 0; n < static_cast<int>(cluster.nodes().size()); ++n) {
      if (cluster.fits(n, pod)) feasible_.push_back(n);
    }
    if (feasible_.empty()) return std::nullopt;
    const int node = feasible_[random.below(feasible_.size())];
    if (pod.num_gpu != 1 || pod.gpu_milli >= kMilliPerGpu) return PodPlacement{node, cluster.best_fit_gpus(node, pod)};
    // Reservoir sampling in device order, as the reference draws: uniform over the GPUs that fit.
    int chosen = -1;
    int seen = 0;
    const auto& left = cluster.node(node).gpu_left;
    for (int gpu = 0; gpu < static_cast<int>(left.size()); ++gpu) {
      if (left[gpu] < pod.gpu_milli) continue;
      if (random.below(static_cast<std::uint64_t>(++seen)) == 0) chosen = gpu;
    }
    return PodPlacement{node, {chosen}};
  }

 private:
  std::vector<int> feasible_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> random_policy() { return std::make_unique<RandomPolicy>(); }

}  // namespace gputwin::placement
