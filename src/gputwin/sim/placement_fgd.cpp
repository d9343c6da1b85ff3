// FGD (fragmentation gradient descent): the node, and for a shared GPU the GPU, where placing the pod grows the
// cluster's expected fragmentation (fragmentation.hpp) the least. Score = trunc(100 x sigmoid((F_before -
// F_after) / 1000)); the truncation makes ties, broken by node rank as for every policy.
//
// A node's score for a pod shape changes only when the node does, so scores are cached per node and shape and
// recomputed only for the node the last pod landed on.
#include <cmath>
#include <map>
#include <tuple>

#include "gputwin/sim/placement_policy.hpp"

namespace gputwin::placement {
namespace {

class FgdPolicy final : public PlacementPolicy {
 public:
  FgdPolicy(const PackingParameters& parameters, TypicalPods typical)
      : scale_(parameters.fgd_score_scale_milli), typical_(std::move(typical)) {}
  std::string_view name() const override { return "fgd"; }

  std::optional<PodPlacement> place(const ShareCluster& cluster, const PodSpec& pod, RandomSource&) override {
    if (cached_cluster_ != &cluster || cache_.size() != cluster.nodes().size()) {
      cache_.assign(cluster.nodes().size(), {});  // node versions restart with every cluster
      cached_cluster_ = &cluster;
    }
    const int shape = shape_id(pod);
    const auto node = highest_scoring(cluster, pod, [&](int n) { return cached(cluster, n, pod, shape).score; });
    if (!node) return std::nullopt;
    if (pod.num_gpu == 1 && pod.gpu_milli < kMilliPerGpu) {
      return PodPlacement{*node, {cached(cluster, *node, pod, shape).gpu}};
    }
    return PodPlacement{*node, cluster.best_fit_gpus(*node, pod)};
  }

 private:
  struct Entry {
    std::uint64_t version_plus_one = 0;  // 0 = not computed
    std::int64_t score = 0;
    int gpu = -1;
  };

  int shape_id(const PodSpec& pod) {
    std::string models;
    for (const auto& model : pod.gpu_models) models += model + "|";
    const auto key = std::make_tuple(pod.cpu_milli, pod.num_gpu == 0 ? 0 : pod.gpu_milli, pod.num_gpu, models);
    return shapes_.try_emplace(key, static_cast<int>(shapes_.size())).first->second;
  }

  const Entry& cached(const ShareCluster& cluster, int n, const PodSpec& pod, int shape) {
    auto& entries = cache_[n];
    if (static_cast<int>(entries.size()) <= shape) entries.resize(shape + 1);
    Entry& entry = entries[shape];
    const ShareNode& node = cluster.node(n);
    if (entry.version_plus_one != node.version + 1) {
      score(node, pod, entry);
      entry.version_plus_one = node.version + 1;
    }
    return entry;
  }

  std::int64_t score_of(double before, double after) const {
    const double sigmoid = 1.0 / (1.0 + std::exp(-(before - after) / scale_));
    return static_cast<std::int64_t>(sigmoid * 100.0);
  }

  double fragmentation(std::int64_t cpu_left, const ShareNode& node) const {
    return node_fragmentation(typical_, cpu_left, scratch_, node.model);
  }

  void score(const ShareNode& node, const PodSpec& pod, Entry& entry) {
    scratch_ = node.gpu_left;
    const double before = fragmentation(node.cpu_left, node);
    const std::int64_t cpu_after = node.cpu_left - pod.cpu_milli;
    if (pod.num_gpu == 1 && pod.gpu_milli < kMilliPerGpu) {
      entry.score = -1;
      for (int gpu = 0; gpu < node.gpus(); ++gpu) {
        if (node.gpu_left[gpu] < pod.gpu_milli) continue;
        scratch_[gpu] -= pod.gpu_milli;
        const std::int64_t candidate = score_of(before, fragmentation(cpu_after, node));
        scratch_[gpu] += pod.gpu_milli;
        if (candidate > entry.score) {  // strictly greater: the lowest index wins a tie
          entry.score = candidate;
          entry.gpu = gpu;
        }
      }
      return;
    }
    // Whole GPUs (or none): take the pod's milli from the emptiest-handed GPUs that fit, fullest first.
    int taken = 0;
    for (int want = pod.gpu_milli; taken < pod.num_gpu && want <= kMilliPerGpu; ++want) {
      for (int gpu = 0; gpu < node.gpus() && taken < pod.num_gpu; ++gpu) {
        if (node.gpu_left[gpu] == want) {
          scratch_[gpu] -= pod.gpu_milli;
          ++taken;
        }
      }
    }
    entry.score = score_of(before, fragmentation(cpu_after, node));
    entry.gpu = -1;
  }

  double scale_;
  TypicalPods typical_;
  std::map<std::tuple<std::int64_t, int, int, std::string>, int> shapes_;
  std::vector<std::vector<Entry>> cache_;
  const ShareCluster* cached_cluster_ = nullptr;
  std::vector<int> scratch_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> fgd_policy(const PackingParameters& parameters, const TypicalPods& typical) {
  return std::make_unique<FgdPolicy>(parameters, typical);
}

}  // namespace gputwin::placement
