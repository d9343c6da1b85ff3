#include <algorithm>

#include "gputwin/perf/pipeline_schedule.hpp"

namespace gputwin {

double InterleavedOneForwardOneBackward::bubble_stage_times(int stages, int chunks,
                                                            int /*micro_batches*/) const {
  return (stages - 1.0) / std::max(1, chunks);
}

int InterleavedOneForwardOneBackward::transfers_per_micro_batch(int chunks) const {
  return 2 * chunks;
}

double InterleavedOneForwardOneBackward::micro_batches_in_flight(int stages, int chunks, int micro_batches,
                                                                 int stage) const {
  const int v = std::max(1, chunks);
  // Chunk micro-batches in flight before the first backward, plus the one being worked on; each holds 1/v of
  // the stage's layers.
  const double warmup = 2.0 * (stages - stage - 1) + (v - 1.0) * stages + 1;
  return std::min(static_cast<double>(micro_batches) * v, warmup) / v;
}

}  // namespace gputwin
