// The fewest GPUs that serve this traffic within these targets: every candidate deployment (a catalog system
// and a tensor-parallel size) is simulated on the whole request stream with as many replicas as it needs,
// found by doubling then bisection on the replica count (more replicas never make a round-robin deployment
// slower).
//
//   CapacityInputs inputs{catalog, collectives, constants, defaults, model, "fp8", 1.0};
//   CapacitySearch search = search_capacity(inputs, candidates, requests, targets, /*max_gpus=*/4096);
//   search.rows.front()   // the cheapest deployment that meets the targets (by price when every row has one,
//                         // else by GPUs); rows that cannot meet them, and why, follow
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin {

struct CapacityInputs {
  const Catalog& catalog;
  CollectiveModel collectives;
  InferenceConstants constants;
  ServingEngineDefaults engine;
  TransformerModel model;
  std::string precision = "fp8";
  double kv_bytes_per_element = 1;
  int input_tokens =
      128;  // only sizes the "does one sequence fit" check; the requests carry their own lengths
  int output_tokens = 128;
  std::map<std::string, Money> gpu_hour_prices;  // by accelerator id; empty = rank by GPUs
};

struct DeploymentCandidate {
  std::string system;
  int tp = 1;
};

struct CapacityRow {
  DeploymentCandidate candidate;
  std::string accelerator;
  int replicas = 0;  // 0 when the candidate cannot meet the targets (see `why`)
  int gpus = 0;
  bool meets = false;
  ServeSummary summary;                // at `replicas` (at the largest tried when it does not meet them)
  std::optional<Money> cost_per_hour;  // GPUs x the accelerator's GPU-hour price, when priced
  double cost_per_million_tokens = 0;  // cost per hour / output tokens per hour, when priced
  std::string why;  // why it is not the answer, or what binds when it cannot meet the targets
};

struct CapacitySearch {
  std::vector<CapacityRow> rows;  // meeting rows cheapest first, then the others
  int simulations = 0;
};

// The TP sizes worth trying on a system: powers of two up to its scale-up domain that divide the model's
// heads.
[[nodiscard]] std::vector<DeploymentCandidate> candidates_for(const Catalog& catalog,
                                                              const std::string& system,
                                                              const TransformerModel& model);

[[nodiscard]] CapacitySearch search_capacity(const CapacityInputs& inputs,
                                             const std::vector<DeploymentCandidate>& candidates,
                                             const std::vector<ServeRequest>& requests,
                                             const LatencyTargets& targets, int max_gpus);

}  // namespace gputwin
