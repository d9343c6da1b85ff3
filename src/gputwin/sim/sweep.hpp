// A sweep: a grid of trace replays (designs x policies x trace variants x checkpoint intervals x spare pools
// x seeds) run task by task and gathered into one table; the checkpoint and spare axes exist when the file
// has a `failures:` block, and then the seed is also the failure seed. The grid comes from a YAML file
// (docs/sweep.md); each task is independent, so tasks can run on local threads or as the tasks of a Slurm job
// array, and give the same rows either way.
//
//   Result<SweepSpec> sweep = load_sweep("policies.yaml");
//   std::vector<SweepTask> tasks = sweep_tasks(sweep.value());        // in a fixed order; task i is tasks[i]
//   SweepRow row = run_sweep_task(sweep.value(), tasks[i], trace.jobs, pool_of_design);
//   std::vector<SweepRow> rows = run_sweep(sweep.value(), trace.jobs, pools, /*threads*/ 4);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/sim/failure_setup.hpp"
#include "gputwin/sim/gpu_pool.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

// A cluster to replay on: a spec (designed by the caller) or identical nodes.
struct SweepDesign {
  std::string name;
  std::string spec_path;  // absolute, or empty for `nodes` x `gpus_per_node`
  int nodes = 0;
  int gpus_per_node = 8;
};

// The trace as recorded, or changed: a seeded sample of its jobs, and/or arrivals sped up or slowed down.
struct TraceVariant {
  std::string name;
  double sample = 1.0;      // fraction of jobs kept, each drawn independently with the task's seed
  double time_scale = 1.0;  // submit times multiplied by this (0.8 = the same jobs arriving 25 % faster)
};

// Failures in every task (the file's `failures:` block): the base setup (rates, repair, checkpoint write,
// restart, maintenance) and two axes. A task's seed is its failure seed.
struct SweepFailures {
  FailureSetup setup;                             // checkpoint_interval and spare_nodes come from the axes
  std::vector<std::string> checkpoint_intervals;  // "30min", "young-daly", or "none" (no checkpoints)
  std::vector<int> spare_nodes{0};
  SourceLocation spare_nodes_where;  // to name the field when a design has too few nodes for a pool
};

struct SweepSpec {
  std::string file;
  std::string name;
  std::string trace_path;  // absolute
  std::string trace_format = "auto";
  std::vector<SweepDesign> designs;
  std::vector<std::string> policies;
  std::vector<std::uint64_t> seeds{1};
  std::vector<TraceVariant> variants{{"base"}};
  ReplayOptions replay;
  std::optional<SweepFailures> failures;
};

struct SweepTask {
  int index = 0;
  int design = 0;  // indices into the spec's lists
  int policy = 0;
  int variant = 0;
  int seed = 0;
  int checkpoint = 0;  // into failures->checkpoint_intervals (0 without failures)
  int spares = 0;      // into failures->spare_nodes
};

// A row's failure figures (sim/replay.hpp FailureMetrics), in sweeps with failures.
struct SweepFailureRow {
  std::string checkpoint_interval;
  int spare_nodes = 0;
  int interruptions = 0;
  double goodput = 1;
  std::optional<double> ettr;  // over the finished jobs, GPU-weighted; empty when none finished
  double availability = 1;
};

// One task's result: what it ran and the replay's headline figures.
struct SweepRow {
  int task = 0;
  std::string design;
  std::string policy;
  std::string variant;
  std::uint64_t seed = 0;
  int jobs = 0;  // replayed
  int completed = 0;
  int never_run = 0;       // jobs of the trace this design can never run (larger than it, ...)
  int reader_skipped = 0;  // trace rows the reader left out (the same for every row of a sweep)
  double mean_wait_s = 0;
  double p95_wait_s = 0;
  double mean_jct_s = 0;
  double mean_bounded_slowdown = 0;
  std::optional<double> window_utilisation;  // over first to last arrival; empty when all arrive at once
  double drain_s = 0;                        // the drain tail: last arrival to makespan
  double utilisation = 0;                    // over first arrival to makespan
  double makespan_s = 0;
  std::optional<SweepFailureRow> failures;
};

// Paths in the file are relative to the file. Errors name the file, line and field.
[[nodiscard]] Result<SweepSpec> load_sweep(const std::string& path);
[[nodiscard]] Result<SweepSpec> parse_sweep(const std::string& text, const std::string& name);

// Designs outermost, then policies, variants, checkpoint intervals, spare pools, seeds.
[[nodiscard]] std::vector<SweepTask> sweep_tasks(const SweepSpec& sweep);
[[nodiscard]] std::vector<JobSpec> apply_variant(const std::vector<JobSpec>& jobs,
                                                 const TraceVariant& variant, std::uint64_t seed);
// `reader_skipped`: the trace rows its reader left out, carried into every row so no table hides them.
// `topology`: where the pool's nodes sit (what failures strike); needed when the sweep has failures
// (std::invalid_argument otherwise).
[[nodiscard]] SweepRow run_sweep_task(const SweepSpec& sweep, const SweepTask& task,
                                      const std::vector<JobSpec>& jobs, const GpuPool& pool,
                                      int reader_skipped = 0, const ReplayTopology* topology = nullptr);
// Every task, on up to `threads` threads; `pools[d]` is design d's cluster and `topologies[d]` its nodes'
// places (needed with failures). Rows in task order, whatever the threads' timing.
[[nodiscard]] std::vector<SweepRow> run_sweep(const SweepSpec& sweep, const std::vector<JobSpec>& jobs,
                                              const std::vector<GpuPool>& pools, int threads,
                                              int reader_skipped = 0,
                                              const std::vector<ReplayTopology>& topologies = {});
// The rows on which not one job could run, as errors to report ("design 'tiny': no job can run on this
// cluster (...)"): a sweep of such a design measures nothing.
// An error at the file's `failures.spare_nodes` when a spare pool leaves no node of a design (`nodes` its
// whole-GPU node count); empty when every pool fits.
[[nodiscard]] std::optional<InputError> spare_pool_error(const SweepSpec& sweep, const SweepDesign& design,
                                                         int nodes);
[[nodiscard]] std::vector<std::string> sweep_refusals(const std::vector<SweepRow>& rows);

}  // namespace gputwin
