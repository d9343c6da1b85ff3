#include "gputwin/sim/maintenance.hpp"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gputwin/sim/failure_options.hpp"

namespace gputwin {
namespace {

// Hands out one window's events at a time; windows never overlap, so they stay in time order.
class Maintenance final : public FailureModel {
 public:
  Maintenance(MaintenanceWindows windows, std::vector<std::vector<int>> groups)
      : windows_(windows), groups_(std::move(groups)) {}
  std::string_view name() const override { return "maintenance"; }

  std::optional<NodeEvent> next_event(double /*now*/) override {
    if (groups_.empty()) return std::nullopt;
    if (next_ == events_.size()) open_window();
    return events_[next_++];
  }

 private:
  void open_window() {
    events_.clear();
    next_ = 0;
    ++window_;
    const double opens = static_cast<double>(window_) * windows_.period_s;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const double from = opens + static_cast<double>(g) * windows_.duration_s;
      const double to = from + windows_.duration_s;
      for (const int node : groups_[g]) events_.push_back({from, node, false, "maintenance", false, true});
      for (const int node : groups_[g]) events_.push_back({to, node, true, "maintenance", false, true});
    }
  }

  MaintenanceWindows windows_;
  std::vector<std::vector<int>> groups_;  // drained together; one group holding every node in mode all
  std::vector<NodeEvent> events_;
  std::size_t next_ = 0;
  long window_ = 0;
};

class Merged final : public FailureModel {
 public:
  Merged(std::unique_ptr<FailureModel> first, std::unique_ptr<FailureModel> second) {
    models_[0] = std::move(first);
    models_[1] = std::move(second);
    for (int m = 0; m < 2; ++m) pending_[m] = models_[m]->next_event(0);
    const std::string_view a = models_[0]->name();
    const std::string_view b = models_[1]->name();
    name_ =
        a == "none" ? std::string(b) : (b == "none" ? std::string(a) : std::string(a) + "+" + std::string(b));
  }
  std::string_view name() const override { return name_; }
  std::optional<NodeEvent> next_event(double now) override {
    const bool none0 = !pending_[0];
    const bool none1 = !pending_[1];
    if (none0 && none1) return std::nullopt;
    const int m = none0 ? 1 : (none1 ? 0 : (pending_[1]->time < pending_[0]->time ? 1 : 0));
    NodeEvent event = std::move(*pending_[m]);
    pending_[m] = models_[m]->next_event(now);
    return event;
  }

 private:
  std::unique_ptr<FailureModel> models_[2];
  std::optional<NodeEvent> pending_[2];
  std::string name_;
};

}  // namespace

MaintenanceWindows parse_maintenance(std::string_view text) {
  MaintenanceWindows windows;
  bool mode_given = false;
  for (std::size_t from = 0; from <= text.size();) {
    auto comma = text.find(',', from);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(from, comma - from);
    from = comma + 1;
    const auto equals = item.find('=');
    const std::string_view key = item.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? std::string_view() : item.substr(equals + 1);
    if (key == "every") {
      windows.period_s = parse_duration_s(value, "--maintenance every");
    } else if (key == "duration") {
      windows.duration_s = parse_duration_s(value, "--maintenance duration");
    } else if (key == "mode" && (value == "rolling" || value == "all")) {
      windows.rolling = value == "rolling";
      mode_given = true;
    } else {
      throw std::invalid_argument("--maintenance: '" + std::string(item) +
                                  "': expected every=PERIOD,duration=TIME,mode=rolling|all");
    }
  }
  if (!(windows.period_s > 0) || !(windows.duration_s > 0) || !mode_given) {
    throw std::invalid_argument(
        "--maintenance: give every=PERIOD,duration=TIME,mode=rolling|all, both times > 0");
  }
  if (windows.duration_s > windows.period_s) {
    throw std::invalid_argument(
        fmt::format("--maintenance: the window (duration={:g} h) is longer than its period "
                    "(every={:g} h)",
                    windows.duration_s / 3600, windows.period_s / 3600));
  }
  return windows;
}

std::unique_ptr<FailureModel> make_maintenance(const MaintenanceWindows& windows,
                                               const ReplayTopology& topology) {
  std::vector<std::vector<int>> groups;
  if (windows.rolling) {
    std::map<int, std::vector<int>> by_leaf;
    for (std::size_t n = 0; n < topology.leaf_of_node.size(); ++n) {
      by_leaf[topology.leaf_of_node[n]].push_back(static_cast<int>(n));
    }
    for (auto& [leaf, nodes] : by_leaf) groups.push_back(std::move(nodes));
  } else if (!topology.leaf_of_node.empty()) {
    groups.emplace_back();
    for (std::size_t n = 0; n < topology.leaf_of_node.size(); ++n)
      groups.back().push_back(static_cast<int>(n));
  }
  if (static_cast<double>(groups.size()) * windows.duration_s > windows.period_s) {
    throw std::invalid_argument(
        fmt::format("--maintenance: a rolling pass over {} leaf groups of {:g} h each ({:g} h) is longer "
                    "than the period ({:g} h)",
                    groups.size(), windows.duration_s / 3600, groups.size() * windows.duration_s / 3600,
                    windows.period_s / 3600));
  }
  return std::make_unique<Maintenance>(windows, std::move(groups));
}

std::unique_ptr<FailureModel> merge_failure_models(std::unique_ptr<FailureModel> first,
                                                   std::unique_ptr<FailureModel> second) {
  return std::make_unique<Merged>(std::move(first), std::move(second));
}

}  // namespace gputwin
