// What `perf goodput` prints: one job's goodput under failures as a text report and as a JSON document.
//
//   GoodputJob job{.system = "dgx-h100", .profile = "llama3-table5", ...};
//   std::cout << goodput_text(job, result);
//   nlohmann::json doc = goodput_json(job, result);   // schema "gputwin.perf-goodput/1"
//   GoodputDocument back = goodput_document_from_json(JsonField::root(doc, "goodput.json", text),
//   "goodput.json");
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/core/json_input.hpp"
#include "gputwin/plan/sizing_goodput.hpp"
#include "gputwin/sim/goodput.hpp"

namespace gputwin {

inline constexpr const char* kGoodputSchema = "gputwin.perf-goodput/1";

// What the job was and where its inputs came from, for the report's header lines.
struct GoodputJob {
  std::string system;           // catalog system of the nodes
  std::string where;            // "catalog system dgx-h100" or "cluster SPEC (N nodes)"
  std::string failure_model;    // "llama3-table5: ...", "--node-failure-rate 6.5/1000/day", "--mtbf 3h"
  std::string shape_note;       // how the shape was found (assumptions named)
  std::string checkpoint_note;  // where checkpoint write and restart times came from
  int gpus = 0;
  double work_days = 0;
  double checkpoint_write_hours = 0;
  double restart_hours = 0;
  bool interval_given = false;
};

// The subset of a perf goodput --json document the HTML report shows (read back by its writer's schema).
struct GoodputDocument {
  std::string source;
  int gpus = 0;
  int nodes = 0;
  std::string system;
  double work_days = 0;
  int spare_nodes = 0;
  std::string failure_model;
  int seeds = 0;
  double mttf_hours = 0;
  double interval_used_minutes = 0;
  double interruptions_mean = 0;
  double interruptions_stdev = 0;
  double ettr = 0;
  double wall_days = 0;
  struct Cause {
    std::string cause;
    double mean = 0;
  };
  std::vector<Cause> by_cause;
};

[[nodiscard]] std::string goodput_text(const GoodputJob& job, const GoodputResult& result);
// Throws InputFailure naming the field (by its JSON pointer) that is missing or of the wrong type.
[[nodiscard]] GoodputDocument goodput_document_from_json(const JsonField& root, const std::string& source);
[[nodiscard]] nlohmann::json goodput_json(const GoodputJob& job, const GoodputResult& result);

// The lines `perf size` adds under its table: each answer's ETTR, time-to-train and spares under failures.
[[nodiscard]] std::string sizing_goodput_text(const std::vector<SizingGoodput>& rows,
                                              const std::string& basis);
[[nodiscard]] nlohmann::json sizing_goodput_json(const std::vector<SizingGoodput>& rows,
                                                 const std::string& basis);

}  // namespace gputwin
