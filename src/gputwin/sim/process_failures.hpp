// The failure model "processes": node events drawn from a list of FailureProcess (sim/failure_process.hpp)
// over the replay's topology. Each unit a process strikes (a node, a leaf switch's nodes, a scale-up domain's
// nodes) fails at times drawn from the process (exponential, or Weibull with its shape, with the process's
// mean), is out for the repair time and then draws its next failure from its return. A job_on_node process
// interrupts the jobs on the node and leaves the node in service.
//
// Every draw comes from its own seeded stream (core/random.hpp), keyed by (seed, process, unit, draw number):
// the events are the same whatever the engine does between them, and the same seed gives the same replay.
//
//   ReplayModels models;
//   models.failures = make_process_failures(processes, cluster.topology, /*seed=*/1);
//   ReplayEngine engine(jobs, std::move(cluster.whole), std::nullopt, *policy, options, std::move(models));
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gputwin/sim/failure_process.hpp"
#include "gputwin/sim/replay_models.hpp"

namespace gputwin {

// Throws std::invalid_argument naming the process when a rate is negative, a Weibull shape is not positive,
// or a process that takes units out has no repair time.
[[nodiscard]] std::unique_ptr<FailureModel> make_process_failures(
    const std::vector<FailureProcess>& processes, const ReplayTopology& topology, std::uint64_t seed);

// The seconds until a unit's next failure: its `draw`-th time between failures under `process`, from the
// stream of (seed, process index, unit). Exposed for tests of the distribution.
[[nodiscard]] double time_to_failure_s(const FailureProcess& process, std::uint64_t seed, int process_index,
                                       int unit, std::uint64_t draw);

// The first number std::mt19937_64 seeded with `seed` gives, computed without building its 312-word state:
// each failure time is the first draw of its own stream. Exposed for the test against the engine.
[[nodiscard]] std::uint64_t first_mt19937_64(std::uint64_t seed);

// Failures an hour a job of `gpus` GPUs sees under `processes` on `topology`: its nodes' rates, and the rates
// of the fewest leaf switches and scale-up domains that can hold those nodes (the placement keeps jobs
// close).
[[nodiscard]] double failures_per_hour_seen(const std::vector<FailureProcess>& processes,
                                            const ReplayTopology& topology, int gpus);

// The nodes each unit of `scope` holds on `topology` (node scopes: one node a unit).
[[nodiscard]] std::vector<std::vector<int>> failure_units(FailureScope scope, const ReplayTopology& topology);

}  // namespace gputwin
