#include <algorithm>

#include "gputwin/perf/pipeline_schedule.hpp"

namespace gputwin {

double OneForwardOneBackward::bubble_stage_times(int stages, int /*chunks*/, int /*micro_batches*/) const {
  return stages - 1.0;
}

int OneForwardOneBackward::transfers_per_micro_batch(int /*chunks*/) const {
  return 2;
}

double OneForwardOneBackward::micro_batches_in_flight(int stages, int /*chunks*/, int micro_batches,
                                                      int stage) const {
  return std::min(micro_batches, std::max(1, stages - stage));
}

std::unique_ptr<PipelineSchedule> pipeline_schedule_of(const TrainingConfig& config) {
  if (config.virtual_stages > 1) return std::make_unique<InterleavedOneForwardOneBackward>();
  return std::make_unique<OneForwardOneBackward>();
}

double micro_batches_in_flight(const TrainingConfig& config, int stage) {
  return pipeline_schedule_of(config)->micro_batches_in_flight(config.pp, config.virtual_stages,
                                                               config.micro_batches(), stage);
}

}  // namespace gputwin
