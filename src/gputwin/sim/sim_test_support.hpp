// Shared fixtures of the simulator's tests (target gputwin_sim_test_support, linked into every test binary
// that can see sim): a job of the trace, replay options with a metrics interval, and the bundled failure
// rates, and a failure model that plays a fixed list of node events.
//
//   std::vector<JobSpec> jobs{testing::job("a", /*submit=*/0, /*gpus=*/8, /*duration=*/100)};
//   ReplayResult result = replay(jobs, GpuPool::uniform(1, 8), *policy, testing::every(10));
//   FailureRates rates = testing::bundled_failure_rates();   // data/reliability/failure-rates.yaml
//   models.failures = std::make_unique<testing::ScriptedFailures>(std::vector<NodeEvent>{...});
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/sim/replay_models.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin::testing {

// A whole-GPU job of the trace: submitted at `submit` seconds, asking for `gpus` for `duration` seconds.
[[nodiscard]] JobSpec job(const std::string& id, double submit, int gpus, double duration,
                          const std::string& group = "");
// Replay options whose metrics intervals are `seconds` long, the rest default.
[[nodiscard]] ReplayOptions every(double seconds);
// data/reliability/failure-rates.yaml as bundled; a test failure (and an empty set) when it does not load.
[[nodiscard]] FailureRates bundled_failure_rates();

// A failure model that plays the given node events in order, then none: failures at known times.
class ScriptedFailures final : public FailureModel {
 public:
  explicit ScriptedFailures(std::vector<NodeEvent> events) : events_(std::move(events)) {}
  std::string_view name() const override { return "scripted"; }
  std::optional<NodeEvent> next_event(double /*now*/) override {
    if (next_ >= events_.size()) return std::nullopt;
    return events_[next_++];
  }

 private:
  std::vector<NodeEvent> events_;
  std::size_t next_ = 0;
};

}  // namespace gputwin::testing
