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

bool any_failures(const std::vector<SweepRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const SweepRow& r) { return r.failures.has_value(); });
}

}  // namespace

std::string sweep_csv(const std::vector<SweepRow>& rows) {
  std::string text =
      "task,design,policy,variant,seed,jobs,completed,never_run,mean_wait_s,p95_wait_s,mean_jct_s,mean_"
      "bounded_"
      "slowdown,"
      "window_utilisation,drain_s,utilisation,makespan_s";
  const bool failures = any_failures(rows);
  text += failures ? ",checkpoint_interval,spare_nodes,interruptions,goodput,ettr,availability\n" : "\n";
  for (const SweepRow& r : rows) {
    text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", r.task, csv_cell(r.design),
                        csv_cell(r.policy), csv_cell(r.variant), r.seed, r.jobs, r.completed, r.never_run,
                        seconds(r.mean_wait_s), seconds(r.p95_wait_s), seconds(r.mean_jct_s),
                        format_number(r.mean_bounded_slowdown, 3),
                        r.window_utilisation ? share(*r.window_utilisation) : std::string(),
                        seconds(r.drain_s), share(r.utilisation), seconds(r.makespan_s));
    if (failures) {
      const SweepFailureRow f = r.failures.value_or(SweepFailureRow{});
      text +=
          fmt::format(",{},{},{},{},{},{}", csv_cell(f.checkpoint_interval), f.spare_nodes, f.interruptions,
                      share(f.goodput), f.ettr ? share(*f.ettr) : std::string(), share(f.availability));
    }
    text += "\n";
  }
  return text;
}

std::string sweep_text(const std::string& sweep_name, const std::vector<SweepRow>& rows) {
  std::vector<std::string> header{"task",     "design",      "policy",    "variant",    "seed",
                                  "jobs",     "done",        "mean wait", "p95 wait",   "mean JCT",
                                  "slowdown", "util window", "drain",     "util to end"};
  std::vector<Align> alignment{Align::right, Align::left,  Align::left,  Align::left,  Align::right,
                               Align::right, Align::right, Align::right, Align::right, Align::right,
                               Align::right, Align::right, Align::right, Align::right};
  const bool failures = any_failures(rows);
  if (failures) {
    for (const char* column : {"checkpoint", "spares", "interrupts", "goodput", "ETTR", "available"}) {
      header.emplace_back(column);
      alignment.push_back(Align::right);
    }
  }
  TextTable table(std::move(header), std::move(alignment));
  for (const SweepRow& r : rows) {
    std::vector<std::string> cells{
        std::to_string(r.task),
        r.design,
        r.policy,
        r.variant,
        std::to_string(r.seed),
        std::to_string(r.jobs),
        std::to_string(r.completed),
        readable_duration(r.mean_wait_s),
        readable_duration(r.p95_wait_s),
        readable_duration(r.mean_jct_s),
        format_number(r.mean_bounded_slowdown, 2),
        r.window_utilisation ? percent(*r.window_utilisation) : std::string("none"),
        readable_duration(r.drain_s),
        percent(r.utilisation)};
    if (failures) {
      const SweepFailureRow f = r.failures.value_or(SweepFailureRow{});
      cells.insert(cells.end(), {f.checkpoint_interval, std::to_string(f.spare_nodes),
                                 std::to_string(f.interruptions), format_number(100 * f.goodput, 2) + "%",
                                 f.ettr ? format_number(100 * *f.ettr, 2) + "%" : std::string("-"),
                                 format_number(100 * f.availability, 2) + "%"});
    }
    table.add_row(std::move(cells));
  }
  return fmt::format("Sweep {}: {} tasks\n", sweep_name, rows.size()) + table.render() +
         "  util window: GPU utilisation from the first to the last arrival (none: all jobs arrive at once); "
         "drain: last arrival to the last job's end; util to end: first arrival to the last job's end\n" +
         (failures ? "  with failures (the seed is the failure seed): checkpoint interval, spare nodes, "
                     "interruptions, goodput (finished work / GPU-hours held), ETTR (finished jobs, "
                     "GPU-weighted), available (GPU-hours in service / those of nodes not held as spares)\n"
                   : std::string()) +
         jobs_left_out_text(rows);
}

nlohmann::ordered_json sweep_row_json(const SweepRow& r) {
  nlohmann::ordered_json row = {
      {"task", r.task},
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
  if (r.failures) {
    const SweepFailureRow& f = *r.failures;
    row["failures"] = {{"checkpoint_interval", f.checkpoint_interval},
                       {"spare_nodes", f.spare_nodes},
                       {"interruptions", f.interruptions},
                       {"goodput", f.goodput},
                       {"ettr", f.ettr ? nlohmann::ordered_json(*f.ettr) : nlohmann::ordered_json()},
                       {"availability", f.availability}};
  }
  return row;
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
  if (const auto failures = row.optional_child("failures")) {
    SweepFailureRow f;
    f.checkpoint_interval = failures->child("checkpoint_interval").string();
    f.spare_nodes = static_cast<int>(failures->child("spare_nodes").integer());
    f.interruptions = static_cast<int>(failures->child("interruptions").integer());
    f.goodput = failures->child("goodput").number();
    f.ettr = optional_number(failures->child("ettr"));
    f.availability = failures->child("availability").number();
    r.failures = f;
  }
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
