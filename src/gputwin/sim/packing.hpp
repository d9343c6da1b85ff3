// The FGD paper's packing experiment: pods arrive one by one (shuffled with a seed, inflated by sampling with
// replacement until the GPU demand reaches `inflate` x capacity), each is placed by a policy or fails,
// nothing leaves. The result is the GPU allocation ratio, the fragmentation amount and the fragmentation
// ratio at each whole percent of arrived GPU demand, bucketed as the paper's analysis scripts do.
//
//   PackingResult r = run_packing(nodes, pods, parameters, "fgd", 42);
//   r.allocation_percent_by_arrived_percent[100];   // % of GPU capacity allocated when demand reached 100 %
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gputwin/sim/placement_policy.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct PackingResult {
  std::string policy;
  std::uint64_t seed = 0;
  double inflate = 0;
  std::string random_source;  // "go" (draw-for-draw as the reference) or "gputwin"
  int nodes = 0;
  int gpus = 0;
  int pods_original = 0;
  int pods_arrived = 0;  // after inflation
  int pods_placed = 0;
  int pods_failed = 0;
  int gpu_pods_failed = 0;
  double final_allocation_percent = 0;
  // Index = arrived GPU demand in whole percent of capacity (0 .. 100 x inflate); NaN where no pod arrived.
  std::vector<double> allocation_percent_by_arrived_percent;
  std::vector<double> fragmentation_percent_by_arrived_percent;  // frag amount, % of GPU capacity
  std::vector<double> fragmentation_ratio_by_arrived_percent;    // frag amount, % of idle GPU milli
};

// Throws std::invalid_argument for an unknown policy.
[[nodiscard]] PackingResult run_packing(const std::vector<NodeSpec>& nodes, const std::vector<PodSpec>& pods,
                                        const PackingParameters& parameters, const std::string& policy,
                                        std::uint64_t seed, double inflate);

// Mean of several runs' curves, element by element (the paper reports the mean over seeds 42-51).
[[nodiscard]] std::vector<double> mean_curve(const std::vector<std::vector<double>>& curves);

}  // namespace gputwin
