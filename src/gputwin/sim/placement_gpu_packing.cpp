// GpuPacking: fill partly used GPUs first, then nodes with some free GPUs, and empty nodes last (small nodes
// before large). Scores, in integer arithmetic as in the reference:
//   all GPUs free (f of them):                 max(33 - f, f)
//   the chosen GPUs include k fully free ones:  max(50 - k, 33)
//   only partly used GPUs chosen:               max(100 - sum(left x 100 / 1000) / 10, 50)
// where the chosen GPUs are the first num_gpu that fit, taking GPUs in ascending order of milli left.
#include <algorithm>
#include <numeric>

#include "gputwin/sim/placement_policy.hpp"

namespace gputwin::placement {
namespace {

class GpuPackingPolicy final : public PlacementPolicy {
 public:
  std::string_view name() const override { return "packing"; }
  std::optional<PodPlacement> place(const ShareCluster& cluster, const PodSpec& pod, RandomSource&) override {
    const auto node = highest_scoring(cluster, pod, [&](int n) { return score(cluster.node(n), pod); });
    if (!node) return std::nullopt;
    return PodPlacement{*node, cluster.best_fit_gpus(*node, pod)};
  }

 private:
  std::int64_t score(const ShareNode& node, const PodSpec& pod) {
    if (pod.num_gpu == 0) return 0;
    const int free_gpus = node.fully_free_gpus();
    if (free_gpus == node.gpus()) return std::max(100 / 3 - free_gpus, free_gpus);
    order_.resize(node.gpu_left.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return node.gpu_left[a] < node.gpu_left[b]; });
    int chosen = 0;
    int fully_free = 0;
    std::int64_t left_percent = 0;
    for (const int gpu : order_) {
      if (chosen == pod.num_gpu) break;
      const int left = node.gpu_left[gpu];
      if (left < pod.gpu_milli) continue;
      ++chosen;
      if (left == kMilliPerGpu) ++fully_free;
      left_percent += static_cast<std::int64_t>(left) * 100 / kMilliPerGpu;
    }
    if (chosen < pod.num_gpu) return 0;
    if (fully_free > 0) return std::max(50 - fully_free, 33);
    return std::max<std::int64_t>(100 - left_percent / 10, 50);
  }

  std::vector<int> order_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> gpu_packing_policy() { return std::make_unique<GpuPackingPolicy>(); }

}  // namespace gputwin::placement
