// The MIG-mode GPUs of a replay as a partition of their own: jobs that ask for a MIG slice wait in their own
// queue, ordered by the same queue policy as whole-GPU jobs, and start on one slice of their profile.
//
//   MigPartition mig(jobs, MigPool(set, 64), MigQueueOptions{});
//   if (auto why = mig.rejection(jobs[i])) ...;   // e.g. the fixed layout has no instance of its profile
//   mig.submit(i);                                // on arrival of a job with a mig_profile
//   for (const int started : mig.schedule(policy, now)) ...;
//   mig.finish(i);                                // on its completion
//   std::vector<int> hit = mig.set_node_down(1);  // the jobs on node 1's slices; the caller interrupts them
//   mig.set_node_up(1);
//
// Why a partition: MIG-mode and whole-GPU GPUs are disjoint, so the two kinds of job never compete for the
// same GPU; a waiting slice must not block a whole-GPU job under FIFO, nor the reverse, as with a separate
// Slurm partition or Kubernetes resource. The queue policy sees the partition through SchedulerView in
// compute slices instead of GPUs: a job's `gpus` is its profile's compute slices and free_gpus() the compute
// slices a next job could still get, so FIFO, SJF, EASY reservations and fair-share usage work unchanged.
// Slot layout can still make a job that "fits" by count fail to place; try_start then returns false, as for a
// fragmented GPU pool.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gputwin/sim/fair_share_usage.hpp"
#include "gputwin/sim/mig_pool.hpp"
#include "gputwin/sim/queue_policy.hpp"
#include "gputwin/sim/run_time_estimate.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct MigQueueOptions {
  int scan_depth = 500;
  bool fair_share_by_user = false;
  std::map<std::string, double> shares;  // fair-share weights by group or user; missing = 1
  RunTimeEstimate run_time_estimate;     // for jobs without a requested time
};

class MigPartition final : public SchedulerView {
 public:
  MigPartition(const std::vector<JobSpec>& jobs, MigPool pool, MigQueueOptions options);

  // Why `job` can never run on these GPUs (its profile is not in the set, or not in the fixed layout); empty
  // when it can wait for a slice.
  [[nodiscard]] std::optional<std::string> rejection(const JobSpec& job) const;
  void submit(int index);
  // Lets `policy` start waiting jobs at `now`; returns the jobs it started, in start order.
  std::vector<int> schedule(const QueuePolicy& policy, double now);
  void finish(int index);
  // Takes a MIG-mode node (MigPool numbering) out of service; returns the jobs running on its GPUs' slices
  // (ascending). The caller ends or requeues them (finish releases their slices).
  std::vector<int> set_node_down(int node);
  void set_node_up(int node) { pool_.set_node_up(node); }
  // The jobs running on `node`'s slices (ascending), the node left as it is.
  [[nodiscard]] std::vector<int> jobs_on_node(int node) const;

  [[nodiscard]] const MigPool& pool() const { return pool_; }
  [[nodiscard]] int waiting_count() const { return static_cast<int>(waiting_.size()); }
  [[nodiscard]] int running_count() const { return static_cast<int>(running_.size()); }
  // Compute slices of `job`'s profile (0 when the profile is unknown).
  [[nodiscard]] int compute_slices_of(const JobSpec& job) const;

  // SchedulerView, in compute slices.
  [[nodiscard]] double now() const override { return now_; }
  [[nodiscard]] const std::vector<int>& waiting() const override { return waiting_; }
  [[nodiscard]] const JobSpec& job(int index) const override { return as_slices_.at(index); }
  [[nodiscard]] int free_gpus() const override { return pool_.usable_compute_slices(); }
  [[nodiscard]] double expected_run_time(int index) const override {
    return gputwin::expected_run_time(jobs_[index], options_.run_time_estimate);
  }
  [[nodiscard]] std::vector<std::pair<double, int>> expected_releases() const override;
  [[nodiscard]] double usage_per_share(const JobSpec& job) const override {
    return usage_.usage_per_share(job);
  }
  [[nodiscard]] double job_usage_per_share(int index) const override {
    return usage_.job_usage_per_share(index);
  }
  [[nodiscard]] int scan_depth() const override { return options_.scan_depth; }
  bool try_start(int index) override;

 private:
  struct Running {
    MigSlice slice;
    double expected_end = 0;
  };
  const std::vector<JobSpec>& jobs_;
  MigPool pool_;
  MigQueueOptions options_;
  double now_ = 0;
  std::vector<int> waiting_;
  std::unordered_map<int, JobSpec> as_slices_;  // waiting or running job -> itself with gpus = compute slices
  std::map<int, Running> running_;              // ordered: deterministic reservations
  FairShareUsage usage_;                        // compute slices in use per fair-share key
  std::vector<int> started_now_;
};

}  // namespace gputwin
