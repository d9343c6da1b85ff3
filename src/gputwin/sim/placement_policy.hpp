// Placement policies for GPU-sharing pods, as defined in the FGD paper and its simulator: each is one small type
// behind one interface, chosen by name.
//
//   auto policy = make_placement_policy("fgd", parameters, typical);   // random | dotprod | clustering |
//                                                                      // packing | bestfit | fgd
//   std::optional<PodPlacement> where = policy->place(cluster, pod, random);
//
// Every policy but Random scores each feasible node with the reference's integer formula; the highest score
// wins and ties go to the node of smallest rank (a random permutation drawn once per run, as the reference's
// scheduler does by sorting randomly prefixed node names).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/random.hpp"
#include "gputwin/sim/fragmentation.hpp"
#include "gputwin/sim/share_cluster.hpp"

namespace gputwin {

// Constants of the reference simulator (data/reference/fgd-simulator.yaml).
struct PackingParameters {
  double max_spec_cpu_milli = 0;
  double max_spec_gpu_milli = 0;
  double typical_pod_popularity_percent = 0;
  bool typical_pods_include_cpu_only = true;
  double fgd_score_scale_milli = 0;
  double inflate = 0;
  std::vector<std::uint64_t> seeds;
  // "go": replay the reference's Go random draws exactly (when built with Go's table); "gputwin": our own source.
  std::string random_source = "go";
  int go_draws_before_ranks = 0;  // Kubernetes client draws between inflation and node ranks
};

[[nodiscard]] Result<PackingParameters> load_packing_parameters(const std::string& path);

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Where the pod goes, or empty when no node can take it. Not const: policies may cache per-node scores.
  virtual std::optional<PodPlacement> place(const ShareCluster& cluster, const PodSpec& pod, RandomSource& random) = 0;
};

// Throws std::invalid_argument naming the known policies.
[[nodiscard]] std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name,
                                                                     const PackingParameters& parameters,
                                                                     const TypicalPods& typical);
[[nodiscard]] std::vector<std::string> placement_policy_names();

// The feasible node with the highest score, ties to the smallest rank; `score` is called for feasible nodes only.
template <class Score>
[[nodiscard]] std::optional<int> highest_scoring(const ShareCluster& cluster, const PodSpec& pod, Score score) {
  std::optional<int> best;
  std::int64_t best_score = 0;
  int best_rank = 0;
  const auto& nodes = cluster.nodes();
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    if (!cluster.fits(n, pod)) continue;
    const std::int64_t candidate = score(n);
    const int rank = nodes[n].rank;
    if (!best || candidate > best_score || (candidate == best_score && rank < best_rank)) {
      best = n;
      best_score = candidate;
      best_rank = rank;
    }
  }
  return best;
}

namespace placement {
std::unique_ptr<PlacementPolicy> random_policy();
std::unique_ptr<PlacementPolicy> dot_product_policy(const PackingParameters& parameters);
std::unique_ptr<PlacementPolicy> gpu_clustering_policy();
std::unique_ptr<PlacementPolicy> gpu_packing_policy();
std::unique_ptr<PlacementPolicy> best_fit_policy(const PackingParameters& parameters);
std::unique_ptr<PlacementPolicy> fgd_policy(const PackingParameters& parameters, const TypicalPods& typical);
}  // namespace placement

}  // namespace gputwin
