// What a replay's failure options ask for, as text with units (the options of `simulate replay` and the
// `failures:` block of a sweep file), turned into the replay's models in one place so the two agree.
//
//   FailureSetup setup;
//   setup.node_mtbf = "3000h";
//   setup.repair = "48h";
//   setup.checkpoint_interval = "30min";   // or "young-daly"
//   setup.checkpoint_write = "1min";
//   setup.spare_nodes = 2;
//   ReplayModels models = make_replay_models(setup, cluster.topology, /*designed_write_s=*/std::nullopt);
//
// Errors throw std::invalid_argument starting with the `simulate replay` option that is wrong
// ("--repair: ..."); a sweep file's loader checks its fields first and names them by file, line and field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/sim/failure_process.hpp"
#include "gputwin/sim/replay_models.hpp"

namespace gputwin {

struct FailureSetup {
  std::string node_mtbf;          // "3000h": one node-scope process
  std::string node_failure_rate;  // "6.5/1000/day": the same, as a rate
  std::string failure_profile;    // a profile of the failure data (data/reliability/failure-rates.yaml)
  std::string failure_rates;      // another rate file of the same form
  std::string repair;             // with a node rate: how long a failed node is out
  std::uint64_t failure_seed = 1;
  std::string checkpoint_interval;  // a duration, or "young-daly"; empty: no checkpoints
  std::string checkpoint_write;
  std::string restart;
  int spare_nodes = 0;
  int mig_spare_nodes = 0;  // of the MIG-mode nodes (replay_models.hpp)
  std::string maintenance;  // "every=90d,duration=8h,mode=rolling"
};

// The failure processes the setup gives: a profile of the failure data, or one node-scope process from the
// node MTBF or failure rate with its repair time; empty when it gives no failure.
[[nodiscard]] std::vector<FailureProcess> failure_processes(const FailureSetup& setup,
                                                            const ReplayTopology& topology);

// The models: failures (processes, merged with maintenance), checkpoints and spares. The checkpoint write
// time is the setup's, else `designed_write_s` (a designed storage's), else 0.
[[nodiscard]] ReplayModels make_replay_models(const FailureSetup& setup, const ReplayTopology& topology,
                                              std::optional<double> designed_write_s);

}  // namespace gputwin
