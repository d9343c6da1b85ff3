// Checkpoint policies beyond "none" (replay_models.hpp): a job checkpoints every `interval` seconds of work,
// each write costing `write` seconds (so it runs at rate interval / (interval + write)), keeps the work up to
// its last checkpoint when interrupted, and pays `restart` seconds at each restart.
//
//   CheckpointSettings settings{.interval_s = 1800, .write_s = 60, .restart_s = 300};
//   auto fixed = make_checkpoint_policy("interval", settings);
//   settings.failures_per_hour = [&](const JobSpec& job) { return failures_per_hour_seen(processes, topo,
//   job.gpus); }; auto optimum = make_checkpoint_policy("young-daly", settings);   // per job: Daly's
//   interval for its MTBF
//
// "young-daly" takes each job's interval from daly_interval_s (checkpoint_interval.hpp) with the job's write
// time and the MTBF its GPUs see; a job that sees no failures never checkpoints.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "gputwin/sim/replay_models.hpp"

namespace gputwin {

struct CheckpointSettings {
  double interval_s = 0;  // "interval": seconds of work between checkpoints (> 0)
  double write_s = 0;     // seconds to write one checkpoint (>= 0)
  double restart_s = 0;   // seconds a restart costs (>= 0)
  // "young-daly": failures an hour the job's GPUs see.
  std::function<double(const JobSpec&)> failures_per_hour;
};

// "none", "interval" or "young-daly"; throws std::invalid_argument naming the known policies, or the setting
// that is missing or out of range.
[[nodiscard]] std::unique_ptr<CheckpointPolicy> make_checkpoint_policy(std::string_view name,
                                                                       const CheckpointSettings& settings);

}  // namespace gputwin
