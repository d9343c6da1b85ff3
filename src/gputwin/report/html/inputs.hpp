// The JSON results the HTML report draws, read back from the files `simulate ... --json` and `perf ...
// --json` wrote. Each file is recognised by its `schema` field; a file that is not JSON, has a schema the
// report does not draw, or lacks a field a chart needs is an error naming the file (and the field).
//
//   auto inputs = load_report_inputs({"replay-fifo.json", "packing-fgd.json"}, {"busbw.json"});
//   if (!inputs.ok()) std::cerr << inputs.error_text();
//   for (const ReplaySeries& replay : inputs.value().replays) { ... replay.utilisation ... }
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/sim/replay.hpp"  // Summary: the replay's mean, median, p95 and max

namespace gputwin {

// `simulate replay --json` (gputwin.replay/1): one policy's replay, with its per-interval metrics.
struct ReplaySeries {
  std::string source;
  std::string policy;
  int jobs = 0;
  double utilisation = 0;  // over the whole replay, 0..1
  Summary jct_s;
  Summary wait_s;
  std::vector<double> interval_start_s;
  std::vector<double> interval_utilisation;    // 0..1
  std::vector<double> interval_queue_length;   // mean waiting jobs
  std::vector<double> interval_stranded_gpus;  // mean idle GPUs no waiting job could use
};

// `simulate packing --json` (gputwin.packing/1): GPUs allocated as arrived demand grows, one point per
// percent.
struct PackingCurve {
  std::string source;
  std::string policy;
  int seeds = 0;
  std::vector<std::optional<double>> allocation_percent;  // index = arrived demand in percent of capacity
};

// `perf collective --json` (gputwin.collective/1): predicted bus bandwidth by message size.
struct CollectiveCurve {
  std::string source;
  std::string op;
  int ranks = 0;
  std::vector<double> bytes;
  std::vector<double> busbw_gbps;
};

// `perf train --json` (gputwin.perf-train/1): the terms that add up to one training step.
struct StepTerm {
  std::string name;
  double seconds = 0;
};
struct TrainingBreakdown {
  std::string source;
  std::string model;
  int gpus = 0;
  double step_time_s = 0;
  double mfu = 0;
  std::vector<StepTerm> terms;
};

struct ReportInputs {
  std::vector<ReplaySeries> replays;
  std::vector<PackingCurve> packings;
  std::vector<CollectiveCurve> collectives;
  std::vector<TrainingBreakdown> trainings;
};

// Simulation files must be replay or packing results, perf files collective or training results.
[[nodiscard]] Result<ReportInputs> load_report_inputs(const std::vector<std::string>& simulation_paths,
                                                      const std::vector<std::string>& perf_paths);

// The same for one document already in memory; `source` names it in errors.
enum class ReportInputKind { simulation, perf };
[[nodiscard]] Result<ReportInputs> parse_report_input(std::string_view text, const std::string& source,
                                                      ReportInputKind kind);

}  // namespace gputwin
