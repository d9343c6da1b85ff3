#include "gputwin/sim/replay_models.hpp"

#include <stdexcept>

namespace gputwin {
namespace {

class NoFailures final : public FailureModel {
 public:
  std::string_view name() const override { return "none"; }
  std::optional<NodeEvent> next_event(double /*now*/) override { return std::nullopt; }
};

class NoCheckpoints final : public CheckpointPolicy {
 public:
  std::string_view name() const override { return "none"; }
  double work_kept(const JobSpec& /*job*/, double /*work_done*/) const override { return 0; }
};

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::vector<std::string> failure_model_names() {
  return {"none", "processes"};
}

std::unique_ptr<FailureModel> make_failure_model(std::string_view name) {
  if (name == "none") return std::make_unique<NoFailures>();
  if (name == "processes") {
    throw std::invalid_argument("failure model 'processes' needs its processes: make_process_failures");
  }
  throw std::invalid_argument("unknown failure model '" + std::string(name) +
                              "'; known: " + joined(failure_model_names()));
}

std::vector<std::string> checkpoint_policy_names() {
  return {"none", "interval", "young-daly"};
}

std::unique_ptr<CheckpointPolicy> make_checkpoint_policy(std::string_view name) {
  if (name == "none") return std::make_unique<NoCheckpoints>();
  if (name == "interval" || name == "young-daly") {
    throw std::invalid_argument("checkpoint policy '" + std::string(name) +
                                "' needs its settings: make_checkpoint_policy(name, CheckpointSettings)");
  }
  throw std::invalid_argument("unknown checkpoint policy '" + std::string(name) +
                              "'; known: " + joined(checkpoint_policy_names()));
}

}  // namespace gputwin
