// Queueing policies for trace replay: which waiting jobs start when GPUs free up. Each is one small type
// behind one interface, chosen by name.
//
//   std::unique_ptr<QueuePolicy> policy = make_queue_policy("easy");   // fifo | sjf | easy | fair
//   policy->schedule(view);   // called by the replay engine after every batch of events
//
// - fifo: arrival order; the first job that does not fit blocks the rest (no backfill).
// - sjf: shortest run time first (the trace's recorded duration: an oracle, as in trace studies); any job
// that
//   fits starts, so large jobs can wait long.
// - easy: EASY backfill (Lifka 1995): arrival order; when the head job does not fit it gets a reservation at
//   the earliest time enough GPUs free up, by the running jobs' expected run times; later jobs start now if
//   they are expected to end before that time, or use only GPUs the head job will not need. Expected run
//   times are what a scheduler knows: the requested time, or a stated estimate (run_time_estimate.hpp).
// - fair: fair share across groups (virtual clusters) or users: jobs of the group with the least GPUs in use
// per
//   share go first; any job that fits starts.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/trace/records.hpp"

namespace gputwin {

// What a queue policy sees of the simulation and the one thing it can do: start a job.
class SchedulerView {
 public:
  virtual ~SchedulerView() = default;
  [[nodiscard]] virtual double now() const = 0;
  // Job indices in arrival order. Stable during one pass: jobs started in it leave the list after the pass.
  [[nodiscard]] virtual const std::vector<int>& waiting() const = 0;
  [[nodiscard]] virtual const JobSpec& job(int index) const = 0;
  [[nodiscard]] virtual int free_gpus() const = 0;
  // What the scheduler expects job `index` to run: its requested time, or the replay's stated estimate.
  [[nodiscard]] virtual double expected_run_time(int index) const = 0;
  // Running jobs as (expected end time, GPUs), for reservations.
  [[nodiscard]] virtual std::vector<std::pair<double, int>> expected_releases() const = 0;
  // GPUs in use by the jobs of a fair-share key (group or user), and that key's share.
  [[nodiscard]] virtual double usage_per_share(const JobSpec& job) const = 0;
  // The same for waiting job `index`; views that number fair-share keys override it to skip the lookup by
  // name.
  [[nodiscard]] virtual double job_usage_per_share(int index) const { return usage_per_share(job(index)); }
  // Visits expected_releases() in ascending order (time, then GPUs) until `visit` returns true. This sorts
  // them; views that keep them sorted override it, so a reservation costs the releases it needs, not a sort.
  virtual void visit_releases_in_order(const std::function<bool(double time, int gpus)>& visit) const;
  [[nodiscard]] virtual int scan_depth() const = 0;  // waiting jobs a pass may look at beyond the head
  // Starts the job when its GPUs can be placed now; false otherwise.
  virtual bool try_start(int index) = 0;
};

class QueuePolicy {
 public:
  virtual ~QueuePolicy() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  virtual void schedule(SchedulerView& view) const = 0;
  // True when the policy plans with expected run times (requested times or estimates), so reports say which.
  [[nodiscard]] virtual bool plans_with_run_times() const { return false; }
};

// Throws std::invalid_argument naming the known policies when `name` is not one of them.
[[nodiscard]] std::unique_ptr<QueuePolicy> make_queue_policy(std::string_view name);
[[nodiscard]] std::vector<std::string> queue_policy_names();

}  // namespace gputwin
