// The fastest training configuration that fits in memory on a GPU count, chosen as a practitioner would among
// near-ties, with the reasons the others lost.
//
//   TrainingSearch search = search_training(hw, collectives, calibration, model, base, 16384);
//   if (search.best) print(search.best->config, search.best->step_time_s);
//   search.top            // the few fastest, best first (after the tie-break)
//   search.alternatives   // per axis value not chosen: its best split and why it lost
//   search.candidates, search.fitting, search.unbalanced   // how many splits were valid, fit, were skipped
//
// The splits come from a generator over named axes (search_axes), each axis a list of values that may depend
// on the axes before it: tp (powers of two within the scale-up domain), pp (stages that keep the layers
// balanced, see LayerSplit), vp (interleaving), cp (powers of two), ep (1 for dense models), ZeRO stage,
// micro-batch, recomputation, and last dp: the largest data-parallel size the GPUs hold that divides the
// global batch (B divisible by b d); GPUs left over are idle (TrainingConfig::idle_gpus). Precision,
// sequence, global batch and attention kernel come from `base`.
//
// Tie-break: every fitting split within `tie_tolerance` (1 %) of the fastest step time ties; among them the
// search takes, in order, less tp, less pp, less cp, less recomputation, a bigger micro-batch, fewer virtual
// stages, a lower ZeRO stage, less ep (the simpler and more robust split a practitioner would pick).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/perf/training.hpp"

namespace gputwin {

// What is searched beside the split (stated defaults, not facts).
struct SearchSpace {
  std::vector<int> micro_batches{1, 2, 4, 8};
  int max_virtual_stages = 4;
  int max_context_parallel =
      16;  // beyond, the key/value exchange outgrows attention at the sequences sized here
  double tie_tolerance = 0.01;  // step times within 1 % of the fastest tie
  int top = 5;                  // choices kept for the explanation
  bool explain = true;          // keep the top choices and the per-axis alternatives (sizing does not)
};

// The default space without the explanation (sizing asks for the best split only).
[[nodiscard]] inline SearchSpace fastest_only() {
  SearchSpace space;
  space.explain = false;
  return space;
}

// One named axis of the generator: its values given the axes already chosen, and how a value sets the config.
struct SearchAxis {
  std::string name;
  std::function<std::vector<int>(const TrainingConfig& partial)> values;
  std::function<void(TrainingConfig& config, int value)> set;
  std::function<std::string(int value)> label;  // "tp 8", "recompute selective"
};

// The axes in the order they are expanded (tp, pp, vp, cp, ep, zero, micro-batch, recompute, dp).
[[nodiscard]] std::vector<SearchAxis> search_axes(const PerfHardware& hardware, const TransformerModel& model,
                                                  const TrainingConfig& base, int gpus,
                                                  const SearchSpace& space);

// Calls `visit` with every combination of the axes' values (dp filled, idle GPUs not yet); none when an axis
// has no value.
void for_each_split(const std::vector<SearchAxis>& axes, const TrainingConfig& base,
                    const std::function<void(const TrainingConfig&)>& visit);

// The best split that has one axis at a value other than the chosen one, and why it lost.
struct AxisAlternative {
  std::string axis;                      // "tp"
  std::string value;                     // "tp 4"
  std::optional<TrainingEstimate> best;  // its fastest fitting split; empty when none fits
  std::string
      reason;  // "+3.1 % step time (pipeline bubble +0.42 s)", "does not fit: 93.1 of 80.0 GB at best"
};

struct TrainingSearch {
  std::optional<TrainingEstimate> best;  // empty when nothing fits
  std::vector<TrainingEstimate> top;     // the few fastest after the tie-break, best first
  std::vector<AxisAlternative> alternatives;
  int candidates = 0;  // valid splits considered
  int fitting = 0;     // of which fit in memory (and were timed)
  int unbalanced = 0;  // (tp, pp) pairs skipped: the layers split neither evenly nor with lighter ends
  int ties = 0;        // fitting splits within the tie tolerance of the fastest
  double tie_tolerance = 0;
};

[[nodiscard]] TrainingSearch search_training(const PerfHardware& hardware, const CollectiveModel& collectives,
                                             const TrainingCalibration& calibration,
                                             const TransformerModel& model, const TrainingConfig& base,
                                             int gpus, const SearchSpace& space = {});

// True when `a` is the split a practitioner prefers to `b` at equal speed (the tie-break order above).
[[nodiscard]] bool simpler_split(const TrainingConfig& a, const TrainingConfig& b);

}  // namespace gputwin
