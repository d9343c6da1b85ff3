// The models a replay asks what happens next, each a small type behind a narrow interface, chosen by name (as
// queue policies are). This change declares them and ships "none" for each, so a replay without them gives
// exactly what it gave before; failure and checkpoint models proper come with issue 17's failure work.
//
//   ReplayModels models;                                         // failures "none", checkpoints "none"
//   models.failures = make_failure_model("none");
//   ReplayEngine engine(jobs, pool, std::nullopt, *policy, options, std::move(models));
//
// - FailureModel: when a node (whole-GPU or MIG-mode) goes down or comes back. The engine asks for the
//   next event once at the start and again after each event it applies; the jobs on a node that goes down
//   are interrupted and requeued (InterruptAction::requeue), and the node's GPUs are out of service until it
//   comes back.
// - PowerPolicy (power_policy.hpp): whether a job may start under a power budget, and the cap (and so the
//   rate) running jobs work at.
// - CheckpointPolicy: of the work a job did since it last started, how much an interruption keeps (the rest
//   is done again when it restarts).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gputwin/sim/power_policy.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

// A node (whole-GPU, or MIG-mode after them) going down or coming back at `time`, or (job_only) the job on it
// failing while the node stays in service. A node is out of service while any of its down events is not yet
// matched by an up.
struct NodeEvent {
  double time = 0;
  int node = 0;
  bool up = false;
  std::string
      cause;  // what struck, reported per interruption ("faulty-gpu", "maintenance"); empty: "node down"
  bool job_only = false;  // interrupts the jobs on the node; the node is not taken out
  bool planned = false;   // maintenance: a spare node does not stand in for it
};

// Where each node of a replay sits (the whole-GPU nodes, then the MIG-mode ones): what a leaf-switch or
// scale-up-domain failure takes out, and the host names out-of-service lists use. Built with the pools
// (SimulatedCluster).
struct ReplayTopology {
  std::vector<int> leaf_of_node;        // node -> leaf switch group (the pool's placement groups)
  std::vector<int> domain_of_node;      // node -> scale-up domain
  std::vector<std::string> host_names;  // node -> the design's host name; empty for a plain node count
  int gpus_per_node = 0;
};

class FailureModel {
 public:
  virtual ~FailureModel() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // The next event at or after `now`, or empty when no more will come. Called again after each event the
  // engine applies, so a model may keep state; events must not go back in time.
  [[nodiscard]] virtual std::optional<NodeEvent> next_event(double now) = 0;
};

class CheckpointPolicy {
 public:
  virtual ~CheckpointPolicy() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Of `work_done` seconds of `job`'s work since it last started, the seconds an interruption keeps (0 to
  // work_done).
  [[nodiscard]] virtual double work_kept(const JobSpec& job, double work_done) const = 0;
  // Work per second while the job runs (1 = as recorded): time spent writing checkpoints slows it.
  [[nodiscard]] virtual double rate(const JobSpec& /*job*/) const { return 1; }
  // Wall seconds a restart after an interruption costs before work resumes.
  [[nodiscard]] virtual double restart_seconds(const JobSpec& /*job*/) const { return 0; }
};

// Throw std::invalid_argument naming the known models when `name` is not one of them.
// "none": no node ever fails.
[[nodiscard]] std::unique_ptr<FailureModel> make_failure_model(std::string_view name);
[[nodiscard]] std::vector<std::string> failure_model_names();
// "none": no checkpoints; an interrupted job starts again from the beginning.
[[nodiscard]] std::unique_ptr<CheckpointPolicy> make_checkpoint_policy(std::string_view name);
[[nodiscard]] std::vector<std::string> checkpoint_policy_names();

struct ReplayModels {
  std::unique_ptr<FailureModel> failures = make_failure_model("none");
  std::unique_ptr<CheckpointPolicy> checkpoints = make_checkpoint_policy("none");
  // Whole-GPU nodes held out of scheduling as hot spares (the last ones): a node that fails is replaced by
  // one at once, and the repaired node joins the spares.
  int spare_nodes = 0;
  // MIG-mode nodes held out of scheduling as hot spares (the last ones), partitioned as the other MIG-mode
  // nodes (the same layout, or on demand): a MIG-mode node that fails is replaced by one at once, the jobs on
  // its slices restart there (or wherever slices are free) from their checkpoint, and the repaired node joins
  // these spares. A pre-partitioned spare needs no MIG reconfiguration when it stands in.
  int mig_spare_nodes = 0;
  // Nodes out of service for the whole replay (e.g. with drain-worthy validate findings), with why.
  std::vector<std::pair<int, std::string>> out_of_service;
  // A power budget's policy (power_policy.hpp): asked before every start and after every scheduling pass;
  // none (empty) leaves the replay exactly as it was. Not a failure model: active() ignores it.
  std::shared_ptr<const PowerPolicy> power;
  // Failure figures (goodput, ETTR, lost GPU-hours, availability) in the result even with no failure.
  [[nodiscard]] bool active() const {
    return failures->name() != "none" || checkpoints->name() != "none" || spare_nodes > 0 ||
           mig_spare_nodes > 0 || !out_of_service.empty();
  }
};

}  // namespace gputwin
