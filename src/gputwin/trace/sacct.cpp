#include "gputwin/trace/sacct.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <vector>

#include "gputwin/core/civil_time.hpp"
#include "gputwin/core/hostlist.hpp"
#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/trace/job_traces.hpp"

namespace gputwin {
namespace {

// One job as either sacct output gives it, before it becomes a JobSpec.
struct AccountedJob {
  SourceLocation where;
  std::string id;
  std::string user;
  std::string account;
  std::string qos;    // the QOS column / "qos": empty when the history has none
  std::string state;  // lowercase first word: "cancelled" for "CANCELLED by 0"
  std::optional<std::int64_t> submit;
  std::optional<std::int64_t> start;
  std::optional<std::int64_t> end;
  std::optional<double> elapsed;
  std::optional<double> limit;  // empty = unlimited or unknown
  int gpus = 0;
  int nodes = 0;
};

std::string state_word(std::string_view state) {
  std::string word(state.substr(0, state.find(' ')));
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
  return word;
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0)
    return std::nullopt;
  return value;
}

// Collects the accounted jobs into replayable ones: skips (and counts) what cannot be replayed, shifts the
// clock to the first submission (kept as `first_submit`).
SacctHistory replayable(const std::vector<AccountedJob>& accounted, TraceRows<JobSpec> result,
                        bool local_times) {
  std::set<std::string> seen;
  for (const AccountedJob& job : accounted) {
    if (!job.start) {
      ++result.skipped["never started"];
    } else if (!job.end) {
      ++result.skipped["not ended (still running)"];
    } else if (!seen.insert(job.id).second) {
      ++result.skipped["repeated job id (sacct --duplicates)"];
    } else {
      JobSpec spec;
      spec.id = job.id;
      spec.submit_time = static_cast<double>(job.submit.value_or(*job.start));
      spec.duration =
          job.elapsed.value_or(static_cast<double>(std::max<std::int64_t>(0, *job.end - *job.start)));
      spec.requested_time = job.limit.value_or(0);
      spec.gpus = job.gpus;
      spec.gpus_per_node =
          job.nodes > 0 && job.gpus > 0 && job.gpus % job.nodes == 0 ? job.gpus / job.nodes : 0;
      spec.user = job.user;
      spec.group = job.account;
      spec.qos = job.qos;
      spec.state = job.state;
      spec.recorded_wait =
          job.submit ? static_cast<double>(std::max<std::int64_t>(0, *job.start - *job.submit)) : -1;
      result.rows.push_back(std::move(spec));
    }
  }
  SacctHistory history;
  history.local_times = local_times;
  for (std::size_t i = 0; i < result.rows.size(); ++i)
    if (i == 0 || result.rows[i].submit_time < static_cast<double>(history.first_submit))
      history.first_submit = static_cast<std::int64_t>(result.rows[i].submit_time);
  order_from_first_submit(result.rows);
  history.jobs = std::move(result);
  return history;
}

// ---------------------------------------------------------------------------------------------------------------
// sacct --parsable2

class ParsableLine {
 public:
  ParsableLine(const std::string& file, int line, std::vector<std::string_view> cells,
               const std::vector<std::string>& header)
      : file_(file), line_(line), cells_(std::move(cells)), header_(header) {}

  [[nodiscard]] std::string_view text(int column) const {
    return column < 0 ? std::string_view() : cells_[column];
  }
  [[noreturn]] void fail(int column, const std::string& message) const {
    throw InputFailure(InputError{{file_, line_, 0}, column < 0 ? "" : header_[column], message});
  }
  [[nodiscard]] SourceLocation where() const { return {file_, line_, 0}; }

  // A time, or empty for "Unknown"/"None" (not started, not ended).
  [[nodiscard]] std::optional<std::int64_t> time(int column) const {
    const std::string_view value = text(column);
    if (column < 0 || value == "Unknown" || value == "None" || value.empty()) return std::nullopt;
    const auto seconds = parse_timestamp(value, 'T');
    if (!seconds) fail(column, "expected a date as YYYY-MM-DDTHH:MM:SS, got '" + std::string(value) + "'");
    return seconds;
  }

