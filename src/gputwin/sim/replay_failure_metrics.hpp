// What failures, repairs, spares and checkpoints cost a replay, as one observer: it integrates the GPUs in
// service over time (availability) and every stretch a job held its GPUs (RunSegment): the work that counted,
// the work lost since the last checkpoint, the restarts, the waits for GPUs after an interruption, the
// checkpoint writes, each by the cause of the interruption. The engine registers one when its models are
// active (ReplayModels::active); a replay without them never builds it, so its output is unchanged.
//
//   FailureAccounting accounting(jobs, {"processes", "interval", 2, 0}, /*total_gpus=*/64,
//   /*schedulable=*/48);
//
// Jobs on MIG slices count as their slice's share of a GPU (a 3g of 7 compute slices: 3/7 GPU) in goodput,
// ETTR and the lost GPU-hours, and the MIG-mode GPUs out of service in availability; the by-size table groups
// whole-GPU jobs only (a slice job has no GPU count).
//   ... spans and segments ...
//   accounting.summarize(end, result);   // result.failures: goodput, ETTR, lost GPU-hours by cause, MTTF by
//   size
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gputwin/sim/mig_partition.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/sim/replay_metrics.hpp"
#include "gputwin/sim/replay_observer.hpp"

namespace gputwin {

struct FailureSetupNames {
  std::string failure_model;
  std::string checkpoint_policy;
  int spare_nodes = 0;
  int out_of_service_nodes = 0;
  int mig_spare_nodes = 0;
};

class FailureAccounting final : public ReplayObserver {
 public:
  // `total_gpus`: the whole-GPU pool's and the MIG-mode GPUs; `schedulable_gpus`: those not held as spares
  // at the start. `mig`: the MIG partition, when there is one (a slice job counts as its compute slices'
  // share of a GPU).
  FailureAccounting(const std::vector<JobSpec>& jobs, FailureSetupNames setup, int total_gpus,
                    int schedulable_gpus, const MigPartition* mig = nullptr);

  void on_span(const ReplaySpan& span) override;
  void on_submit(int job, double time) override;
  void on_segment(const RunSegment& segment) override;
  // Fills result.failures; after the engine's outcomes are final.
  void summarize(const ReplayEnd& end, ReplayResult& result) const;

 private:
  CauseLosses& losses_of(std::string_view cause);
  // GPUs a job holds: its GPUs, or its MIG slice's share of a GPU.
  [[nodiscard]] double gpus_of(const JobSpec& job) const;

  const std::vector<JobSpec>& jobs_;
  FailureSetupNames setup_;
  int total_gpus_;
  int schedulable_gpus_;
  const MigPartition* mig_;
  bool any_arrival_ = false;
  double in_service_gpu_seconds_ = 0;
  double schedulable_gpu_seconds_ = 0;
  double allocated_gpu_seconds_ = 0;
  double checkpoint_gpu_seconds_ = 0;
  std::vector<CauseLosses> causes_;  // in seconds until summarize turns them into hours
};

}  // namespace gputwin
