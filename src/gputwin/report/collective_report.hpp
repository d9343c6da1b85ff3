// A collective sweep as nccl-tests would print it (out-of-place columns), its JSON document (schema
// gputwin.collective/1) and the reader of that document, kept together so what is written is read back by the
// same code.
//
//   std::cout << collective_text(sweep, hw, model, {"float", /*explain=*/true});
//   nlohmann::json doc = collective_json(sweep, hw, model, "float");
//   CollectiveCurve curve = collective_curve_from_json(JsonField::root(doc, "busbw.json", text),
//   "busbw.json");
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/core/json_input.hpp"
#include "gputwin/perf/collective_sweep.hpp"

namespace gputwin {

inline constexpr const char* kCollectiveSchema = "gputwin.collective/1";

struct CollectiveTextOptions {
  std::string dtype = "float";  // the element type's nccl-tests name
  bool explain = false;         // a line per size with the terms of the estimate
};

[[nodiscard]] std::string collective_text(const CollectiveSweep& sweep, const PerfHardware& hw,
                                          const CollectiveModel& model, const CollectiveTextOptions& options);
[[nodiscard]] nlohmann::json collective_json(const CollectiveSweep& sweep, const PerfHardware& hw,
                                             const CollectiveModel& model, const std::string& dtype);

// What a gputwin.collective/1 document holds for a chart: predicted bus bandwidth by message size.
struct CollectiveCurve {
  std::string source;
  std::string op;
  int ranks = 0;
  std::vector<double> bytes;
  std::vector<double> busbw_gbps;
};

// Throws InputFailure naming the field when one is missing or of the wrong type.
[[nodiscard]] CollectiveCurve collective_curve_from_json(const JsonField& root, const std::string& source);

}  // namespace gputwin
