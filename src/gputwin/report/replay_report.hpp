// Renders a trace replay: terminal summary, JSON (schema gputwin.replay/1) and the per-interval metrics CSV.
//
//   std::cout << replay_text(result, "philly.csv");
//   std::cout << replay_json(result).dump(2);
//   std::ofstream("metrics.csv") << replay_intervals_csv(result);
//
// Utilisation is given over the arrival window (JSON arrival_window.utilisation, null when every job arrives
// at once), over the drain tail (drain_tail) and, as `utilisation` has always meant, from the first arrival
// to the makespan (docs/simulate.md).
//
// A replay with failure, checkpoint or spare models adds, in the same schema (an optional object, so readers
// of gputwin.replay/1 are unaffected), "failures": goodput, ETTR, lost GPU-hours by cause, availability and
// MTTF by job size; its intervals gain down_gpus and interrupted (also as CSV columns). Without those models
// the output is what it always was.
//
// A replay on a known system (--cluster) adds "energy" (IT and facility kWh, per job, idle, the peak; under a
// power budget the policy's figures, and with --compare-power-policies the trade-off of each policy) and its
// intervals gain it_kw, peak_it_kw, it_kwh, facility_kwh and facility_kw (the facility's energy and mean
// power at the interval's own IT load; mean_cap_w under a budget), as CSV columns too.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/json_input.hpp"
#include "gputwin/sim/replay.hpp"

namespace gputwin {

inline constexpr const char* kReplaySchema = "gputwin.replay/1";
// The prefix of ReplayResult::rejected reasons that the trace reader, not the cluster, left out.

[[nodiscard]] std::string replay_text(const ReplayResult& result, const std::string& trace_name);
[[nodiscard]] nlohmann::ordered_json replay_json(const ReplayResult& result);
[[nodiscard]] std::string replay_intervals_csv(const ReplayResult& result);

// What a gputwin.replay/1 document holds for the charts: one policy's replay, with its per-interval metrics.
// One power policy's run of --compare-power-policies (energy.power_policies.runs[]): the cap trade-off.
struct PowerPolicyRow {
  std::string policy;
  std::string refused;  // why the policy cannot hold the budget; the figures are then 0
  double completed_work_gpu_hours = 0;
  double mean_wait_s = 0;
  double it_kwh = 0;
  double facility_kwh = 0;
  double peak_it_kw = 0;
  double lowest_cap_w = 0;
};

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
  // With failures (the document's `failures` section): GPUs out of service per interval (hot spares included)
  // and the interruptions by cause.
  bool has_failures = false;
  std::vector<double> interval_down_gpus;
  std::vector<std::pair<std::string, int>> interruptions_by_cause;
  // With energy (a replay on a known system, the document's `energy` section): mean IT power per interval,
  // and the IT budget when the replay ran under one.
  bool has_energy = false;
  std::vector<double> interval_it_kw;
  std::vector<double> interval_facility_kw;  // empty in documents written before it was added
  double it_kwh = 0;
  double facility_kwh = 0;
  double pue = 0;  // the run's mean facility over IT energy
  std::optional<double> budget_it_kw;
  std::string budget_policy;                   // the policy that held the budget
  std::vector<PowerPolicyRow> power_policies;  // with --compare-power-policies
};

// Reads a gputwin.replay/1 document back; throws InputFailure naming the field when one is missing.
[[nodiscard]] ReplaySeries replay_series_from_json(const JsonField& root, const std::string& source);

}  // namespace gputwin
