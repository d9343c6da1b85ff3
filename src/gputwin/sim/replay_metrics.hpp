// Today's replay figures as one observer: it integrates the spans (busy GPUs, queue, running jobs, stranded
// GPUs, MIG slices) into per-interval rows and running totals, counts submits, starts and finishes per
// interval, and at the end turns the engine's outcomes into the ReplayResult summaries (waits, JCT, bounded
// slowdown, utilisation over the arrival window and the drain tail, groups, users, Jain's index, MIG).
//
//   ReplayMetrics metrics(options.interval);   // the engine owns one and registers it first
//   ... spans and job events ...
//   metrics.summarize(ReplayEnd{jobs, options, pool.total_gpus(), mig}, result);
#pragma once

#include <utility>
#include <vector>

#include "gputwin/sim/mig_partition.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/sim/replay_observer.hpp"

namespace gputwin {

// Mean, median, p95 and max of `values` (all zero when empty), as the replay's summaries print them.
[[nodiscard]] Summary summary_of(std::vector<double> values);

// What the summary reads from the engine once the replay is over.
struct ReplayEnd {
  const std::vector<JobSpec>& jobs;
  const ReplayOptions& options;
  int total_gpus = 0;                 // whole-GPU nodes' GPUs
  const MigPartition* mig = nullptr;  // the MIG-mode GPUs, when there were some
};

class ReplayMetrics final : public ReplayObserver {
 public:
  // `mig_slices_per_gpu`: compute slices of a MIG-mode GPU (0 without MIG), to count its GPUs out of service.
  explicit ReplayMetrics(double interval, int mig_slices_per_gpu = 0)
      : interval_(interval), mig_slices_per_gpu_(mig_slices_per_gpu) {}

  void on_span(const ReplaySpan& span) override;
  void on_submit(int job, double time) override;
  void on_start(int job, double time) override;
  void on_finish(int job, double time) override;
  void on_interrupt(int job, double time, bool requeued) override;

  [[nodiscard]] double busy_gpu_seconds() const { return busy_gpu_seconds_; }
  [[nodiscard]] double busy_slice_seconds() const { return busy_slice_seconds_; }
  // Fills everything in `result` but the engine's own counts (policy, jobs, rejected, outcomes, ...), which
  // must be in it already; moves the interval rows into it.
  void summarize(const ReplayEnd& end, ReplayResult& result);

 private:
  IntervalMetrics& interval_at(double time);
  void integrate(const ReplaySpan& span);
  void summarize_window(const ReplayEnd& end, ReplayResult& result) const;
  void summarize_intervals(const ReplayEnd& end, ReplayResult& result);
  void summarize_mig(const ReplayEnd& end, ReplayResult& result);

  double interval_;
  int mig_slices_per_gpu_ = 0;
  std::vector<IntervalMetrics> intervals_;
  bool any_arrival_ = false;
  double first_arrival_ = 0;
  double last_arrival_ = 0;
  double busy_gpu_seconds_ = 0;                           // busy GPUs integrated over time so far
  double busy_slice_seconds_ = 0;                         // busy MIG compute slices, the same
  std::pair<double, double> busy_at_last_arrival_{0, 0};  // both integrals at the last arrival so far
};

}  // namespace gputwin
