// The discrete-event replay engine, open at one seam: it keeps the clock, the queues and each job's run
// (remaining work and rate, job_run.hpp); queue policies say who starts, models (replay_models.hpp) say when
// nodes fail, observers (replay_observer.hpp) measure. replay() (replay.hpp) is this engine with no models
// and only today's metrics.
//
//   ReplayEngine engine(jobs, GpuPool::uniform(4, 8), std::nullopt, *make_queue_policy("fifo"), options);
//   engine.add_observer(energy);                      // any number; not owned, must outlive the engine
//   engine.run_until(3600);                           // every event up to t = 1 h, then the clock to 1 h
//   engine.set_rate(job, 0.5);                        // runs at half speed from now: its end moves later
//   engine.interrupt(other, InterruptAction::requeue);  // back to the queue; its queued completion is stale
//   std::vector<int> hit = engine.set_node_down(3);   // jobs on node 3 interrupted (requeued)
//   engine.set_node_up(3);
//   ReplayResult result = engine.run();               // to the end, with today's summaries
//
// Interrupted jobs keep their first start (waits are measured to it) and their JCT runs to their last end.
// Requeued whole-GPU jobs go back to their arrival-order place in the queue; MIG jobs to the end of theirs.
// Nodes are numbered as in ReplayTopology: the whole-GPU pool's first, then the MIG-mode nodes
// (MigPool::nodes), so a failure model, maintenance or an out-of-service list strikes either kind the same
// way. A MIG-mode node that goes down interrupts the jobs on its GPUs' slices (requeued at the end of the MIG
// queue, restarting from their checkpoint); its GPUs take no slice until it is back. Hot spares stand in for
// nodes of their own kind: whole-GPU spares (ReplayModels::spare_nodes, the last whole-GPU nodes) for
// whole-GPU nodes, MIG spares (ReplayModels::mig_spare_nodes, the last MIG-mode nodes, partitioned like the
// others) for MIG-mode nodes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <utility>
#include <vector>

#include "gputwin/sim/fair_share_usage.hpp"
#include "gputwin/sim/gpu_pool.hpp"
#include "gputwin/sim/job_run.hpp"
#include "gputwin/sim/mig_partition.hpp"
#include "gputwin/sim/mig_pool.hpp"
#include "gputwin/sim/queue_policy.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/sim/replay_failure_metrics.hpp"
#include "gputwin/sim/replay_metrics.hpp"
#include "gputwin/sim/replay_models.hpp"
#include "gputwin/sim/replay_observer.hpp"

namespace gputwin {

enum class InterruptAction {
  requeue,  // back to its queue, to start again with the work its checkpoint policy kept
  end,      // leaves the replay unfinished
};

class ReplayEngine final : private SchedulerView {
 public:
  // `jobs`, `policy` and the observers must outlive the engine.
  ReplayEngine(const std::vector<JobSpec>& jobs, GpuPool pool, std::optional<MigPool> mig,
               const QueuePolicy& policy, ReplayOptions options, ReplayModels models = {});
  ReplayEngine(const ReplayEngine&) = delete;
  ReplayEngine& operator=(const ReplayEngine&) = delete;

  // Sees every span and job event from now on, after the engine's own metrics.
  void add_observer(ReplayObserver& observer) { observers_.push_back(&observer); }
  // Applies every event at or before `time`, then moves the clock to `time` (when it is later).
  void run_until(double time);
  // Applies every remaining event and returns the summaries. Once.
  [[nodiscard]] ReplayResult run();

  [[nodiscard]] double now() const override { return now_; }
  [[nodiscard]] const JobRun& job_run(int index) const { return runs_[index]; }
  [[nodiscard]] const GpuPool& pool() const { return pool_; }
  [[nodiscard]] const MigPartition* mig() const { return mig_ ? &*mig_ : nullptr; }
  // Whole-GPU nodes, then MIG-mode nodes.
  [[nodiscard]] int node_count() const { return pool_.node_count() + (mig_ ? mig_->pool().nodes() : 0); }

  // A running job does `rate` seconds of work per second from now (1 = as recorded; > 0). Throws
  // std::invalid_argument when the job is not running or the rate is not positive.
  void set_rate(int index, double rate);
  // Stops a running job now; throws std::invalid_argument when it is not running. Schedules afterwards.
  void interrupt(int index, InterruptAction action);
  // Takes a node (whole-GPU or MIG-mode, numbered as above) out of service; the jobs on it are interrupted
  // with `action`. Returns them. Throws std::invalid_argument for a node the cluster does not have.
  std::vector<int> set_node_down(int node, InterruptAction action = InterruptAction::requeue);
  void set_node_up(int node);

 private:
  static constexpr int kNoCause = -1;
  // SchedulerView, for the queue policy over the whole-GPU partition.
  [[nodiscard]] const std::vector<int>& waiting() const override { return waiting_; }
  [[nodiscard]] const JobSpec& job(int index) const override { return jobs_[index]; }
  [[nodiscard]] double expected_run_time(int index) const override;
  [[nodiscard]] int free_gpus() const override { return pool_.free_gpus(); }
  [[nodiscard]] int scan_depth() const override { return options_.scan_depth; }
  [[nodiscard]] std::vector<std::pair<double, int>> expected_releases() const override;
  void visit_releases_in_order(const std::function<bool(double time, int gpus)>& visit) const override;
  [[nodiscard]] double usage_per_share(const JobSpec& job) const override {
    return usage_.usage_per_share(job);
  }
  [[nodiscard]] double job_usage_per_share(int index) const override {
    return usage_.job_usage_per_share(index);
  }
  bool try_start(int index) override;

