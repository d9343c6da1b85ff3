// Renders a trace replay: terminal summary, JSON (schema gputwin.replay/1) and the per-interval metrics CSV.
//
//   std::cout << replay_text(result, "philly.csv");
//   std::cout << replay_json(result).dump(2);
//   std::ofstream("metrics.csv") << replay_intervals_csv(result);
//
// Utilisation is given over the arrival window (JSON arrival_window.utilisation, null when every job arrives
// at once), over the drain tail (drain_tail) and, as `utilisation` has always meant, from the first arrival
// to the makespan (docs/simulate.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gputwin/sim/replay.hpp"

namespace gputwin {

inline constexpr const char* kReplaySchema = "gputwin.replay/1";
// The prefix of ReplayResult::rejected reasons that the trace reader, not the cluster, left out.
inline constexpr std::string_view kSkippedByReader = "skipped by the reader: ";

[[nodiscard]] std::string replay_text(const ReplayResult& result, const std::string& trace_name);
[[nodiscard]] nlohmann::ordered_json replay_json(const ReplayResult& result);
[[nodiscard]] std::string replay_intervals_csv(const ReplayResult& result);

}  // namespace gputwin
