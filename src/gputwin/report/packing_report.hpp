// Renders packing experiments: terminal summary and JSON (schema gputwin.packing/1) with the curves by arrived
// GPU demand; several seeds add their element-wise mean.
//
//   std::cout << packing_json(runs).dump(2);
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/sim/packing.hpp"

namespace gputwin {

inline constexpr const char* kPackingSchema = "gputwin.packing/1";

[[nodiscard]] nlohmann::ordered_json packing_json(const std::vector<PackingResult>& runs);
[[nodiscard]] std::string packing_text(const std::vector<PackingResult>& runs, const std::string& pods_name);

}  // namespace gputwin