  // The event loop.
  [[nodiscard]] bool has_events();
  [[nodiscard]] double next_event_time();
  void step(double time);
  void drop_stale_completions();
  void finish_due();
  void apply_node_events();
  void apply_node_event(const NodeEvent& event);
  void take_node_down(int node, int cause, bool planned);
  void bring_node_up(int node);
  void add_spare(int node);
  // Spares stand in for nodes of their own kind: 0 whole-GPU, 1 MIG-mode.
  [[nodiscard]] int kind_of(int node) const { return is_mig_node(node) ? 1 : 0; }
  // Takes a node out of placement (the owners of what ran on it) or puts it back.
  std::vector<int> place_out(int node);
  void place_in(int node);
  void hold_as_spare(int node);
  [[nodiscard]] int cause_id(const std::string& cause);
  [[nodiscard]] bool is_mig_node(int node) const { return node >= pool_.node_count(); }
  [[nodiscard]] int mig_node(int node) const { return node - pool_.node_count(); }
  void advance_to(double time);
  [[nodiscard]] PartitionState whole_state() const;
  [[nodiscard]] PartitionState mig_state() const;

  // Jobs.
  void submit(int index);
  void submit_slice(int index);
  void accept(int index);
  void begin_run(int index);
  void start_slices(const std::vector<int>& started);
  void finish(int index);
  void release_resources(int index);
  void interrupt_job(int index, InterruptAction action, int cause);
  void report_segment(int index, double work_lost, int cause);
  void requeue(int index);
  void schedule();
  void schedule_pass();
  // Power budget (models_.power): the GPUs running whole-GPU jobs, and every running job re-rated when the
  // cap the policy gives for them changes.
  [[nodiscard]] int busy_whole_gpus() const {
    return pool_.total_gpus() - pool_.free_gpus() - pool_.down_gpus();
  }
  void apply_power_caps();
  [[nodiscard]] double power_throughput_of(int index) const {
    return jobs_[index].low_priority ? low_priority_throughput_ : power_throughput_;
  }
  void remove_started_from_waiting();

  const std::vector<JobSpec>& jobs_;
  GpuPool pool_;
  const QueuePolicy& policy_;
  ReplayOptions options_;
  ReplayModels models_;
  ReplayResult result_;
  ReplayMetrics metrics_;
  std::vector<ReplayObserver*> observers_;  // metrics_ first
  std::optional<MigPartition> mig_;         // the MIG-mode GPUs and their queue, when the cluster has some
  double now_ = 0;
  std::vector<int> arrival_order_;  // job indices by submit time (stable)
  std::size_t next_arrival_ = 0;
  std::optional<NodeEvent> next_node_event_;
  std::vector<JobRun> runs_;
  std::vector<int> waiting_;
  std::vector<int> arrival_rank_;  // job -> its place in arrival order
  int started_this_pass_ = 0;
  int latest_started_rank_ = -1;  // the latest arrival among the jobs started in this pass
  std::vector<Allocation> allocations_;
  std::multiset<std::pair<double, int>> releases_;  // running jobs' (expected end, GPUs), kept sorted
  std::vector<std::multiset<std::pair<double, int>>::iterator> release_of_;  // running job -> its entry
  FairShareUsage usage_;                                                     // GPUs in use per fair-share key
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  // Failures: why each job was last interrupted and when; nodes' outstanding down events; hot spares.
  std::vector<std::string> causes_;  // cause id -> name
  std::vector<int> last_cause_;      // job -> cause of its last interruption (kNoCause: none)
  std::vector<double> interrupted_at_;
  std::vector<int> down_reasons_;       // node -> down events not yet matched by an up
  std::vector<char> spare_;             // node -> an idle hot spare
  std::vector<char> returns_as_spare_;  // node -> a spare stood in for it: it joins the spares when repaired
  std::set<int> spares_[2];             // idle hot spares, by kind (kind_of)
  std::set<int> unreplaced_[2];         // failed nodes no spare stood in for yet, by kind
  int spare_gpus_ = 0;                  // GPUs of the nodes held as spares at the start (both kinds)
  int idle_spare_gpus_ = 0;             // GPUs of the idle whole-GPU spares now
  int schedulable_gpus_ = 0;            // GPUs not held as spares nor out of service from the start
  std::unique_ptr<FailureAccounting> failure_metrics_;  // when the models are active
  double power_throughput_ = 1;         // work per second of a busy GPU under the power policy's current cap
  double low_priority_throughput_ = 1;  // the same for a GPU of a low-priority job (cap-low-priority)
  std::set<int> running_whole_;         // running whole-GPU jobs, kept only under a power policy
  int running_low_priority_gpus_ = 0;   // GPUs of the running whole-GPU low-priority jobs
};

}  // namespace gputwin
