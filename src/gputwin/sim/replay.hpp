// Trace replay: jobs arrive, wait in a queue, start when a queue policy places their GPUs (gang-scheduled),
// and leave when done. A discrete-event simulation on a simulated clock; no randomness, so results are exact
// repeats.
//
//   GpuPool pool = GpuPool::uniform(550, 8);
//   ReplayResult result = replay(jobs, pool, *make_queue_policy("easy"), ReplayOptions{});
//   result.mean_wait, result.intervals (utilisation, queue, stranded GPUs over time), result.by_group, ...
//
//   MigPool mig(catalog.get<MigProfileSet>("a100-80gb"), 64);        // 8 nodes' GPUs in MIG mode
//   ReplayResult mixed = replay(jobs, GpuPool::uniform(542, 8), std::move(mig), *policy, ReplayOptions{});
//   mixed.mig->utilisation, mixed.mig->mean_stranded_slices, mixed.intervals[i].mig_utilisation, ...
//
// Jobs with a mig_profile run on one slice of a MIG-mode GPU, in a queue of their own (MigPartition, ordered
// by the same policy); all other jobs on whole GPUs of the pool, exactly as without MIG.
//
// These two calls are the engine (sim/replay_engine.hpp) with no failure or checkpoint model and only today's
// metrics. Anything more (observers, models, rate changes, nodes down) goes through ReplayEngine, not through
// more overloads here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/sim/energy_metrics.hpp"
#include "gputwin/sim/gpu_pool.hpp"
#include "gputwin/sim/mig_pool.hpp"
#include "gputwin/sim/queue_policy.hpp"
#include "gputwin/sim/run_time_estimate.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct ReplayOptions {
  double interval = 3600;      // seconds per row of the metrics-over-time table
  int scan_depth = 500;        // waiting jobs a pass looks at past the head (Slurm's bf_max_job_test default)
  double slowdown_bound = 10;  // seconds: bounded slowdown = max(1, (wait + run) / max(run, bound))
  bool fair_share_by_user = false;       // fair share over users instead of groups (virtual clusters)
  std::map<std::string, double> shares;  // fair-share weights by group or user; missing = 1
  // What EASY plans with for jobs without a requested time. The default here is perfect foresight, stated as
  // such in the result; the CLI passes the data default (data/reference/runtime-estimates.yaml) or the
  // user's factor.
  RunTimeEstimate run_time_estimate;
};

struct JobOutcome {
  double start = -1;
  double end = -1;
  int leaves = 0;         // leaf switches its GPUs span
  int interruptions = 0;  // times it was stopped before its end
  double held_s = 0;      // wall seconds it held its GPUs (its duration when it ran once, as recorded)
  bool finished = false;  // did all its work
};

struct IntervalMetrics {
  double start = 0;
  double utilisation = 0;          // busy GPU-seconds / (GPUs x interval)
  double queue_length = 0;         // time-averaged waiting jobs
  double running = 0;              // time-averaged running jobs
  double stranded_gpus = 0;        // time-averaged free GPUs on partly used nodes (fragmentation)
  double mig_utilisation = 0;      // busy compute slice-seconds / (MIG-mode compute slices x interval)
  double mig_stranded_slices = 0;  // time-averaged idle compute slices no MIG job can get (MIG fragmentation)
  int submitted = 0;
  int started = 0;
  int finished = 0;
  double down_gpus = 0;  // time-averaged GPUs out of service (hot spares included)
  int interrupted = 0;   // running jobs stopped before their end
};

struct GroupMetrics {
  std::string name;
  int jobs = 0;
  double mean_wait = 0;
  double mean_jct = 0;
  double mean_bounded_slowdown = 0;
  double gpu_hours = 0;
};

struct Summary {
  double mean = 0;
  double median = 0;
  double p95 = 0;
  double max = 0;
};

// What the MIG-mode GPUs did, when the replay had some.
struct MigReplayMetrics {
  std::string profile_set;
  std::string layout;  // the fixed layout of every MIG GPU; empty when slices were created on demand
  int gpus = 0;
  int compute_slices = 0;
  int jobs = 0;  // replayed jobs on slices
  int completed = 0;
  Summary wait;
  double utilisation = 0;  // busy slice-seconds / (compute slices x (makespan - first arrival))
  std::optional<double> window_utilisation;  // the same over the arrival window (ReplayResult)
  double mean_stranded_slices = 0;           // time-averaged over the makespan
};

// Lost GPU-hours of the interruptions one cause made (its restarts and the waits for GPUs after them).
struct CauseLosses {
  std::string cause;
  int interruptions = 0;
  double lost_work_gpu_hours = 0;    // work done since the last checkpoint, done again
  double restart_gpu_hours = 0;      // GPUs held while restarting
  double repair_wait_gpu_hours = 0;  // GPUs the interrupted jobs waited for before they ran again
};

// Mean time to failure seen by the jobs of one size: their hours on GPUs per interruption.
struct JobSizeFailures {
  int min_gpus = 0;
  int max_gpus = 0;  // 0: no upper bound
  int jobs = 0;
  int interruptions = 0;
  double run_hours = 0;              // wall hours the jobs held their GPUs
  std::optional<double> mttf_hours;  // run_hours / interruptions; none without an interruption
  std::optional<double> ettr;        // the finished jobs' work / (end - first start), GPU-weighted
};

