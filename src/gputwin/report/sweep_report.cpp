#include "gputwin/report/sweep_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/report/json_document.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// Seconds to the tenth, shares to 0.01 %: the CSV's figures, readable and still exact enough to compare.
std::string seconds(double value) {
  return format_number(value, 1);
}
std::string share(double value) {
  return format_number(value, 4);
}
std::string percent(double value) {
  return format_number(100 * value, 1) + "%";
}

// A duration in the unit that reads best: seconds, minutes, hours or days.
std::string readable_duration(double seconds) {
  if (seconds < 120) return format_number(seconds, 1) + " s";
  if (seconds < 7200) return format_number(seconds / 60, 1) + " min";
  if (seconds < 172800) return format_number(seconds / 3600, 1) + " h";
  return format_number(seconds / 86400, 1) + " d";
}

// What the table's job counts leave out: trace rows the reader skipped, and per design the jobs it can never
// run.
std::string jobs_left_out_text(const std::vector<SweepRow>& rows) {
  std::string text;
  if (!rows.empty() && rows.front().reader_skipped > 0)
    text += fmt::format("  {} trace rows left out by the reader (see simulate replay for the reasons)\n",
                        rows.front().reader_skipped);
  std::map<std::string, int> never_by_design;
  for (const SweepRow& r : rows) never_by_design[r.design] = std::max(never_by_design[r.design], r.never_run);
  for (const auto& [design, never] : never_by_design) {
    if (never > 0)
      text += fmt::format("  design {}: up to {} jobs can never run on it (not replayed)\n", design, never);
  }
  return text;
}

}  // namespace

std::string sweep_csv(const std::vector<SweepRow>& rows) {
  std::string text =
      "task,design,policy,variant,seed,jobs,completed,never_run,mean_wait_s,p95_wait_s,mean_jct_s,mean_"
      "bounded_"
      "slowdown,"
      "window_utilisation,drain_s,utilisation,makespan_s\n";
  for (const SweepRow& r : rows) {
    text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.task, csv_cell(r.design),
                        csv_cell(r.policy), csv_cell(r.variant), r.seed, r.jobs, r.completed, r.never_run,
                        seconds(r.mean_wait_s), seconds(r.p95_wait_s), seconds(r.mean_jct_s),
                        format_number(r.mean_bounded_slowdown, 3),
                        r.window_utilisation ? share(*r.window_utilisation) : std::string(),
                        seconds(r.drain_s), share(r.utilisation), seconds(r.makespan_s));
  }
  return text;
}

std::string sweep_text(const std::string& sweep_name, const std::vector<SweepRow>& rows) {
  TextTable table(
      {"task", "design", "policy", "variant", "seed", "jobs", "done", "mean wait", "p95 wait", "mean JCT",
       "slowdown", "util window", "drain", "util to end"},
      {Align::right, Align::left, Align::left, Align::left, Align::right, Align::right, Align::right,
       Align::right, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right});
  for (const SweepRow& r : rows) {
    table.add_row({std::to_string(r.task), r.design, r.policy, r.variant, std::to_string(r.seed),
                   std::to_string(r.jobs), std::to_string(r.completed), readable_duration(r.mean_wait_s),
                   readable_duration(r.p95_wait_s), readable_duration(r.mean_jct_s),
                   format_number(r.mean_bounded_slowdown, 2),
                   r.window_utilisation ? percent(*r.window_utilisation) : std::string("none"),
                   readable_duration(r.drain_s), percent(r.utilisation)});
  }
  return fmt::format("Sweep {}: {} tasks\n", sweep_name, rows.size()) + table.render() +
         "  util window: GPU utilisation from the first to the last arrival (none: all jobs arrive at once); "
         "drain: last arrival to the last job's end; util to end: first arrival to the last job's end\n" +
         jobs_left_out_text(rows);
}

nlohmann::ordered_json sweep_row_json(const SweepRow& r) {
  return {{"task", r.task},
          {"design", r.design},
          {"policy", r.policy},
          {"variant", r.variant},
          {"seed", r.seed},
          {"jobs", r.jobs},
          {"completed", r.completed},
          {"never_run", r.never_run},
          {"reader_skipped", r.reader_skipped},
          {"mean_wait_s", r.mean_wait_s},
          {"p95_wait_s", r.p95_wait_s},
          {"mean_jct_s", r.mean_jct_s},
          {"mean_bounded_slowdown", r.mean_bounded_slowdown},
          {"window_utilisation",
           r.window_utilisation ? nlohmann::ordered_json(*r.window_utilisation) : nlohmann::ordered_json()},
          {"drain_s", r.drain_s},
          {"utilisation", r.utilisation},
          {"makespan_s", r.makespan_s}};
}

nlohmann::ordered_json sweep_json(const std::string& sweep_name, const std::vector<SweepRow>& rows) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const SweepRow& row : rows) list.push_back(sweep_row_json(row));
  return {{"schema", kSweepSchema}, {"sweep", sweep_name}, {"rows", list}};
}

nlohmann::ordered_json sweep_task_json(const std::string& sweep_file, const SweepRow& row) {
  return {{"schema", kSweepTaskSchema}, {"sweep", sweep_file}, {"row", sweep_row_json(row)}};
}

namespace {

SweepRow row_from_json(const JsonField& row) {
  SweepRow r;
  r.task = static_cast<int>(row.child("task").integer());
  r.design = row.child("design").string();
  r.policy = row.child("policy").string();
  r.variant = row.child("variant").string();
  r.seed = static_cast<std::uint64_t>(row.child("seed").integer());
  r.jobs = static_cast<int>(row.child("jobs").integer());
  r.completed = static_cast<int>(row.child("completed").integer());
  r.never_run = static_cast<int>(row.child("never_run").integer());
  r.reader_skipped = static_cast<int>(row.child("reader_skipped").integer());
  r.mean_wait_s = row.child("mean_wait_s").number();
  r.p95_wait_s = row.child("p95_wait_s").number();
  r.mean_jct_s = row.child("mean_jct_s").number();
  r.mean_bounded_slowdown = row.child("mean_bounded_slowdown").number();
  r.window_utilisation = optional_number(row.child("window_utilisation"));
  r.drain_s = row.child("drain_s").number();
  r.utilisation = row.child("utilisation").number();
  r.makespan_s = row.child("makespan_s").number();
  return r;
}

}  // namespace

Result<SweepRow> sweep_row_from_json(const std::string& text, const std::string& source) {
  return read_json_document<SweepRow>(text, source, [](const JsonField& root) {
    if (root.child("schema").string() != kSweepTaskSchema)
      root.child("schema").fail(std::string("expected ") + kSweepTaskSchema);
    return row_from_json(root.child("row"));
  });
}

SweepTable sweep_table_from_json(const JsonField& root) {
  expect_schema(root, kSweepSchema, "sweep --json");
  SweepTable table;
  table.name = root.child("sweep").string();
  const JsonField rows = root.child("rows");
  for (std::size_t i = 0; i < rows.array_size(); ++i) table.rows.push_back(row_from_json(rows.element(i)));
  return table;
}

Result<SweepTable> read_sweep_json(std::string_view text, const std::string& source) {
  return read_json_document<SweepTable>(text, source, sweep_table_from_json);
}

}  // namespace gputwin
