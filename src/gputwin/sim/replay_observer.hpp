// What a replay tells the metrics that watch it. The engine keeps the clock and the state; observers see
// every stretch of time between two events once (a span, with the state that held during it) and every job
// event, and integrate what they measure. Today's figures are one observer (ReplayMetrics,
// replay_metrics.hpp); energy or goodput lost to failures are more observers, not edits of the loop.
//
//   class BusyGpuSeconds final : public ReplayObserver {
//    public:
//     void on_span(const ReplaySpan& span) override { total += span.whole.busy * (span.to - span.from); }
//     double total = 0;
//   };
//   BusyGpuSeconds busy;
//   ReplayEngine engine(jobs, GpuPool::uniform(4, 8), std::nullopt, *policy, options);
//   engine.add_observer(busy);
//   ReplayResult result = engine.run();
#pragma once

#include <optional>
#include <string_view>

namespace gputwin {

// The state of one partition (the whole-GPU nodes, or the MIG-mode GPUs) during a span. Whole GPUs count
// GPUs; MIG counts compute slices.
struct PartitionState {
  int busy = 0;      // GPUs (slices) running jobs
  int stranded = 0;  // idle GPUs on partly used nodes (idle slices no MIG job can get)
  int waiting_jobs = 0;
  int running_jobs = 0;
  int down = 0;   // GPUs out of service (whole-GPU nodes only), hot spares included
  int spare = 0;  // of those, GPUs of idle hot-spare nodes
  // Of `busy`, GPUs running low-priority jobs (JobSpec::low_priority); kept only under a power budget.
  int low_priority_busy = 0;
};

// [from, to): nothing happened inside it; the state is what held after the events at `from`.
struct ReplaySpan {
  double from = 0;
  double to = 0;
  PartitionState whole;
  std::optional<PartitionState> mig;  // when the cluster has MIG-mode GPUs
};

// One stretch a job held its GPUs, from a start to the stop that ended it: what the failure figures (goodput,
// lost GPU-hours by cause) integrate.
struct RunSegment {
  int job = 0;
  double from = 0;         // when it started
  double to = 0;           // when it stopped
  double restart_s = 0;    // wall seconds of it spent restarting (no work done)
  double work_done_s = 0;  // work (seconds at rate 1) done in it
  double work_lost_s = 0;  // of that, lost at its end (0 when it finished)
  double waited_s = 0;     // queued between the interruption before it and its start (0 for a first start)
  std::string_view cause;  // why it stopped; empty when the job finished
  std::string_view restart_cause;  // the interruption it restarted after; empty for a first start
};

class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  // Spans come in time order, each once, back to back from time 0 to the last event.
  virtual void on_span(const ReplaySpan& /*span*/) {}
  // A job entered the replay (it can run on this cluster) and joined a queue.
  virtual void on_submit(int /*job*/, double /*time*/) {}
  // A job started (again, after an interruption: on_start once per start).
  virtual void on_start(int /*job*/, double /*time*/) {}
  // A job did all its work.
  virtual void on_finish(int /*job*/, double /*time*/) {}
  // A running job was stopped before its end; `requeued` when it went back to its queue.
  virtual void on_interrupt(int /*job*/, double /*time*/, bool /*requeued*/) {}
  // A job stopped (finished or interrupted): the stretch it ran since it last started. After on_finish or
  // on_interrupt.
  virtual void on_segment(const RunSegment& /*segment*/) {}
};

}  // namespace gputwin
