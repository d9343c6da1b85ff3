#include "gputwin/serve/pool_clock.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <vector>

namespace gputwin {
namespace {

constexpr double kStep = 0.01;  // every iteration takes 10 ms here

EngineLimits roomy() {
  return {.max_batched_tokens = 8192, .max_sequences = 256, .block_tokens = 16, .kv_capacity_tokens = 1e6};
}

// A driver whose events are given times, each running `on_event`; it records every settled request.
struct RecordingDriver : ClockDriver {
  std::deque<double> events_s;
  std::function<void(PoolClock&, double)> on_event;
  std::vector<Settled> settled_in_order;

  [[nodiscard]] std::optional<double> next_event_s() const override {
    if (events_s.empty()) return std::nullopt;
    return events_s.front();
  }
  void deliver(PoolClock& clock) override {
    const double at = events_s.front();
    events_s.pop_front();
    if (on_event) on_event(clock, at);
  }
  void settled(PoolClock&, const Settled& done) override { settled_in_order.push_back(done); }
};

// Two engines due at the same time step lowest index first, so their equal-time completions settle engine 0
// first; each completion names the caller's request index, not the engine's.
TEST(PoolClock, EnginesDueAtOnceStepLowestIndexFirstAndSettleTheCallersIndex) {
  PoolClock clock;
  const IterationCost fixed = [](const IterationBatch&) { return kStep; };
  clock.add_engine(roomy(), fixed, 0);
  clock.add_engine(roomy(), fixed, 0);
  clock.add(1, 7, {0.0, 100, 2});
  clock.add(0, 3, {0.0, 100, 2});
  RecordingDriver driver;
  clock.run(driver);
  ASSERT_EQ(driver.settled_in_order.size(), 2u);
  EXPECT_EQ(driver.settled_in_order[0].engine, 0u);
  EXPECT_EQ(driver.settled_in_order[0].request, 3u);
  EXPECT_EQ(driver.settled_in_order[1].engine, 1u);
  EXPECT_EQ(driver.settled_in_order[1].request, 7u);
  for (const auto& done : driver.settled_in_order) {
    EXPECT_TRUE(done.finished);
    EXPECT_NEAR(done.time_s, 2 * kStep, 1e-12);  // prefill (first token), then one decode iteration
  }
  EXPECT_EQ(clock.requests_of(1), std::vector<std::size_t>{7});
  EXPECT_NEAR(clock.run_of(1).requests[0].finish_s, 2 * kStep, 1e-12);
}

// A driver's event at the same time as an engine's next step is delivered before that step: a request it
// adds then rides in the step (its prompt shares the iteration at 10 ms with the first request's decode).
TEST(PoolClock, ADriversEventIsDeliveredBeforeAnEngineStepAtTheSameTime) {
  PoolClock clock;
  int steps = 0;
  clock.add_engine(
      roomy(),
      [&](const IterationBatch&) {
        ++steps;
        return kStep;
      },
      0);
  clock.add(0, 0, {0.0, 100, 3});
  RecordingDriver driver;
  driver.events_s = {kStep};
  int steps_when_delivered = -1;
  driver.on_event = [&](PoolClock& c, double at) {
    steps_when_delivered = steps;
    c.add(0, 1, {at, 50, 1});
  };
  clock.run(driver);
  EXPECT_EQ(steps_when_delivered, 1);  // only the iteration at 0 ran before the event at 10 ms
  ASSERT_EQ(clock.run_of(0).requests.size(), 2u);
  EXPECT_NEAR(clock.run_of(0).requests[1].first_token_s, 2 * kStep, 1e-12);  // in the step at 10 ms
  EXPECT_EQ(steps, 3);  // 0-10 ms, 10-20 ms (with the new prompt), 20-30 ms: nothing steps twice
}

// With nothing left on either side the run ends; an event with no engine work still runs.
TEST(PoolClock, EventsRunWhenNoEngineHasWork) {
  PoolClock clock;
  clock.add_engine(
      roomy(), [](const IterationBatch&) { return kStep; }, 0);
  RecordingDriver driver;
  driver.events_s = {0.5, 0.7};
  std::vector<double> delivered;
  driver.on_event = [&](PoolClock&, double at) { delivered.push_back(at); };
  clock.run(driver);
  EXPECT_EQ(delivered, (std::vector<double>{0.5, 0.7}));
  EXPECT_TRUE(driver.settled_in_order.empty());
}

}  // namespace
}  // namespace gputwin
