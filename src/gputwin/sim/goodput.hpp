// The goodput of one training job on a cluster that fails: a seeded Monte Carlo of the job's run. Failures
// strike the job's nodes (and the leaves and scale-up domains they sit in) from the FailureProcess list; each
// one loses the work since the last checkpoint, stops the job for a restart, and, when it took hardware out,
// keeps the job waiting until enough nodes are back (spares first, then repaired nodes).
//
//   GoodputRequest request;
//   request.gpus = 16384;
//   request.work_hours = 54 * 24;                     // compute at 100 % ETTR
//   request.processes = failure_processes(*rates.profile("llama3-table5"), shape);
//   request.checkpoint_write_hours = 5.0 / 60;
//   request.restart_hours = 10.0 / 60;
//   request.spare_nodes = 32;
//   Result<GoodputResult> result = simulate_goodput(request);   // ettr, wall days, interruptions by cause
//
// Deterministic: run i uses Random(first_seed + i). Exponential processes are drawn as one memoryless stream
// over the job; when any process has a Weibull shape other than 1, each of the job's units (nodes, leaves,
// domains) of every process is its own renewal process, new at the start, and a struck unit is replaced by a
// new one (a spare or the repaired unit). MTTF and the Young/Daly interval use the long-run mean rate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/sim/failure_process.hpp"
#include "gputwin/sim/failure_rates.hpp"

namespace gputwin {

struct GoodputRequest {
  int gpus = 0;
  double work_hours = 0;  // the job's compute time with no failure and no checkpoint
  ClusterShape shape;
  std::vector<FailureProcess> processes;
  double checkpoint_write_hours = 0;
  double restart_hours = 0;
  std::optional<double> checkpoint_interval_hours;  // compute time between checkpoints; empty: Daly's optimum
  int spare_nodes = 0;
  int seeds = 20;
  std::uint64_t first_seed = 1;
  // Stop every run at this wall-clock time instead of at the end of the work (a published snapshot: "419
  // interruptions in 54 days"); ETTR is then the work done over the window.
  std::optional<double> wall_limit_hours;
};

struct MeanStdev {
  double mean = 0;
  double stdev = 0;  // sample standard deviation over the seeds
};

struct CauseInterruptions {
  std::string cause;
  std::string category;
  double expected_per_hour = 0;  // this cause's rate over the job's units
  MeanStdev count;
};

struct GoodputResult {
  int nodes = 0;
  double work_hours = 0;
  double mttf_hours = 0;  // 1 / (sum of the rates over the job's units): mean time between interruptions
  double young_interval_hours = 0;
  double daly_interval_hours = 0;
  double used_interval_hours = 0;
  double first_order_ettr = 0;  // 1 - first_order_waste(...), without repair waits
  int spare_nodes = 0;
  double nodes_in_repair_mean = 0;  // Little's law: node losses an hour x repair hours
  int spare_nodes_p99 = 0;  // spares that cover the nodes in repair 99 % of the time (Poisson, M/G/inf)
  int seeds = 0;
  MeanStdev interruptions;
  std::vector<CauseInterruptions> by_cause;  // in the order of the processes
  MeanStdev ettr;
  MeanStdev wall_hours;
  // Where the wall time went, mean over seeds (hours): useful work, checkpoint writes, work lost to failures,
  // restarts, waiting for nodes.
  double useful_hours = 0;
  double checkpoint_hours = 0;
  double lost_work_hours = 0;
  double restart_hours = 0;
  double repair_wait_hours = 0;
};

[[nodiscard]] Result<GoodputResult> simulate_goodput(const GoodputRequest& request);

// The nodes a job of `gpus` GPUs takes, and how many units of `scope` it spans.
[[nodiscard]] int job_nodes(int gpus, const ClusterShape& shape);
[[nodiscard]] double job_units(FailureScope scope, int nodes, const ClusterShape& shape);

}  // namespace gputwin
