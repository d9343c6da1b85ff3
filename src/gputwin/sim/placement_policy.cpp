#include "gputwin/sim/placement_policy.hpp"

#include <stdexcept>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {

Result<PackingParameters> load_packing_parameters(const std::string& path) {
  try {
    const YamlField root = YamlDocument::load(path).root();
    PackingParameters parameters;
    parameters.max_spec_cpu_milli = root.child("max_spec_cpu_milli").positive_number();
    parameters.max_spec_gpu_milli = root.child("max_spec_gpu_milli").positive_number();
    parameters.typical_pod_popularity_percent = root.child("typical_pod_popularity_percent").positive_number();
    parameters.typical_pods_include_cpu_only = root.child("typical_pods_include_cpu_only").boolean();
    parameters.fgd_score_scale_milli = root.child("fgd_score_scale_milli").positive_number();
    parameters.inflate = root.child("inflate").positive_number();
    parameters.random_source = root.child("random_source").one_of({"go", "gputwin"});
    parameters.go_draws_before_ranks = static_cast<int>(root.child("go_draws_before_ranks").non_negative_integer());
    for (const auto& seed : root.child("seeds").items()) {
      parameters.seeds.push_back(static_cast<std::uint64_t>(seed.non_negative_integer()));
    }
    return parameters;
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

std::vector<std::string> placement_policy_names() {
  return {"random", "dotprod", "clustering", "packing", "bestfit", "fgd"};
}

std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name, const PackingParameters& parameters,
                                                       const TypicalPods& typical) {
  if (name == "random") return placement::random_policy();
  if (name == "dotprod") return placement::dot_product_policy(parameters);
  if (name == "clustering") return placement::gpu_clustering_policy();
  if (name == "packing") return placement::gpu_packing_policy();
  if (name == "bestfit") return placement::best_fit_policy(parameters);
  if (name == "fgd") return placement::fgd_policy(parameters, typical);
  std::string known;
  for (const auto& policy : placement_policy_names()) known += (known.empty() ? "" : ", ") + policy;
  throw std::invalid_argument("unknown placement policy '" + std::string(name) + "'; known: " + known);
}

}  // namespace gputwin
