// Renders packing experiments: terminal summary and JSON (schema gputwin.packing/1) with the curves by
// arrived GPU demand; several seeds add their element-wise mean.
//
//   std::cout << packing_json(runs).dump(2);
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/core/json_input.hpp"
#include "gputwin/sim/packing.hpp"

namespace gputwin {

inline constexpr const char* kPackingSchema = "gputwin.packing/1";

[[nodiscard]] nlohmann::ordered_json packing_json(const std::vector<PackingResult>& runs);
[[nodiscard]] std::string packing_text(const std::vector<PackingResult>& runs, const std::string& pods_name);

// What a gputwin.packing/1 document holds for a chart: GPUs allocated as arrived demand grows, one point per
// percent.
struct PackingCurve {
  std::string source;
  std::string policy;
  int seeds = 0;
  std::vector<std::optional<double>> allocation_percent;  // index = arrived demand in percent of capacity
};

// Reads a gputwin.packing/1 document back; throws InputFailure naming the field when one is missing.
[[nodiscard]] PackingCurve packing_curve_from_json(const JsonField& root, const std::string& source);

}  // namespace gputwin
