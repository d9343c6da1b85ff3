#include "gputwin/sim/power_policy.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gputwin {
namespace {

std::string megawatts(double watts) {
  return fmt::format("{:.4g} MW", watts / 1e6);
}

class PolicyBase : public PowerPolicy {
 public:
  PolicyBase(ReplayPowerProfile profile, double budget_w)
      : profile_(std::move(profile)), budget_w_(budget_w) {}
  [[nodiscard]] const ReplayPowerProfile& profile() const override { return profile_; }
  [[nodiscard]] double budget_w() const override { return budget_w_; }

 protected:
  [[nodiscard]] bool fits(int busy, std::size_t cap) const {
    return profile_.it_power_w(busy, cap) <= budget_w_;
  }
  [[nodiscard]] std::size_t uncapped() const { return profile_.caps.size() - 1; }

 private:
  ReplayPowerProfile profile_;
  double budget_w_;
};

class NoBudget final : public PolicyBase {
 public:
  explicit NoBudget(ReplayPowerProfile profile) : PolicyBase(std::move(profile), 0) {}
  [[nodiscard]] std::string_view name() const override { return "none"; }
  [[nodiscard]] bool may_start(int /*gpus*/, int /*busy*/) const override { return true; }
  [[nodiscard]] std::size_t cap_index(int /*busy*/) const override { return uncapped(); }
};

class CapAll final : public PolicyBase {
 public:
  using PolicyBase::PolicyBase;
  [[nodiscard]] std::string_view name() const override { return "cap-all"; }
  [[nodiscard]] bool may_start(int gpus, int busy) const override { return fits(busy + gpus, 0); }
  // The highest cap that fits; the lowest when none does (admission keeps that from happening).
  [[nodiscard]] std::size_t cap_index(int busy) const override {
    for (std::size_t cap = uncapped(); cap > 0; --cap) {
      if (fits(busy, cap)) return cap;
    }
    return 0;
  }
};

class CapLowPriority final : public PolicyBase {
 public:
  using PolicyBase::PolicyBase;
  [[nodiscard]] std::string_view name() const override { return "cap-low-priority"; }
  [[nodiscard]] bool may_start(int gpus, int busy) const override { return fits(busy + gpus, 0); }
  [[nodiscard]] std::size_t cap_index(int busy) const override { return cap_indices(busy, 0).normal; }
  [[nodiscard]] BusyCaps cap_indices(int normal, int low) const override {
    const std::size_t top = uncapped();
    const auto fits_both = [&](std::size_t normal_cap, std::size_t low_cap) {
      return profile().it_power_w(normal, normal_cap, low, low_cap) <= budget_w();
    };
    for (std::size_t low_cap = top + 1; low_cap-- > 0;) {
      if (fits_both(top, low_cap)) return {top, low_cap};
    }
    for (std::size_t normal_cap = top; normal_cap-- > 0;) {
      if (fits_both(normal_cap, 0)) return {normal_cap, 0};
    }
    return {0, 0};
  }
};

class AdmitFewer final : public PolicyBase {
 public:
  using PolicyBase::PolicyBase;
  [[nodiscard]] std::string_view name() const override { return "admit-fewer"; }
  [[nodiscard]] bool may_start(int gpus, int busy) const override { return fits(busy + gpus, uncapped()); }
  [[nodiscard]] std::size_t cap_index(int /*busy*/) const override { return uncapped(); }
};

void check_budget(const ReplayPowerProfile& profile, double budget_w, std::size_t lowest_cap) {
  if (!(budget_w > 0)) throw std::invalid_argument("the power budget must be above 0 W");
  const double idle = profile.idle_power_w();
  if (budget_w < idle) {
    throw std::invalid_argument(
        fmt::format("a budget of {} IT is below the cluster's idle draw of {} ({} x {} nodes with every GPU "
                    "idle: {:.0f} W "
                    "non-GPU per node + {} x {:.0f} W per idle GPU); no job could ever run",
                    megawatts(budget_w), megawatts(idle), profile.nodes, profile.system,
                    profile.non_gpu_node_w, profile.gpus_per_node, profile.idle_gpu_w));
  }
  const double one_node = profile.it_power_w(profile.gpus_per_node, lowest_cap);
  if (budget_w < one_node) {
    throw std::invalid_argument(fmt::format(
        "a budget of {} IT is too small for one node busy ({} with one node's {} GPUs at {:.0f} W and the "
        "rest idle)",
        megawatts(budget_w), megawatts(one_node), profile.gpus_per_node, profile.caps[lowest_cap].limit_w));
  }
}

}  // namespace

std::shared_ptr<const PowerPolicy> make_power_policy(std::string_view name, const ReplayPowerProfile& profile,
                                                     double budget_w) {
  if (profile.caps.empty() || profile.gpus_per_node <= 0 || profile.nodes <= 0) {
    throw std::invalid_argument("the power profile has no cap points or no GPUs");
  }
  if (name == "none") return std::make_shared<NoBudget>(profile);
  if (name == "cap-all" || name == "cap-low-priority") {
    if (profile.caps.size() < 2) {
      throw std::invalid_argument(
          fmt::format("the power model has no settable power limits for {} (no published minimum "
                      "limit in data/power/power-model.yaml), so its GPUs cannot be capped; use admit-fewer",
                      profile.accelerator));
    }
    check_budget(profile, budget_w, 0);
    if (name == "cap-all") return std::make_shared<CapAll>(profile, budget_w);
    return std::make_shared<CapLowPriority>(profile, budget_w);
  }
  if (name == "admit-fewer") {
    check_budget(profile, budget_w, profile.caps.size() - 1);
    return std::make_shared<AdmitFewer>(profile, budget_w);
  }
  throw std::invalid_argument(
      fmt::format("unknown power policy '{}'; known: none, cap-all, admit-fewer, "
                  "cap-low-priority",
                  name));
}

std::vector<std::string> power_policy_names() {
  return {"none", "cap-all", "admit-fewer", "cap-low-priority"};
}

}  // namespace gputwin
