#include "gputwin/serve/serving_power.hpp"

#include <algorithm>

namespace gputwin {

ServingEnergy serving_energy(const BusySeconds& busy, int gpus, double span_s, const ServeSummary& summary,
                             const PowerOperatingPoint& point, const NodePower& node) {
  const double per_gpu = 1.0 / std::max(1, gpus);                      // one GPU's share
  const double idle = std::max(0.0, span_s - busy.total() * per_gpu);  // between iterations
  const std::vector<PhaseTime> phases{{PowerPhase::compute, busy.compute * per_gpu},
                                      {PowerPhase::memory, busy.memory * per_gpu},
                                      {PowerPhase::communication, busy.communication * per_gpu},
                                      {PowerPhase::idle, busy.host * per_gpu + idle}};
  ServingEnergy out;
  out.energy = energy_of(phases, point, node, gpus);
  out.output_tokens = summary.output_tokens_per_s * summary.span_s;
  out.requests = summary.finished;
  if (out.output_tokens > 0) out.joules_per_output_token = out.energy.energy_j / out.output_tokens;
  if (out.requests > 0) out.joules_per_request = out.energy.energy_j / out.requests;
  if (span_s > 0) out.busy_fraction = std::min(1.0, busy.total() * per_gpu / span_s);
  return out;
}

ServingEnergy serving_energy(const ServingResult& run, const PowerOperatingPoint& point,
                             const NodePower& node) {
  return serving_energy(run.gpu_busy, run.gpus, run.summary.span_s, run.summary, point, node);
}

}  // namespace gputwin