// What failures, repairs, spares and checkpoints cost, when the replay had a failure or checkpoint model.
struct FailureMetrics {
  std::string failure_model;
  std::string checkpoint_policy;
  std::string
      checkpoint_write_note;  // where the checkpoint write time came from, when not given (the design)
  int spare_nodes = 0;
  int mig_spare_nodes = 0;  // MIG-mode hot spares (stand in for MIG-mode nodes only)
  int out_of_service_nodes = 0;
  int jobs_interrupted = 0;
  int interruptions = 0;
  double useful_gpu_hours = 0;     // the finished jobs' work
  double allocated_gpu_hours = 0;  // every GPU-hour a job held
  double goodput = 1;              // useful / allocated
  std::optional<double> ettr;      // effective training time ratio over the finished jobs, GPU-weighted
  Summary ettr_by_job;             // each finished job's work / (end - first start)
  double lost_work_gpu_hours = 0;
  double restart_gpu_hours = 0;
  double repair_wait_gpu_hours = 0;
  double checkpoint_gpu_hours = 0;  // GPUs held while writing checkpoints
  std::vector<CauseLosses> by_cause;
  double availability =
      1;  // in-service GPU-hours / GPU-hours of the nodes not held as spares, first arrival on
  double in_service_gpu_hours = 0;
  double schedulable_gpu_hours = 0;
  std::vector<JobSizeFailures> by_job_size;
};

struct ReplayResult {
  std::string policy;
  int jobs = 0;  // replayed
  int completed = 0;
  std::map<std::string, int> rejected;  // reason -> jobs not replayed
  Summary wait;
  Summary jct;
  Summary bounded_slowdown;
  // The same measures as the trace recorded them (jobs with a recorded wait, e.g. SWF field 3); 0 jobs =
  // none.
  int recorded_jobs = 0;
  Summary recorded_wait;
  Summary recorded_bounded_slowdown;
  // Utilisation is measured over the arrival window, from the first to the last arrival of a replayed job:
  // while jobs arrive, the cluster sees the trace's offered load and policies differ. After the last arrival
  // the queue drains (the drain tail, last arrival to makespan), where utilisation falls whatever the policy.
  double first_arrival = 0;                  // s
  double last_arrival = 0;                   // s
  std::optional<double> window_utilisation;  // busy GPU-s in the window / (GPUs x window); empty: no window
  std::optional<double> drain_utilisation;   // the same over the drain tail; empty: no tail
  double drain_gpu_hours = 0;                // GPU-hours run after the last arrival
  double utilisation = 0;  // over first arrival to makespan: the window and the drain tail together
  double makespan = 0;     // s, when the last job ended
  // Expected run times (EASY's reservations): jobs with a requested time, jobs planned with the estimate.
  RunTimeEstimate run_time_estimate;
  bool policy_plans_with_run_times = false;
  int jobs_with_requested_time = 0;
  int jobs_estimated = 0;
  double mean_stranded_gpus = 0;
  double jain_fairness = 1;  // Jain's index of per-group mean bounded slowdown (1 = equal)
  std::vector<IntervalMetrics> intervals;
  std::vector<GroupMetrics> by_group;
  std::vector<GroupMetrics> by_user;
  std::vector<JobOutcome> outcomes;  // by job index
  int interruptions = 0;  // running jobs stopped before their end (ReplayEngine; 0 in plain replays)
  int jobs_interrupted = 0;
  std::optional<MigReplayMetrics> mig;
  std::optional<FailureMetrics> failures;     // when the replay had failure, checkpoint or spare models
  std::optional<ReplayEnergyMetrics> energy;  // when the system is known (ReplayEnergy, replay_energy.hpp)
};

[[nodiscard]] ReplayResult replay(const std::vector<JobSpec>& jobs, GpuPool pool, const QueuePolicy& policy,
                                  const ReplayOptions& options);

// Reasons in `rejected` that start with this are trace rows the reader left out (add_reader_skips), not jobs
// the cluster can never run.
inline constexpr std::string_view kSkippedByReader = "skipped by the reader: ";
// Counts the reader's skipped rows (reason -> rows) into `rejected` under kSkippedByReader reasons.
void add_reader_skips(ReplayResult& result, const std::map<std::string, int>& skipped);
// Jobs the cluster can never run (larger than the cluster, a MIG profile it lacks), reader skips left out.
[[nodiscard]] int jobs_never_run(const ReplayResult& result);
// When not one job could be replayed: what to tell the user ("no job can run on this cluster (2 in the
// trace; 2 larger than the whole cluster)"); empty when some job ran. A replay of nothing is an error, never
// a table of zeros.
[[nodiscard]] std::optional<std::string> no_job_can_run(const ReplayResult& result);
// The same with MIG-mode GPUs; `mig` empty is the call above. Jobs with a mig_profile and no MIG-mode GPUs,
// or a profile those GPUs cannot host, are counted in `rejected`.
[[nodiscard]] ReplayResult replay(const std::vector<JobSpec>& jobs, GpuPool pool, std::optional<MigPool> mig,
                                  const QueuePolicy& policy, const ReplayOptions& options);

}  // namespace gputwin
