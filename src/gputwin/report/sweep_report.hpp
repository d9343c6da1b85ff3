// A sweep's table, as CSV or JSON, and one task's row as the JSON a Slurm array task writes and `sweep merge`
// reads back. Numbers are written in their shortest round-trip form, so a row read back prints identically.
//
//   std::cout << sweep_csv(rows);
//   nlohmann::json doc = sweep_json(sweep, rows);                  // schema gputwin.sweep/1
//   Result<SweepRow> row = sweep_row_from_json(text, "task-3.json");
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/sim/sweep.hpp"

namespace gputwin {

[[nodiscard]] std::string sweep_csv(const std::vector<SweepRow>& rows);
[[nodiscard]] nlohmann::ordered_json sweep_json(const std::string& sweep_name, const std::vector<SweepRow>& rows);
[[nodiscard]] nlohmann::ordered_json sweep_row_json(const SweepRow& row);
[[nodiscard]] Result<SweepRow> sweep_row_from_json(const std::string& text, const std::string& source);

}  // namespace gputwin