  [[nodiscard]] std::optional<double> duration(int column, bool may_be_unlimited) const {
    const std::string_view value = text(column);
    if (column < 0 || value.empty()) return std::nullopt;
    if (may_be_unlimited && (value == "UNLIMITED" || value == "Partition_Limit" || value == "INVALID")) {
      return std::nullopt;
    }
    const auto seconds = parse_slurm_duration(value);
    if (!seconds) fail(column, "expected a duration as [D-]HH:MM:SS, got '" + std::string(value) + "'");
    return seconds;
  }

 private:
  const std::string& file_;
  int line_;
  std::vector<std::string_view> cells_;
  const std::vector<std::string>& header_;
};

std::vector<std::string_view> split_cells(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t bar = line.find('|', start);
    cells.push_back(line.substr(start, bar - start));
    if (bar == std::string_view::npos) return cells;
    start = bar + 1;
  }
}

int column_of(const std::vector<std::string>& header, std::string_view name) {
  const auto found = std::find(header.begin(), header.end(), name);
  return found == header.end() ? -1 : static_cast<int>(found - header.begin());
}

// sacct's default output: a header of space-padded column names and a line of dashes, values cut to the
// column width (job ids, TRES lists), so it cannot be read back faithfully.
[[noreturn]] void refuse_sacct_table(const std::string& name, int line_number) {
  throw InputFailure(
      InputError{{name, line_number, 0},
                 "",
                 "this is sacct's table output (space-padded columns that cut long values); gputwin reads "
                 "`sacct --parsable2` or `sacct --json` output: run sacct again with --parsable2 or --json "
                 "(docs/sacct-import.md)"});
}

SacctHistory parsable_jobs(std::string_view text, const std::string& name) {
  std::vector<std::string> header;
  std::vector<AccountedJob> accounted;
  TraceRows<JobSpec> result;
  struct Columns {
    int id, user, account, submit, start, end, elapsed, limit, state, nodes, node_list, alloc, req, qos;
  } c{};
  int line_number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t newline = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, newline - at);
    at = newline + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (header.empty() && is_sacct_table_header(line)) refuse_sacct_table(name, line_number);
    const auto cells = split_cells(line);
    if (header.empty()) {
      header.assign(cells.begin(), cells.end());
      const auto required = [&](std::string_view column) {
        const int index = column_of(header, column);
        if (index < 0) {
          throw InputFailure(InputError{{name, line_number, 0},
                                        std::string(column),
                                        "missing column; sacct --parsable2 -o needs at least "
                                        "JobID,Submit,Start,End,State and AllocTRES (docs/sacct-import.md)"});
        }
        return index;
      };
      c = {required("JobID"),
           column_of(header, "User"),
           column_of(header, "Account"),
           required("Submit"),
           required("Start"),
           required("End"),
           column_of(header, "Elapsed"),
           column_of(header, "Timelimit"),
           required("State"),
           column_of(header, "NNodes"),
           column_of(header, "NodeList"),
           column_of(header, "AllocTRES"),
           column_of(header, "ReqTRES"),
           column_of(header, "QOS")};
      if (c.alloc < 0 && c.req < 0) required("AllocTRES");
      continue;
    }
    const ParsableLine row(name, line_number, cells, header);
    if (cells.size() != header.size()) {
      row.fail(-1, "expected " + std::to_string(header.size()) +
                       " '|'-separated fields as the header has, found " + std::to_string(cells.size()) +
                       " (truncated line, or not --parsable2 output)");
    }
    const std::string_view id = row.text(c.id);
    if (id.empty()) row.fail(c.id, "empty job id");
    if (id.find('.') != std::string_view::npos) {
      ++result.skipped["job step rows"];
      continue;
    }
    AccountedJob job;
    job.where = row.where();
    job.id = std::string(id);
    job.user = std::string(row.text(c.user));
    job.account = std::string(row.text(c.account));
    job.qos = std::string(row.text(c.qos));
    job.state = state_word(row.text(c.state));
    if (job.state.empty()) row.fail(c.state, "empty state");
    job.submit = row.time(c.submit);
    job.start = row.time(c.start);
    job.end = row.time(c.end);
    job.elapsed = row.duration(c.elapsed, false);
    job.limit = row.duration(c.limit, true);
    // The allocation when the job ran; what it asked for when it never did.
    const int tres_column = c.alloc >= 0 && !row.text(c.alloc).empty() ? c.alloc : c.req;
    const auto gpus = gpus_in_tres(row.text(tres_column));
    if (!gpus)
      row.fail(tres_column, "expected a TRES list such as 'cpu=2,gres/gpu=2,node=1', got '" +
                                std::string(row.text(tres_column)) + "'");
    job.gpus = *gpus;
    if (c.nodes >= 0 && !row.text(c.nodes).empty()) {
      const auto nodes = whole_number(row.text(c.nodes));
      if (!nodes) row.fail(c.nodes, "expected a node count, got '" + std::string(row.text(c.nodes)) + "'");
      job.nodes = static_cast<int>(*nodes);
    } else if (c.node_list >= 0 && row.text(c.node_list) != "None assigned" &&
               !row.text(c.node_list).empty()) {
      const auto hosts = expand_hostlist(row.text(c.node_list));
      if (!hosts.ok()) row.fail(c.node_list, hosts.errors().front().message);
      job.nodes = static_cast<int>(hosts.value().size());
    }
    accounted.push_back(std::move(job));
  }
  if (header.empty()) throw InputFailure(InputError{{name, 0, 0}, "", "empty file: no sacct header line"});
  return replayable(accounted, std::move(result), true);
}

