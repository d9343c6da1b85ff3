// A GPU under typical training at every power limit it can be set to: the average draw and the throughput the
// training phase mix (data/power/power-model.yaml) keeps, from the power model's cap rule. What the replay's
// power budget policies cap running jobs with (sim/power_policy.hpp).
//
//   Result<PowerModelData> data = load_power_model(bundled_data_dir() + "/power/power-model.yaml");
//   std::vector<TrainingCapPoint> curve = training_power_curve(data.value(), h100, Power::from_base(10));
//   // curve.front(): the minimum settable limit (200 W); curve.back(): the default (tdp), throughput 1
//
// Under a limit the mix's compute-bound share takes 1 / compute_factor as long, its memory-bound share
// 1 / memory_factor, its idle share as long; throughput is 1 over that, and the draw is each phase's draw
// weighted by its (stretched) time. An accelerator without a published minimum settable limit has one point,
// its default limit: it cannot be capped.
#pragma once

#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/power_model.hpp"

namespace gputwin {

struct TrainingCapPoint {
  Power limit;
  Power gpu_draw;         // average over the stretched training step
  double throughput = 1;  // work per second relative to the default limit
};

// The default limit's point alone when the accelerator has no settable range; otherwise every `step` from
// the minimum settable limit up to the default limit, and the default limit itself. By rising limit.
[[nodiscard]] std::vector<TrainingCapPoint> training_power_curve(const PowerModelData& data,
                                                                 const Accelerator& accelerator, Power step);

}  // namespace gputwin
