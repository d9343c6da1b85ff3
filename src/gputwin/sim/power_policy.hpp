// What a replayed cluster draws, and the policies that keep it within a power budget: models behind the
// replay's model seam (replay_models.hpp), chosen by name as queue policies are.
//
//   ReplayPowerProfile profile = ...;                 // the perf power model's figures, handed in as numbers
//   std::shared_ptr<const PowerPolicy> cap_all = make_power_policy("cap-all", profile, 2.5e6, 1024);
//   models.power = cap_all;                           // ReplayEngine asks it before every start and after
//   ReplayEngine engine(jobs, pool, std::nullopt, *queue, options, std::move(models));   // every pass
//
// The budget is on IT power: the compute nodes' GPUs and their non-GPU power (CPUs, memory, NICs, fans), with
// every GPU at its idle draw unless a job runs on it. Busy GPUs all run at one cap point (a limit, the
// training-phase-mix draw at it and the throughput it keeps), the highest that fits the budget:
// - "none": no budget; every busy GPU at the default limit.
// - "cap-all": every busy GPU capped so the cluster fits; a job starts only when it fits at the lowest cap.
//   Running jobs do their work at the cap's throughput (a cap that changes changes their rate).
// - "admit-fewer": no cap; a job waits in the queue while starting it would take the cluster over the budget.
// - "cap-low-priority": as cap-all, but the GPUs of low-priority jobs (JobSpec::low_priority) are capped
// first:
//   while the budget is over, their cap is lowered step by step down to the GPU's minimum limit with the
//   other jobs' GPUs at the default limit; only when the low-priority GPUs at the minimum still do not fit
//   are the others capped too (to the highest cap that fits, cap-all's rule, with the low-priority ones at
//   the minimum). Admission is cap-all's: a job starts only when the cluster fits with every busy GPU at the
//   minimum. For the same busy GPUs, other jobs' cap is never below cap-all's and low-priority jobs' never
//   above it.
// sim does not include perf: the profile is plain numbers the caller takes from perf/power_model.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/design/facility_power_curve.hpp"

namespace gputwin {

// One GPU power limit: what a busy GPU draws under it and the work per second it keeps (1 at the default).
struct GpuCapPoint {
  double limit_w = 0;
  double busy_draw_w = 0;  // under the training phase mix
  double throughput = 1;   // relative to the default limit
};

struct ReplayPowerProfile {
  std::string system;       // catalog id of the compute nodes
  std::string accelerator;  // catalog id of their GPUs
  int nodes = 0;
  int gpus_per_node = 0;
  double idle_gpu_w = 0;
  double non_gpu_node_w = 0;  // per node, always drawn
  double pue = 1;             // facility over IT power (the design's, blended by cooling)
  // The design's facility power by IT load (its cooling class's overhead split); without a curve the
  // facility is IT x pue at every load.
  FacilityOverhead facility;
  std::vector<GpuCapPoint> caps;  // by rising limit; the last is the default limit (throughput 1)
  std::string source;             // where the figures come from, one line

  [[nodiscard]] int gpus() const { return nodes * gpus_per_node; }
  [[nodiscard]] double non_gpu_per_gpu_w() const {
    return gpus_per_node > 0 ? non_gpu_node_w / gpus_per_node : 0.0;
  }
  // IT power with `busy` GPUs at cap point `cap` and every other GPU idle.
  [[nodiscard]] double it_power_w(int busy, std::size_t cap) const {
    return nodes * non_gpu_node_w + (gpus() - busy) * idle_gpu_w + busy * caps[cap].busy_draw_w;
  }
  // The same with two groups of busy GPUs at their own cap points.
  [[nodiscard]] double it_power_w(int busy, std::size_t cap, int other_busy, std::size_t other_cap) const {
    return it_power_w(busy, cap) - other_busy * idle_gpu_w + other_busy * caps[other_cap].busy_draw_w;
  }
  [[nodiscard]] double idle_power_w() const { return it_power_w(0, caps.size() - 1); }
};

// The ReplayResult::rejected reason of jobs that need more power on their own than the budget allows.
inline constexpr std::string_view kRefusedByPowerBudget = "needs more power than the budget allows";

// The cap points of the two kinds of busy GPUs: those of low-priority jobs and the others.
struct BusyCaps {
  std::size_t normal = 0;
  std::size_t low = 0;
};

class PowerPolicy {
 public:
  virtual ~PowerPolicy() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // May a job of `gpus` GPUs start now, with `busy` GPUs already running jobs?
  [[nodiscard]] virtual bool may_start(int gpus, int busy) const = 0;
  // The cap point every busy GPU runs at while `busy` GPUs run jobs.
  [[nodiscard]] virtual std::size_t cap_index(int busy) const = 0;
  // The cap points while `normal` GPUs run other jobs and `low` GPUs run low-priority jobs; every policy but
  // cap-low-priority treats them alike.
  [[nodiscard]] virtual BusyCaps cap_indices(int normal, int low) const {
    const std::size_t cap = cap_index(normal + low);
    return {cap, cap};
  }
  [[nodiscard]] virtual const ReplayPowerProfile& profile() const = 0;
  // The IT budget in W; 0 for "none".
  [[nodiscard]] virtual double budget_w() const = 0;

  [[nodiscard]] double throughput(int busy) const { return profile().caps[cap_index(busy)].throughput; }
  [[nodiscard]] double busy_draw_w(int busy) const { return profile().caps[cap_index(busy)].busy_draw_w; }
};

// Throws std::invalid_argument with the reason when the policy is unknown or cannot hold the budget: a budget
// below the cluster's idle draw, one too small for one node busy (at the lowest cap for cap-all), cap-all on
// a GPU without settable caps in the power model (cap-all, cap-low-priority). Whether the replayed jobs have
// any low-priority one is the caller's to check (cap-low-priority then acts as cap-all).
[[nodiscard]] std::shared_ptr<const PowerPolicy> make_power_policy(std::string_view name,
                                                                   const ReplayPowerProfile& profile,
                                                                   double budget_w);
[[nodiscard]] std::vector<std::string> power_policy_names();

}  // namespace gputwin
