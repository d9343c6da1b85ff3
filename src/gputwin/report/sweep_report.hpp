// A sweep's table, as text (the default), CSV or JSON, and one task's row as the JSON a Slurm array task
// writes and `sweep merge` reads back. JSON numbers are written in their shortest round-trip form, so a row
// read back prints identically; text and CSV round for reading (CSV: seconds to 0.1 s, shares to 0.0001).
//
//   std::cout << sweep_text("policy study", rows);
//   std::cout << sweep_csv(rows);
//   nlohmann::json doc = sweep_json(sweep, rows);                  // schema gputwin.sweep/1
//   Result<SweepRow> row = sweep_row_from_json(text, "task-3.json");
//   Result<SweepTable> table = read_sweep_json(text, "sweep.json");   // sweep --json read back
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/sim/sweep.hpp"

namespace gputwin {

inline constexpr const char* kSweepSchema = "gputwin.sweep/1";
inline constexpr const char* kSweepTaskSchema = "gputwin.sweep-task/1";

[[nodiscard]] std::string sweep_text(const std::string& sweep_name, const std::vector<SweepRow>& rows);
[[nodiscard]] std::string sweep_csv(const std::vector<SweepRow>& rows);
[[nodiscard]] nlohmann::ordered_json sweep_json(const std::string& sweep_name,
                                                const std::vector<SweepRow>& rows);
[[nodiscard]] nlohmann::ordered_json sweep_row_json(const SweepRow& row);
// One array task's result (schema gputwin.sweep-task/1): the sweep file and the task's row.
[[nodiscard]] nlohmann::ordered_json sweep_task_json(const std::string& sweep_file, const SweepRow& row);
// The row of a sweep_task_json document.
[[nodiscard]] Result<SweepRow> sweep_row_from_json(const std::string& text, const std::string& source);

// A gputwin.sweep/1 document: the sweep's name and every row, exactly as written (JSON keeps the shortest
// round-trip form of each figure, so the rows print the same table again).
struct SweepTable {
  std::string name;
  std::vector<SweepRow> rows;
};
// Throws InputFailure naming the field (JSON pointer) when the schema is another or a field is missing.
[[nodiscard]] SweepTable sweep_table_from_json(const JsonField& root);
[[nodiscard]] Result<SweepTable> read_sweep_json(std::string_view text, const std::string& source);

}  // namespace gputwin
