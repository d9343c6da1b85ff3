#include "gputwin/perf/training_power_curve.hpp"

#include <optional>

namespace gputwin {
namespace {

std::optional<TrainingCapPoint> point_at(const PowerModelData& data, const Accelerator& accelerator,
                                         std::optional<Power> cap) {
  const auto point = power_operating_point(data, accelerator, cap);
  if (!point.ok()) return std::nullopt;
  const PowerOperatingPoint& p = point.value();
  const TrainingPhaseMix& mix = data.training_mix;
  const double compute_s = mix.compute / p.compute_factor;
  const double memory_s = mix.memory / p.memory_factor;
  const double idle_s = mix.idle;
  const double step_s = compute_s + memory_s + idle_s;
  const double at_default_s = mix.compute + mix.memory + mix.idle;
  const Power draw =
      (p.draw.compute * compute_s + p.draw.memory * memory_s + p.draw.idle * idle_s) * (1.0 / step_s);
  return TrainingCapPoint{p.limit, draw, at_default_s / step_s};
}

}  // namespace

std::vector<TrainingCapPoint> training_power_curve(const PowerModelData& data, const Accelerator& accelerator,
                                                   Power step) {
  std::vector<TrainingCapPoint> curve;
  const auto figures = data.accelerators.find(accelerator.info.id);
  if (figures != data.accelerators.end() && figures->second.min_limit && step > Power{}) {
    for (Power limit = *figures->second.min_limit; limit < accelerator.tdp; limit = limit + step) {
      if (const auto point = point_at(data, accelerator, limit)) curve.push_back(*point);
    }
  }
  if (const auto point = point_at(data, accelerator, std::nullopt)) curve.push_back(*point);
  return curve;
}

}  // namespace gputwin
