// What `simulate replay` predicts a cluster ran over a measured period, from its Slurm accounting history:
// `validate --prometheus URL --range R --sacct FILE` puts it beside the measured utilisation by interval.
// validate may not include sim (docs/architecture.md), so the replay is composed here, in plan, and the CLI
// hands both to the report.
//
//   SacctHistory history = read_sacct_history("sacct.psv").value();
//   ReplayPrediction p = predict_occupancy(history, SacctClock{0, "UTC"}, {t0, t0 + 900, ...}, 900,
//                                          uniform_simulated_cluster(3, 2), *make_queue_policy("easy"), {});
//   p.points[i].busy_gpus;   // GPUs the replay held on average over (times[i] - step, times[i]]
//
// The jobs are replayed on the simulated cluster from the first submission on (so what ran before the range
// is still running into it), with their submit times on the absolute clock: sacct --json gives Unix
// seconds, --parsable2 local wall-clock times that the clock's UTC offset turns into UTC. Jobs submitted
// after the last time are left out (counted). The prediction for a time t is the replay's mean allocated GPUs
// over the step that ends at t, as a share of the replayed cluster's GPUs: the occupancy the measured side
// counts as GPUs above 0 % utilisation.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/sim/queue_policy.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/sim/simulated_cluster.hpp"
#include "gputwin/trace/sacct.hpp"

namespace gputwin {

// How sacct's times become Unix seconds: local = UTC + utc_offset_s (used only for --parsable2 times).
struct SacctClock {
  int utc_offset_s = 0;
  std::string zone = "UTC";  // as the user gave it, printed beside the prediction
};

struct PredictedPoint {
  double time_s = 0;     // Unix seconds, the measured timeline's time
  double busy_gpus = 0;  // the replay's mean allocated GPUs over the step ending here
  double occupancy = 0;  // busy_gpus / the replayed cluster's GPUs
};

struct ReplayPrediction {
  std::string sacct;      // the accounting file
  std::string time_zone;  // the zone its times were read in; "Unix seconds (sacct --json)" for --json
  std::string policy;
  std::string cluster;                 // what was replayed on: "design SPEC" or "the measured fleet"
  int gpus = 0;                        // the replayed cluster's GPUs
  int jobs = 0;                        // replayed (submitted up to the last time)
  int jobs_after = 0;                  // submitted after the last time: left out
  int jobs_rejected = 0;               // larger than the cluster
  std::map<std::string, int> skipped;  // rows the sacct reader left out, by reason
  double first_submit_s = 0;           // Unix seconds of the first job replayed
  std::vector<PredictedPoint> points;  // one per measured time, in order
};

// `times` ascending, `step_s` > 0. Throws std::invalid_argument when no job of the history can run on the
// cluster (larger than it), naming how many and why.
[[nodiscard]] ReplayPrediction predict_occupancy(const SacctHistory& history, const SacctClock& clock,
                                                 const std::vector<double>& times, double step_s,
                                                 SimulatedCluster cluster, const QueuePolicy& policy,
                                                 ReplayOptions options);

}  // namespace gputwin
