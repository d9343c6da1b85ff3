// Pipeline-parallel schedules, one small type each: how long the bubble is, how many point-to-point transfers
// a micro-batch makes, and how many micro-batches' activations a stage holds at once (for memory).
//
//   std::unique_ptr<PipelineSchedule> s = pipeline_schedule_of(config);   // 1F1B, or interleaved when v > 1
//   double idle = s->bubble_stage_times(p, v, m);      // extra stage times: (p - 1) / v
//   double held = micro_batches_in_flight(config, 0);   // first stage, in whole-stage micro-batches
//
// Step time of a pipeline = (m + bubble_stage_times) x the stage time of one micro-batch (training.cpp).
#pragma once

#include <memory>
#include <string>

#include "gputwin/perf/training_config.hpp"

namespace gputwin {

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  // Idle time of a pipeline step in units of one stage's micro-batch time.
  [[nodiscard]] virtual double bubble_stage_times(int stages, int chunks, int micro_batches) const = 0;
  // Sends (and as many receives) per micro-batch on one rank, forward and backward together.
  [[nodiscard]] virtual int transfers_per_micro_batch(int chunks) const = 0;
  // Activations held at once by pipeline rank `stage` (0 = first), in micro-batches of the whole stage.
  [[nodiscard]] virtual double micro_batches_in_flight(int stages, int chunks, int micro_batches,
                                                       int stage) const = 0;
};

// PipeDream-flush / Megatron 1F1B (Narayanan et al. 2021, Section 2.2.1): bubble p - 1 stage times; rank r
// holds min(m, p - r) micro-batches.
class OneForwardOneBackward final : public PipelineSchedule {
 public:
  [[nodiscard]] std::string name() const override { return "1F1B"; }
  [[nodiscard]] double bubble_stage_times(int stages, int chunks, int micro_batches) const override;
  [[nodiscard]] int transfers_per_micro_batch(int chunks) const override;
  [[nodiscard]] double micro_batches_in_flight(int stages, int chunks, int micro_batches,
                                               int stage) const override;
};

// Megatron's interleaved 1F1B (Narayanan et al. 2021, Section 2.2.2): v model chunks per rank shrink the
// bubble to (p - 1) / v stage times at v times the transfers; rank r warms up 2 (p - r - 1) + (v - 1) p chunk
// micro-batches before its first backward. Llama 3's variant (tunable N contiguous micro-batches,
// Section 3.3.2) has the same bubble and is modelled as this one.
class InterleavedOneForwardOneBackward final : public PipelineSchedule {
 public:
  [[nodiscard]] std::string name() const override { return "interleaved 1F1B"; }
  [[nodiscard]] double bubble_stage_times(int stages, int chunks, int micro_batches) const override;
  [[nodiscard]] int transfers_per_micro_batch(int chunks) const override;
  [[nodiscard]] double micro_batches_in_flight(int stages, int chunks, int micro_batches,
                                               int stage) const override;
};

// The schedule a config runs: interleaved when virtual_stages > 1, else 1F1B.
[[nodiscard]] std::unique_ptr<PipelineSchedule> pipeline_schedule_of(const TrainingConfig& config);

// For memory.cpp: micro-batches of activations pipeline rank `stage` holds at once under the config's
// schedule.
[[nodiscard]] double micro_batches_in_flight(const TrainingConfig& config, int stage);

}  // namespace gputwin
