#include "gputwin/sim/replay.hpp"

#include "gputwin/sim/replay_engine.hpp"

namespace gputwin {

ReplayResult replay(const std::vector<JobSpec>& jobs, GpuPool pool, const QueuePolicy& policy,
                    const ReplayOptions& options) {
  return ReplayEngine(jobs, std::move(pool), std::nullopt, policy, options).run();
}

ReplayResult replay(const std::vector<JobSpec>& jobs, GpuPool pool, std::optional<MigPool> mig,
                    const QueuePolicy& policy, const ReplayOptions& options) {
  return ReplayEngine(jobs, std::move(pool), std::move(mig), policy, options).run();
}

}  // namespace gputwin
