// A serving run's power and energy, from the power model (perf/power_model.hpp) and the seconds its engines
// spent iterating (ServingResult::gpu_busy): each GPU draws its phase's power while its engine iterates (the
// bound part of each iteration at the compute- or memory-bound draw, communication at the communication
// draw, host time at idle) and idles otherwise, from the first arrival to the last finish.
//
//   PerfHardware capped = capped_hardware(hardware, point);   // the iteration model sees the capped GPU
//   ServingResult run = simulate_serving(model_on_capped, requests, setup);
//   ServingEnergy e = serving_energy(run, point, node);
//   e.energy.gpu_average, e.energy.node_peak, e.joules_per_output_token, e.joules_per_request
#pragma once

#include "gputwin/perf/power_model.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin {

struct ServingEnergy {
  EnergyEstimate energy;  // the whole run (seconds: its span) on every GPU of the deployment
  double output_tokens = 0;
  int requests = 0;  // finished
  double joules_per_output_token = 0;
  double joules_per_request = 0;
  double busy_fraction = 0;  // of the GPUs' time spent in iterations
};

// `gpu_busy` GPU seconds in iterations over `gpus` GPUs and `span_s` seconds.
[[nodiscard]] ServingEnergy serving_energy(const BusySeconds& gpu_busy, int gpus, double span_s,
                                           const ServeSummary& summary, const PowerOperatingPoint& point,
                                           const NodePower& node);

[[nodiscard]] ServingEnergy serving_energy(const ServingResult& run, const PowerOperatingPoint& point,
                                           const NodePower& node);

}  // namespace gputwin
