// Renders a trace replay: terminal summary, JSON (schema gputwin.replay/1) and the per-interval metrics CSV.
//
//   std::cout << replay_text(result, "philly.csv");
//   std::cout << replay_json(result).dump(2);
//   std::ofstream("metrics.csv") << replay_intervals_csv(result);
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gputwin/sim/replay.hpp"

namespace gputwin {

inline constexpr const char* kReplaySchema = "gputwin.replay/1";

[[nodiscard]] std::string replay_text(const ReplayResult& result, const std::string& trace_name);
[[nodiscard]] nlohmann::ordered_json replay_json(const ReplayResult& result);
[[nodiscard]] std::string replay_intervals_csv(const ReplayResult& result);

}  // namespace gputwin
