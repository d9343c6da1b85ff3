// The models a replay asks what happens next, each a small type behind a narrow interface, chosen by name (as
// queue policies are). This change declares them and ships "none" for each, so a replay without them gives
// exactly what it gave before; failure and checkpoint models proper come with issue 17's failure work.
//
//   ReplayModels models;                                         // failures "none", checkpoints "none"
//   models.failures = make_failure_model("none");
//   ReplayEngine engine(jobs, pool, std::nullopt, *policy, options, std::move(models));
//
// - FailureModel: when a whole-GPU node goes down or comes back. The engine asks for the next event once at
//   the start and again after each event it applies; the jobs on a node that goes down are interrupted and
//   requeued (InterruptAction::requeue), and the node's GPUs are out of service until it comes back.
// - CheckpointPolicy: of the work a job did since it last started, how much an interruption keeps (the rest
//   is done again when it restarts).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/trace/records.hpp"

namespace gputwin {

// A node of the whole-GPU pool going down or coming back at `time`.
struct NodeEvent {
  double time = 0;
  int node = 0;
  bool up = false;
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
};

}  // namespace gputwin
