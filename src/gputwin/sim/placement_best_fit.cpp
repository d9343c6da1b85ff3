// BestFit: the node left with the least free CPU and GPU after placing the pod, both normalised by the largest
// node spec and weighted equally: score = trunc(100 x (1 - s)), s = (cpu left after / max cpu + GPU milli left
// after / max GPU milli) / 2. The reference then rescales scores to 0..100, which keeps the same winners.
#include "gputwin/sim/placement_policy.hpp"

namespace gputwin::placement {
namespace {

class BestFitPolicy final : public PlacementPolicy {
 public:
  explicit BestFitPolicy(const PackingParameters& parameters) : parameters_(parameters) {}
  std::string_view name() const override { return "bestfit"; }
  std::optional<PodPlacement> place(const ShareCluster& cluster, const PodSpec& pod, RandomSource&) override {
    const auto node = highest_scoring(cluster, pod, [&](int n) {
      const ShareNode& state = cluster.node(n);
      const double spare = 0.5 * static_cast<double>(state.cpu_left - pod.cpu_milli) / parameters_.max_spec_cpu_milli +
                           0.5 * static_cast<double>(state.gpu_milli_left() - pod.total_gpu_milli()) /
                               parameters_.max_spec_gpu_milli;
      return static_cast<std::int64_t>((1.0 - spare) * 100.0);
    });
    if (!node) return std::nullopt;
    return PodPlacement{*node, cluster.best_fit_gpus(*node, pod)};
  }

 private:
  PackingParameters parameters_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> best_fit_policy(const PackingParameters& parameters) {
  return std::make_unique<BestFitPolicy>(parameters);
}

}  // namespace gputwin::placement
