// The planner's first question: per accelerator, how many GPUs (and which split) train a model on T tokens
// within D days, whether it fits, the expected MFU and, with GPU-hour prices, the cost.
//
//   SizingRequest request{&model, 15e12, 90, base_config, {"h100-sxm", "b200"}, prices};
//   std::vector<SizingRow> rows = size_training(catalog, collectives, calibration, request);
//
// Each accelerator is sized on a catalog system that carries it (a DGX when there is one), on node counts
// doubling from one node, with a non-blocking fabric (perf_hardware_of_system); the first count whose fastest
// fitting split (search_training) finishes in time is the answer.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/training.hpp"

namespace gputwin {

struct SizingRequest {
  const TransformerModel* model = nullptr;
  double tokens = 0;
  double days = 0;
  TrainingConfig base;  // sequence, global batch, precision
  std::vector<std::string> accelerators;
  std::map<std::string, Money> gpu_hour_prices;  // accelerator id -> price of one GPU-hour
  int max_gpus = 131072;
};

struct SizingRow {
  std::string accelerator;
  std::string system;                        // the catalog system that carries it; empty when none does
  std::string note;                          // why there is no answer, when there is none
  std::optional<TrainingEstimate> estimate;  // the fastest fitting split on `gpus`
  int gpus = 0;
  double days = 0;
  std::optional<double> cost_usd;  // GPU-hours x the GPU-hour price
};

[[nodiscard]] std::vector<SizingRow> size_training(const Catalog& catalog, const CollectiveModel& collectives,
                                                   const TrainingCalibration& calibration,
                                                   const SizingRequest& request);

// The catalog system sizing uses for an accelerator: a "dgx-" system when one carries it, else the first.
[[nodiscard]] const System* system_for_accelerator(const Catalog& catalog, const std::string& accelerator_id);

}  // namespace gputwin
