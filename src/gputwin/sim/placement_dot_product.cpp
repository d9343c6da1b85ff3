// DotProd: the node whose free (CPU, GPU) vector has the smallest dot product with the pod's request, both
// normalised by the largest node spec: score = trunc(100 x (1 - dot / 2)).
#include "gputwin/sim/placement_policy.hpp"

namespace gputwin::placement {
namespace {

class DotProductPolicy final : public PlacementPolicy {
 public:
  explicit DotProductPolicy(const PackingParameters& parameters) : parameters_(parameters) {}
  std::string_view name() const override { return "dotprod"; }
  std::optional<PodPlacement> place(const ShareCluster& cluster, const PodSpec& pod, RandomSource&) override {
    const double pod_cpu = static_cast<double>(pod.cpu_milli) / parameters_.max_spec_cpu_milli;
    const double pod_gpu = static_cast<double>(pod.total_gpu_milli()) / parameters_.max_spec_gpu_milli;
    const auto node = highest_scoring(cluster, pod, [&](int n) {
      const ShareNode& state = cluster.node(n);
      const double dot = pod_cpu * static_cast<double>(state.cpu_left) / parameters_.max_spec_cpu_milli +
                         pod_gpu * state.gpu_milli_left() / parameters_.max_spec_gpu_milli;
      return static_cast<std::int64_t>(100.0 * (1.0 - dot / 2.0));
    });
    if (!node) return std::nullopt;
    return PodPlacement{*node, cluster.best_fit_gpus(*node, pod)};
  }

 private:
  PackingParameters parameters_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> dot_product_policy(const PackingParameters& parameters) {
  return std::make_unique<DotProductPolicy>(parameters);
}

}  // namespace gputwin::placement
