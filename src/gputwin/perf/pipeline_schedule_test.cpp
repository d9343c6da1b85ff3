#include "gputwin/perf/pipeline_schedule.hpp"

#include <gtest/gtest.h>

namespace gputwin {
namespace {

TEST(PipelineSchedule, OneFOneBBubbleAndFirstStageHoldsPMicroBatches) {
  const OneForwardOneBackward s;
  EXPECT_DOUBLE_EQ(s.bubble_stage_times(8, 1, 64), 7);
  EXPECT_DOUBLE_EQ(s.micro_batches_in_flight(8, 1, 64, 0), 8);
  EXPECT_DOUBLE_EQ(s.micro_batches_in_flight(8, 1, 64, 7), 1);
  EXPECT_DOUBLE_EQ(s.micro_batches_in_flight(8, 1, 4, 0), 4);  // fewer micro-batches than stages
}

TEST(PipelineSchedule, InterleavingDividesTheBubbleAndAddsKorthikantisMemoryPenalty) {
  const InterleavedOneForwardOneBackward s;
  EXPECT_DOUBLE_EQ(s.bubble_stage_times(8, 4, 64), 7.0 / 4);
  EXPECT_EQ(s.transfers_per_micro_batch(4), 8);
  // First stage: p (1 + (p - 1) / (p v)) whole-stage micro-batches (Korthikanti et al. 2022, Section 4.2.3).
  EXPECT_DOUBLE_EQ(s.micro_batches_in_flight(8, 4, 64, 0), 8 * (1 + 7.0 / 32));
}

TEST(PipelineSchedule, ChosenByVirtualStages) {
  TrainingConfig c;
  c.pp = 4;
  EXPECT_EQ(pipeline_schedule_of(c)->name(), "1F1B");
  c.virtual_stages = 2;
  EXPECT_EQ(pipeline_schedule_of(c)->name(), "interleaved 1F1B");
}

}  // namespace
}  // namespace gputwin
