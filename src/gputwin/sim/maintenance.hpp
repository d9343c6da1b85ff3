// Planned maintenance as node events (cause "maintenance", planned: no spare stands in): every `period` a
// window opens; mode all drains every whole-GPU node for `duration`; mode rolling drains one leaf group at a
// time, each for `duration`, group after group. The first window opens one period after the start.
//
//   MaintenanceWindows windows = parse_maintenance("every=90d,duration=8h,mode=rolling");
//   auto maintenance = make_maintenance(windows, cluster.topology);   // a FailureModel
//   models.failures = merge_failure_models(std::move(failures), std::move(maintenance));
#pragma once

#include <memory>
#include <string_view>

#include "gputwin/sim/replay_models.hpp"

namespace gputwin {

struct MaintenanceWindows {
  double period_s = 0;
  double duration_s = 0;
  bool rolling = false;
};

// Throws std::invalid_argument naming the field: a period or duration without its unit or not positive, an
// unknown mode, or a window longer than its period.
[[nodiscard]] MaintenanceWindows parse_maintenance(std::string_view text);

// Throws std::invalid_argument when a rolling pass over the topology's leaf groups does not fit in the
// period.
[[nodiscard]] std::unique_ptr<FailureModel> make_maintenance(const MaintenanceWindows& windows,
                                                             const ReplayTopology& topology);

// The events of both, in time order (ties: `first`'s before `second`'s).
[[nodiscard]] std::unique_ptr<FailureModel> merge_failure_models(std::unique_ptr<FailureModel> first,
                                                                 std::unique_ptr<FailureModel> second);

}  // namespace gputwin
