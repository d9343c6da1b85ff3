// Shared fixtures of the simulator's tests (target gputwin_sim_test_support, linked into every test binary
// that can see sim): a job of the trace, replay options with a metrics interval, and the bundled failure
// rates.
//
//   std::vector<JobSpec> jobs{testing::job("a", /*submit=*/0, /*gpus=*/8, /*duration=*/100)};
//   ReplayResult result = replay(jobs, GpuPool::uniform(1, 8), *policy, testing::every(10));
//   FailureRates rates = testing::bundled_failure_rates();   // data/reliability/failure-rates.yaml
#pragma once

#include <string>

#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin::testing {

// A whole-GPU job of the trace: submitted at `submit` seconds, asking for `gpus` for `duration` seconds.
[[nodiscard]] JobSpec job(const std::string& id, double submit, int gpus, double duration,
                          const std::string& group = "");
// Replay options whose metrics intervals are `seconds` long, the rest default.
[[nodiscard]] ReplayOptions every(double seconds);
// data/reliability/failure-rates.yaml as bundled; a test failure (and an empty set) when it does not load.
[[nodiscard]] FailureRates bundled_failure_rates();

}  // namespace gputwin::testing
