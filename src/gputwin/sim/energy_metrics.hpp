// What a replay on a known system drew (ReplayEnergy, replay_energy.hpp): IT and facility energy per job,
// per interval and idle, the peak, and under a power budget the policy that held it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gputwin {

struct JobEnergy {
  int job = 0;              // index in the trace
  std::string id;           // the trace's id
  double it_kwh = 0;        // its GPUs at their draw and their share of their nodes' non-GPU power
  double facility_kwh = 0;  // its IT energy in each interval x that interval's facility over IT energy
  double gpu_hours = 0;     // GPU-hours it held
};

struct EnergyInterval {
  double start = 0;             // s, as ReplayResult::intervals
  double it_kwh = 0;            // drawn in the interval
  double mean_it_kw = 0;        // it_kwh over the interval
  double facility_kwh = 0;      // the facility's at the interval's own IT load (facility_energy.hpp)
  double mean_facility_kw = 0;  // facility_kwh over the interval
  double peak_it_kw = 0;        // highest draw in it
  double mean_cap_w = 0;        // time-averaged GPU power limit of the busy GPUs (the default when uncapped)
};

// Under a power budget: what the policy did.
struct PowerBudgetMetrics {
  std::string policy;           // cap-all, admit-fewer, cap-low-priority
  double budget_kw = 0;         // IT
  double lowest_cap_w = 0;      // the lowest limit busy GPUs ran at
  double capped_gpu_hours = 0;  // busy GPU-hours under a limit below the default
  double mean_throughput = 1;   // busy-GPU-time-weighted work per second relative to the default limit
  // cap-low-priority: the same for the GPUs of low-priority jobs and for the others, and the low ones'
  // GPU-hours.
  double low_priority_gpu_hours = 0;
  double low_priority_mean_throughput = 1;
  double other_mean_throughput = 1;
  int jobs_refused = 0;  // jobs that need more power than the budget allows on their own
};

// One power policy's replay of the same trace under the same budget (--compare-power-policies).
struct PowerPolicyRun {
  std::string policy;
  std::string refused;  // why the policy cannot hold this budget here; the figures are then empty
  int completed = 0;
  double completed_work_gpu_hours = 0;
  double work_by_last_arrival_gpu_hours = 0;
  double mean_wait_s = 0;
  double makespan_s = 0;
  double it_kwh = 0;
  double facility_kwh = 0;
  double peak_it_kw = 0;
  double lowest_cap_w = 0;  // the lowest limit busy GPUs ran at (the default limit when never capped)
  // Work per second of busy GPUs relative to the default limit: low-priority jobs' and the others'.
  double low_priority_gpu_hours = 0;  // busy GPU-hours of low-priority jobs (0: the trace has none marked)
  double low_priority_mean_throughput = 1;
  double other_mean_throughput = 1;
};

struct ReplayEnergyMetrics {
  std::string system;
  std::string accelerator;
  std::string source;  // where the power figures come from
  double pue = 1;
  double busy_gpu_w = 0;  // a busy GPU's draw at the default limit (training phase mix)
  double idle_gpu_w = 0;
  double non_gpu_node_w = 0;
  double it_kwh = 0;  // the cluster's compute nodes, first event to the makespan
  double facility_kwh = 0;
  double jobs_it_kwh = 0;        // sum of per_job
  double idle_it_kwh = 0;        // idle GPUs and their share of non-GPU power
  double idle_facility_kwh = 0;  // their IT energy by interval at each interval's facility over IT energy
  double peak_it_kw = 0;
  double mean_it_kw = 0;
  double lowest_cap_w = 0;  // the lowest limit busy GPUs ran at (the default limit when never capped)
  double completed_work_gpu_hours = 0;  // GPU-hours of work (at the default limit) of the finished jobs
  // The same of the jobs finished by the last arrival: what the cluster got done while the trace offered its
  // load (a replay runs every job to its end, so the total alone cannot show a budget's cost).
  double work_by_last_arrival_gpu_hours = 0;
  std::vector<JobEnergy> per_job;  // jobs that held GPUs, by trace order
  std::vector<EnergyInterval> intervals;
  std::optional<PowerBudgetMetrics> budget;
  double budget_kw = 0;  // IT budget the replay ran under; 0 without one
  std::vector<PowerPolicyRun>
      compared;  // --compare-power-policies: none, cap-all, admit-fewer, cap-low-priority
};

}  // namespace gputwin