// ---------------------------------------------------------------------------------------------------------------
// sacct --json

// A number as 22.05 writes it (plain) or as later versions do ({"set": true, "infinite": false, "number":
// 5}); empty when not set or infinite.
std::optional<std::int64_t> slurm_number(const JsonField& field) {
  if (field.json().is_null()) return std::nullopt;
  if (!field.json().is_object()) return field.integer();
  if (field.has("set") && !field.child("set").json().get<bool>()) return std::nullopt;
  if (field.has("infinite") && field.child("infinite").json().get<bool>()) return std::nullopt;
  return field.child("number").integer();
}

std::optional<std::int64_t> optional_number(const JsonField& parent, std::string_view key) {
  const auto field = parent.optional_child(key);
  return field ? slurm_number(*field) : std::nullopt;
}

// A time: epoch seconds, 0 meaning "not yet".
std::optional<std::int64_t> epoch(const JsonField& time, std::string_view key) {
  const auto value = optional_number(time, key);
  return value && *value > 0 ? value : std::nullopt;
}

std::string optional_text(const JsonField& parent, std::string_view key) {
  const auto field = parent.optional_child(key);
  return field && !field->json().is_null() ? field->string() : std::string();
}

// "state": {"current": "COMPLETED"} (22.05) or {"current": ["COMPLETED"]} (later), or a plain string.
std::string json_state(const JsonField& job) {
  const JsonField state = job.child("state");
  if (state.json().is_string()) return state_word(state.string());
  const JsonField current = state.child("current");
  if (current.json().is_array()) {
    if (current.array_size() == 0) current.fail("expected at least one state");
    return state_word(current.element(0).string());
  }
  return state_word(current.string());
}

int json_gpus(const JsonField& job, bool started) {
  const auto tres = job.optional_child("tres");
  if (!tres) return 0;
  const auto list = tres->optional_child(started ? "allocated" : "requested");
  if (!list || list->json().is_null()) return 0;
  for (std::size_t i = 0; i < list->array_size(); ++i) {
    const JsonField entry = list->element(i);
    if (optional_text(entry, "type") == "gres" && optional_text(entry, "name") == "gpu") {
      return static_cast<int>(slurm_number(entry.child("count")).value_or(0));
    }
  }
  return 0;
}

// "12" or, for an array task, "12_3" as sacct prints it (the array's id and the task).
std::string json_job_id(const JsonField& job) {
  const std::string id = std::to_string(slurm_number(job.child("job_id")).value_or(0));
  const auto array = job.optional_child("array");
  if (!array) return id;
  const auto array_id = optional_number(*array, "job_id");
  const auto task = optional_number(*array, "task_id");
  return array_id && *array_id > 0 && task ? std::to_string(*array_id) + "_" + std::to_string(*task) : id;
}

