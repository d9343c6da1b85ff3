// The fastest training configuration that fits in memory on a GPU count: every tensor / pipeline / context /
// data-parallel split, micro-batch, recomputation, interleaving and ZeRO stage that the model allows.
//
//   TrainingSearch search = search_training(hw, collectives, calibration, model, base, 16384);
//   if (search.best) print(search.best->config, search.best->step_time_s);
//   search.evaluated, search.fitting   // how many splits were timed and how many fit
//
// `base` gives what is not searched: sequence length, global batch, precision, attention kernel.
#pragma once

#include <optional>

#include "gputwin/perf/training.hpp"

namespace gputwin {

struct TrainingSearch {
  std::optional<TrainingEstimate> best;  // empty when nothing fits
  int candidates = 0;                    // valid splits considered
  int fitting = 0;                       // of which fit in memory (and were timed)
};

[[nodiscard]] TrainingSearch search_training(const PerfHardware& hardware, const CollectiveModel& collectives,
                                             const TrainingCalibration& calibration,
                                             const TransformerModel& model, const TrainingConfig& base,
                                             int gpus);

}  // namespace gputwin
