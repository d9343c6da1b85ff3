#include "gputwin/report/sweep_report.hpp"

#include <fmt/format.h>

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"

namespace gputwin {
namespace {

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string sweep_csv(const std::vector<SweepRow>& rows) {
  std::string text =
      "task,design,policy,variant,seed,jobs,completed,mean_wait_s,p95_wait_s,mean_jct_s,mean_bounded_"
      "slowdown,"
      "utilisation,makespan_s\n";
  for (const SweepRow& r : rows) {
    text += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.task, csv_cell(r.design),
                        csv_cell(r.policy), csv_cell(r.variant), r.seed, r.jobs, r.completed, r.mean_wait_s,
                        r.p95_wait_s, r.mean_jct_s, r.mean_bounded_slowdown, r.utilisation, r.makespan_s);
  }
  return text;
}

nlohmann::ordered_json sweep_row_json(const SweepRow& r) {
  return {{"task", r.task},
          {"design", r.design},
          {"policy", r.policy},
          {"variant", r.variant},
          {"seed", r.seed},
          {"jobs", r.jobs},
          {"completed", r.completed},
          {"mean_wait_s", r.mean_wait_s},
          {"p95_wait_s", r.p95_wait_s},
          {"mean_jct_s", r.mean_jct_s},
          {"mean_bounded_slowdown", r.mean_bounded_slowdown},
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

Result<SweepRow> sweep_row_from_json(const std::string& text, const std::string& source) {
  return guarded_parse<SweepRow>(source, [&] {
    const nlohmann::json document = parse_json(text, source);
    const JsonField row = JsonField::root(document, source, text).child("row");
    SweepRow r;
    r.task = static_cast<int>(row.child("task").integer());
    r.design = row.child("design").string();
    r.policy = row.child("policy").string();
    r.variant = row.child("variant").string();
    r.seed = static_cast<std::uint64_t>(row.child("seed").integer());
    r.jobs = static_cast<int>(row.child("jobs").integer());
    r.completed = static_cast<int>(row.child("completed").integer());
    r.mean_wait_s = row.child("mean_wait_s").number();
    r.p95_wait_s = row.child("p95_wait_s").number();
    r.mean_jct_s = row.child("mean_jct_s").number();
    r.mean_bounded_slowdown = row.child("mean_bounded_slowdown").number();
    r.utilisation = row.child("utilisation").number();
    r.makespan_s = row.child("makespan_s").number();
    return r;
  });
}

}  // namespace gputwin