SacctHistory json_jobs(std::string_view text, const std::string& name) {
  const nlohmann::json document = parse_json(text, name);
  const JsonField root = JsonField::root(document, name, text);
  const JsonField jobs = root.child("jobs");
  std::vector<AccountedJob> accounted;
  for (std::size_t i = 0; i < jobs.array_size(); ++i) {
    const JsonField job = jobs.element(i);
    AccountedJob a;
    a.id = json_job_id(job);
    a.user = optional_text(job, "user");
    a.account = optional_text(job, "account");
    a.qos = optional_text(job, "qos");
    a.state = json_state(job);
    const JsonField time = job.child("time");
    a.submit = epoch(time, "submission");
    a.start = epoch(time, "start");
    a.end = epoch(time, "end");
    a.elapsed = a.start && a.end ? optional_number(time, "elapsed") : std::nullopt;
    const auto limit_minutes = optional_number(time, "limit");
    if (limit_minutes) a.limit = static_cast<double>(*limit_minutes) * 60;
    a.gpus = json_gpus(job, a.start.has_value());
    a.nodes = static_cast<int>(optional_number(job, "allocation_nodes").value_or(0));
    accounted.push_back(std::move(a));
  }
  return replayable(accounted, {}, false);
}

}  // namespace

std::optional<int> gpus_in_tres(std::string_view tres) {
  int gpus = 0;
  std::size_t start = 0;
  while (start < tres.size()) {
    const std::size_t comma = std::min(tres.find(',', start), tres.size());
    const std::string_view item = tres.substr(start, comma - start);
    start = comma + 1;
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0) return std::nullopt;
    if (item.substr(0, equals) != "gres/gpu") continue;  // "gres/gpu:h100" repeats the count by type
    const auto count = whole_number(item.substr(equals + 1));
    if (!count) return std::nullopt;
    gpus = static_cast<int>(*count);
  }
  return gpus;
}

std::optional<double> parse_slurm_duration(std::string_view text) {
  std::int64_t days = 0;
  const std::size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    const auto parsed = whole_number(text.substr(0, dash));
    if (!parsed) return std::nullopt;
    days = *parsed;
    text = text.substr(dash + 1);
  }
  std::vector<std::int64_t> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = text.find(':', start);
    const auto part =
        whole_number(text.substr(start, colon == std::string_view::npos ? text.npos : colon - start));
    if (!part) return std::nullopt;
    parts.push_back(*part);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) return std::nullopt;
  // With a day part the fields are H[:M[:S]]; without, M:S or H:M:S (sacct) or plain minutes (sbatch --time).
  std::int64_t hours = 0, minutes = 0, seconds = 0;
  if (dash != std::string_view::npos) {
    hours = parts[0];
    if (parts.size() > 1) minutes = parts[1];
    if (parts.size() > 2) seconds = parts[2];
  } else if (parts.size() == 3) {
    hours = parts[0], minutes = parts[1], seconds = parts[2];
  } else if (parts.size() == 2) {
    minutes = parts[0], seconds = parts[1];
  } else {
    minutes = parts[0];
  }
  return static_cast<double>(((days * 24 + hours) * 60 + minutes) * 60 + seconds);
}

bool is_sacct_table_header(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line.substr(first).rfind("JobID", 0) == 0 &&
         line.find('|') == std::string_view::npos;
}

Result<SacctHistory> parse_sacct_history(const std::string& text, const std::string& name) {
  return guarded_parse<SacctHistory>(name, [&] {
    const auto first = text.find_first_not_of(" \t\r\n");
    return first != std::string::npos && text[first] == '{' ? json_jobs(text, name)
                                                            : parsable_jobs(text, name);
  });
}

Result<SacctHistory> read_sacct_history(const std::string& path) {
  return guarded_parse<SacctHistory>(
      path, [&]() -> Result<SacctHistory> { return parse_sacct_history(read_input_file(path), path); });
}

namespace {
Result<TraceRows<JobSpec>> jobs_of(Result<SacctHistory> history) {
  if (!history.ok()) return history.errors();
  return std::move(history).value().jobs;
}
}  // namespace

Result<TraceRows<JobSpec>> parse_sacct_parsable(const std::string& text, const std::string& name) {
  return jobs_of(guarded_parse<SacctHistory>(name, [&] { return parsable_jobs(text, name); }));
}

Result<TraceRows<JobSpec>> parse_sacct_json(const std::string& text, const std::string& name) {
  return jobs_of(guarded_parse<SacctHistory>(name, [&] { return json_jobs(text, name); }));
}

Result<TraceRows<JobSpec>> read_sacct(const std::string& path) {
  return jobs_of(read_sacct_history(path));
}

}  // namespace gputwin
