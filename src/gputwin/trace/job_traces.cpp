#include "gputwin/trace/job_traces.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "gputwin/core/civil_time.hpp"
#include "gputwin/core/input_file.hpp"
#include "gputwin/trace/csv_reader.hpp"

namespace gputwin {
namespace {

std::int64_t timestamp_in(const CsvRow& row, int column) {
  const auto seconds = parse_timestamp(row.text(column));
  if (!seconds) row.fail(column, "expected a date as YYYY-MM-DD HH:MM:SS, got '" + row.text(column) + "'");
  return *seconds;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers shared by the readers.

int int_in(const CsvRow& row, int column) {
  const std::int64_t value = row.integer(column);
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    row.fail(column, "value " + row.text(column) + " is out of range");
  }
  return static_cast<int>(value);
}

bool has_value(const CsvRow& row, int column) {
  return column >= 0 && !row.empty(column);
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// Sorted by submit time with ties in file order, so replays are deterministic whatever order the file used.
void sort_by_submit(std::vector<JobSpec>& jobs) {
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_time < b.submit_time; });
}

// ---------------------------------------------------------------------------------------------------------------
// Philly, as prepared by the Pollux artifact (petuum/adaptdl, osdi21-artifact, simulator/traces/philly.csv).
// Rows are not in time order in that file, and it carries no job id or final state.

TraceRows<JobSpec> philly_from(CsvReader csv) {
  const int timestamp = csv.column("timestamp");
  const int duration = csv.column("duration");
  const int num_gpus = csv.column("num_gpus");
  const int cluster = csv.column("cluster");
  TraceRows<JobSpec> result;
  while (auto row = csv.next()) {
    JobSpec job;
    job.id = std::to_string(row->line());
    job.submit_time = static_cast<double>(timestamp_in(*row, timestamp));
    job.duration = row->number(duration);
    job.gpus = int_in(*row, num_gpus);
    job.group = row->text(cluster);
    if (job.duration < 0) {
      ++result.skipped["negative duration"];
    } else if (job.gpus < 0) {
      ++result.skipped["negative num_gpus"];
    } else {
      result.rows.push_back(std::move(job));
    }
  }
  order_from_first_submit(result.rows);
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// Standard Workload Format (Parallel Workloads Archive,
// https://www.cs.huji.ac.il/labs/parallel/workload/swf.html): one job per line, 18 whitespace-separated
// numbers, -1 for unknown; ';' lines are the header.

// Index = SWF field number - 1.
enum SwfField : std::size_t {
  kJobNumber,
  kSubmitTime,
  kWaitTime,
  kRunTime,
  kAllocatedProcessors,
  kAverageCpuTime,
  kUsedMemory,
  kRequestedProcessors,
  kRequestedTime,
  kRequestedMemory,
  kStatus,
  kUserId,
  kGroupId,
  kExecutable,
  kQueue,
  kPartition,
  kPrecedingJob,
  kThinkTime,
  kSwfFieldCount
};

// One line per six fields, numbered as the SWF definition counts them.
// clang-format off
constexpr std::array<std::string_view, kSwfFieldCount> kSwfFieldNames{
    "job_number", "submit_time", "wait_time", "run_time", "allocated_processors", "average_cpu_time",  // 1-6
    "used_memory", "requested_processors", "requested_time", "requested_memory", "status", "user_id",  // 7-12
    "group_id", "executable", "queue", "partition", "preceding_job", "think_time"};                    // 13-18
// clang-format on

constexpr double kSwfUnknown = -1;

// Status codes of the SWF definition; 2-4 appear only in logs that record each checkpoint/swap-out as its own
// line.
std::string swf_state(double status, std::string_view status_text) {
  constexpr std::array<std::string_view, 6> kStates{
      "failed", "completed", "partial", "partial-completed", "partial-failed", "cancelled"};
  if (status == kSwfUnknown) return "";
  if (status >= 0 && status < static_cast<double>(kStates.size()) && std::floor(status) == status) {
    return std::string(kStates[static_cast<std::size_t>(status)]);
  }
  return "status " + std::string(status_text);  // outside the definition: kept visible rather than dropped
}

struct SwfRecord {
  SourceLocation where;
  std::array<std::string_view, kSwfFieldCount> text;
  std::array<double, kSwfFieldCount> value{};

  [[noreturn]] void fail(SwfField field, const std::string& message) const {
    throw InputFailure({where, std::string(kSwfFieldNames[field]), message});
  }
  [[nodiscard]] int whole(SwfField field) const {
    const double v = value[field];
    if (std::floor(v) != v || std::abs(v) > std::numeric_limits<int>::max()) {
      fail(field, "expected a whole number, got '" + std::string(text[field]) + "'");
    }
    return static_cast<int>(v);
  }
  // The field as text (ids, user, queue), empty when unknown.
  [[nodiscard]] std::string label(SwfField field) const {
    return value[field] == kSwfUnknown ? std::string() : std::string(text[field]);
  }
};

std::vector<std::string_view> split_whitespace(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t start = line.find_first_not_of(" \t");
  while (start != std::string_view::npos) {
    const std::size_t end = line.find_first_of(" \t", start);
    words.push_back(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    start = end == std::string_view::npos ? end : line.find_first_not_of(" \t", end);
  }
  return words;
}

SwfRecord parse_swf_record(std::string_view line, SourceLocation where) {
  const auto words = split_whitespace(line);
  SwfRecord record{std::move(where), {}, {}};
  if (words.size() != kSwfFieldCount) {
    throw InputFailure({record.where, "",
                        "expected " + std::to_string(kSwfFieldCount) +
                            " whitespace-separated fields, found " + std::to_string(words.size()) +
                            " (truncated or malformed job line)"});
  }
  for (std::size_t f = 0; f < kSwfFieldCount; ++f) {
    record.text[f] = words[f];
    const auto [end, error] =
        std::from_chars(words[f].data(), words[f].data() + words[f].size(), record.value[f]);
    if (error != std::errc() || end != words[f].data() + words[f].size() || !std::isfinite(record.value[f])) {
      record.fail(static_cast<SwfField>(f), "expected a number, got '" + std::string(words[f]) + "'");
    }
  }
  return record;
}

// Why the record cannot be replayed, or nullopt when it can.
std::optional<std::string> swf_skip_reason(const SwfRecord& record) {
  if (record.value[kSubmitTime] < 0) return "unknown submit time";
  if (record.value[kRunTime] == kSwfUnknown) return "unknown run time";
  if (record.value[kRunTime] < 0) return "negative run time";
  if (record.value[kAllocatedProcessors] <= 0 && record.value[kRequestedProcessors] <= 0) {
    return "no processor count (allocated and requested both unknown or 0)";
  }
  return std::nullopt;
}

JobSpec swf_job(const SwfRecord& record) {
  JobSpec job;
  job.id = std::string(record.text[kJobNumber]);
  job.submit_time = record.value[kSubmitTime];
  job.duration = record.value[kRunTime];
  // Allocated is what the job really held; the request stands in only when the log lacks the allocation.
  job.gpus = record.value[kAllocatedProcessors] > 0 ? record.whole(kAllocatedProcessors)
                                                    : record.whole(kRequestedProcessors);
  job.requested_time = std::max(0.0, record.value[kRequestedTime]);
  job.recorded_wait = record.value[kWaitTime] >= 0 ? record.value[kWaitTime] : -1;
  job.user = record.label(kUserId);
  job.group = record.label(kQueue);
  job.state = swf_state(record.value[kStatus], record.text[kStatus]);
  return job;
}

// "; MaxProcs: 100" and "; MaxNodes: 100" give the machine size; other header lines are informational.
void read_swf_header_line(std::string_view line, const SourceLocation& where, SwfTrace& trace) {
  line.remove_prefix(std::min(line.find_first_not_of("; \t"), line.size()));
  for (auto [key, target] : {std::pair{std::string_view("MaxProcs:"), &trace.max_procs},
                             std::pair{std::string_view("MaxNodes:"), &trace.max_nodes}}) {
    if (!line.starts_with(key)) continue;
    const auto words = split_whitespace(line.substr(key.size()));
    int value = 0;
    const auto* last = words.empty() ? nullptr : words[0].data() + words[0].size();
    if (words.size() != 1 || std::from_chars(words[0].data(), last, value).ptr != last || value < 0) {
      throw InputFailure(
          {where, std::string(key.substr(0, key.size() - 1)), "expected a count of processors"});
    }
    *target = value;
  }
}

SwfTrace swf_from(const std::string& text, const std::string& name) {
  SwfTrace trace;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    const SourceLocation where{name, number, 0};
    if (line[first] == ';') {
      read_swf_header_line(line, where, trace);
      continue;
    }
    const SwfRecord record = parse_swf_record(line, where);
    if (const auto reason = swf_skip_reason(record)) {
      ++trace.jobs.skipped[*reason];
    } else {
      trace.jobs.rows.push_back(swf_job(record));
    }
  }
  order_from_first_submit(trace.jobs.rows);
  return trace;
}

// ---------------------------------------------------------------------------------------------------------------
// Helios cluster_log.csv. Checked against the schema in the HeliosData README
// (github.com/S-Lab-System-Group/HeliosData, "Schema and Description") and the HeliosArtifact scripts that
// load it (analysis/trace_parser.py: pd.read_csv(..., parse_dates=['submit_time', 'start_time',
// 'end_time'])):
//   job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
// Times are zone-less "YYYY-MM-DD HH:MM:SS"; duration = end_time - start_time and queue = start_time -
// submit_time, in seconds; state is COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL (SUSPENDED once, in
// Uranus). The released files have no `jobname` column; one (or any other extra column) is ignored, since
// columns are found by name.

struct HeliosColumns {
  explicit HeliosColumns(const CsvReader& csv)
      : job_id(csv.column("job_id")),
        user(csv.optional_column("user")),
        vc(csv.column("vc")),
        gpu_num(csv.column("gpu_num")),
        node_num(csv.optional_column("node_num")),
        state(csv.optional_column("state")),
        submit_time(csv.column("submit_time")),
        start_time(csv.optional_column("start_time")),
        end_time(csv.optional_column("end_time")),
        duration(csv.optional_column("duration")) {
    if (duration < 0 && (start_time < 0 || end_time < 0)) {
      throw InputFailure(
          {{csv.file(), 1, 0}, "duration", "needs a duration column, or start_time and end_time"});
    }
  }
  const int job_id, user, vc, gpu_num, node_num, state, submit_time, start_time, end_time, duration;
};

// Seconds the job ran: the duration column, else end - start; nullopt when the row records neither.
std::optional<double> helios_duration(const CsvRow& row, const HeliosColumns& columns) {
  if (has_value(row, columns.duration)) return row.number(columns.duration);
  if (has_value(row, columns.start_time) && has_value(row, columns.end_time)) {
    return static_cast<double>(timestamp_in(row, columns.end_time) - timestamp_in(row, columns.start_time));
  }
  return std::nullopt;
}

// The split across nodes, when it is even; an uneven split (3 GPUs on 2 nodes) cannot be expressed per node.
int even_gpus_per_node(int gpus, int nodes) {
  return nodes > 0 && gpus > 0 && gpus % nodes == 0 ? gpus / nodes : 0;
}

JobSpec helios_job(const CsvRow& row, const HeliosColumns& columns) {
  JobSpec job;
  job.id = row.text(columns.job_id);
  job.submit_time = static_cast<double>(timestamp_in(row, columns.submit_time));
  job.gpus = int_in(row, columns.gpu_num);
  if (has_value(row, columns.node_num)) {
    job.gpus_per_node = even_gpus_per_node(job.gpus, int_in(row, columns.node_num));
  }
  if (columns.user >= 0) job.user = row.text(columns.user);
  job.group = row.text(columns.vc);
  if (columns.state >= 0) job.state = lowercase(row.text(columns.state));
  if (has_value(row, columns.start_time)) {
    const double wait = static_cast<double>(timestamp_in(row, columns.start_time)) - job.submit_time;
    // A start before submission is clock skew: the wait is then unknown, not negative.
    job.recorded_wait = wait >= 0 ? wait : -1;
  }
  return job;
}

TraceRows<JobSpec> helios_from(CsvReader csv) {
  const HeliosColumns columns(csv);
  TraceRows<JobSpec> result;
  while (auto row = csv.next()) {
    JobSpec job = helios_job(*row, columns);
    const std::optional<double> duration = helios_duration(*row, columns);
    if (!duration) {
      ++result.skipped["unknown duration"];
    } else if (*duration < 0) {
      ++result.skipped["negative duration"];
    } else if (job.gpus < 0) {
      ++result.skipped["negative gpu_num"];
    } else {
      job.duration = *duration;
      result.rows.push_back(std::move(job));
    }
  }
  order_from_first_submit(result.rows);
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// gputwin's job CSV (docs/jobs-format.md). Strict: the file is ours, so anything odd is a mistake to stop at.

constexpr std::array<std::string_view, 12> kJobCsvColumns{
    "id",   "submit_time", "duration", "gpus",          "gpus_per_node", "requested_time",
    "user", "group",       "state",    "recorded_wait", "mig_profile",   "qos"};
// The writer leaves out mig_profile when no job asks for a MIG slice and qos when no job has a priority
// class: such traces are written as before.
constexpr std::size_t kMigColumn = 10;
constexpr std::size_t kQosColumn = 11;

struct JobCsvColumns {
  explicit JobCsvColumns(const CsvReader& csv)
      : id(csv.column("id")),
        submit_time(csv.column("submit_time")),
        duration(csv.column("duration")),
        gpus(csv.column("gpus")),
        gpus_per_node(csv.optional_column("gpus_per_node")),
        requested_time(csv.optional_column("requested_time")),
        user(csv.optional_column("user")),
        group(csv.optional_column("group")),
        state(csv.optional_column("state")),
        recorded_wait(csv.optional_column("recorded_wait")),
        mig_profile(csv.optional_column("mig_profile")),
        qos(csv.optional_column("qos")) {
    reject_unknown_columns(csv);
  }
  const int id, submit_time, duration, gpus, gpus_per_node, requested_time, user, group, state, recorded_wait,
      mig_profile, qos;

 private:
  // A misspelt optional column would otherwise be ignored and its values lost without a word.
  static void reject_unknown_columns(const CsvReader& csv) {
    for (const auto& name : csv.header()) {
      if (std::find(kJobCsvColumns.begin(), kJobCsvColumns.end(), name) != kJobCsvColumns.end()) continue;
      std::string known;
      for (const auto column : kJobCsvColumns) known += (known.empty() ? "" : ",") + std::string(column);
      throw InputFailure({{csv.file(), 1, 0}, name, "unknown column; the format has " + known});
    }
  }
};

double non_negative_number(const CsvRow& row, int column) {
  const double value = row.number(column);
  if (value < 0) row.fail(column, "must not be negative, got '" + row.text(column) + "'");
  return value;
}

int non_negative_int(const CsvRow& row, int column) {
  const int value = int_in(row, column);
  if (value < 0) row.fail(column, "must not be negative, got '" + row.text(column) + "'");
  return value;
}

std::string optional_text(const CsvRow& row, int column) {
  return column >= 0 ? row.text(column) : std::string();
}

double recorded_wait_in(const CsvRow& row, int column) {
  if (!has_value(row, column)) return -1;
  const double wait = row.number(column);
  if (wait < 0 && wait != -1) {
    row.fail(column, "must be -1 (unknown) or at least 0, got '" + row.text(column) + "'");
  }
  return wait;
}

// NVIDIA's profile names: "<compute slices>g.<memory>gb", optionally "+<extension>" such as "+me".
bool looks_like_mig_profile(std::string_view name) {
  const auto digits = [&](std::size_t& at) {
    const std::size_t begin = at;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9') ++at;
    return at > begin;
  };
  std::size_t at = 0;
  if (!digits(at) || name.substr(at, 2) != "g.") return false;
  at += 2;
  if (!digits(at) || name.substr(at, 2) != "gb") return false;
  at += 2;
  if (at == name.size()) return true;
  if (name[at] != '+' || at + 1 == name.size()) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(at) + 1, name.end(),
                     [](char c) { return c >= 'a' && c <= 'z'; });
}

// A MIG job takes exactly one slice, so it asks for no whole GPUs.
std::string mig_profile_in(const CsvRow& row, const JobCsvColumns& columns, const JobSpec& job,
                           const std::vector<std::string>& known_profiles) {
  if (!has_value(row, columns.mig_profile)) return {};
  const std::string& name = row.text(columns.mig_profile);
  if (!looks_like_mig_profile(name)) {
    row.fail(columns.mig_profile, "expected a MIG profile name such as '1g.10gb', got '" + name + "'");
  }
  if (!known_profiles.empty() &&
      std::find(known_profiles.begin(), known_profiles.end(), name) == known_profiles.end()) {
    std::string known;
    for (const auto& profile : known_profiles) known += (known.empty() ? "" : ", ") + profile;
    row.fail(columns.mig_profile, "'" + name + "' is not a profile of the MIG-mode GPUs; they have " + known);
  }
  if (job.gpus != 0 || job.gpus_per_node != 0) {
    const std::string got = std::to_string(job.gpus) + " and " + std::to_string(job.gpus_per_node);
    row.fail(columns.gpus, "a job on a MIG slice (" + name +
                               ") takes no whole GPUs: gpus and gpus_per_node must be 0, got " + got);
  }
  return name;
}

JobSpec job_csv_job(const CsvRow& row, const JobCsvColumns& columns,
                    const std::vector<std::string>& known_profiles) {
  JobSpec job;
  job.id = row.text(columns.id);
  if (job.id.empty()) row.fail(columns.id, "a job needs an id");
  job.submit_time = non_negative_number(row, columns.submit_time);
  job.duration = non_negative_number(row, columns.duration);
  job.gpus = non_negative_int(row, columns.gpus);
  if (has_value(row, columns.gpus_per_node)) job.gpus_per_node = non_negative_int(row, columns.gpus_per_node);
  if (job.gpus_per_node > 0 && job.gpus % job.gpus_per_node != 0) {
    row.fail(columns.gpus_per_node, "gpus (" + std::to_string(job.gpus) +
                                        ") is not a multiple of gpus_per_node (" +
                                        std::to_string(job.gpus_per_node) + ")");
  }
  if (has_value(row, columns.requested_time)) {
    job.requested_time = non_negative_number(row, columns.requested_time);
  }
  job.user = optional_text(row, columns.user);
  job.group = optional_text(row, columns.group);
  job.state = optional_text(row, columns.state);
  job.recorded_wait = recorded_wait_in(row, columns.recorded_wait);
  job.mig_profile = mig_profile_in(row, columns, job, known_profiles);
  job.qos = optional_text(row, columns.qos);
  return job;
}

TraceRows<JobSpec> job_csv_from(CsvReader csv, const std::vector<std::string>& known_profiles) {
  const JobCsvColumns columns(csv);
  TraceRows<JobSpec> result;
  std::set<std::string> ids;
  while (auto row = csv.next()) {
    JobSpec job = job_csv_job(*row, columns, known_profiles);
    if (!ids.insert(job.id).second) row->fail(columns.id, "duplicate job id '" + job.id + "'");
    result.rows.push_back(std::move(job));
  }
  sort_by_submit(result.rows);
  return result;
}

// Shortest text that reads back as the same double, so a written trace replays exactly.
std::string number_text(double value) {
  std::array<char, 32> buffer{};
  const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return {buffer.data(), error == std::errc() ? end : buffer.data()};
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

void order_from_first_submit(std::vector<JobSpec>& jobs) {
  sort_by_submit(jobs);
  if (jobs.empty()) return;
  const double first = jobs.front().submit_time;
  for (auto& job : jobs) job.submit_time -= first;
}

Result<TraceRows<JobSpec>> read_philly_jobs(const std::string& path) {
  return result_of<TraceRows<JobSpec>>([&] { return philly_from(CsvReader::open(path)); });
}
Result<TraceRows<JobSpec>> parse_philly_jobs(const std::string& text, const std::string& name) {
  return result_of<TraceRows<JobSpec>>([&] { return philly_from(CsvReader::parse(text, name)); });
}

Result<SwfTrace> read_swf(const std::string& path) {
  return result_of<SwfTrace>([&] { return swf_from(read_input_file(path), path); });
}
Result<SwfTrace> parse_swf(const std::string& text, const std::string& name) {
  return result_of<SwfTrace>([&] { return swf_from(text, name); });
}

Result<TraceRows<JobSpec>> read_helios_jobs(const std::string& path) {
  return result_of<TraceRows<JobSpec>>([&] { return helios_from(CsvReader::open(path)); });
}
Result<TraceRows<JobSpec>> parse_helios_jobs(const std::string& text, const std::string& name) {
  return result_of<TraceRows<JobSpec>>([&] { return helios_from(CsvReader::parse(text, name)); });
}

Result<TraceRows<JobSpec>> read_job_csv(const std::string& path,
                                        const std::vector<std::string>& known_mig_profiles) {
  return result_of<TraceRows<JobSpec>>(
      [&] { return job_csv_from(CsvReader::open(path), known_mig_profiles); });
}
Result<TraceRows<JobSpec>> parse_job_csv(const std::string& text, const std::string& name,
                                         const std::vector<std::string>& known_mig_profiles) {
  return result_of<TraceRows<JobSpec>>(
      [&] { return job_csv_from(CsvReader::parse(text, name), known_mig_profiles); });
}

void write_job_csv(const std::vector<JobSpec>& jobs, std::ostream& out) {
  const bool with_mig =
      std::any_of(jobs.begin(), jobs.end(), [](const JobSpec& job) { return !job.mig_profile.empty(); });
  const bool with_qos =
      std::any_of(jobs.begin(), jobs.end(), [](const JobSpec& job) { return !job.qos.empty(); });
  for (std::size_t c = 0; c < kMigColumn; ++c) out << (c == 0 ? "" : ",") << kJobCsvColumns[c];
  if (with_mig) out << ',' << kJobCsvColumns[kMigColumn];
  if (with_qos) out << ',' << kJobCsvColumns[kQosColumn];
  out << '\n';
  for (const JobSpec& job : jobs) {
    out << csv_field(job.id) << ',' << number_text(job.submit_time) << ',' << number_text(job.duration) << ','
        << job.gpus << ',' << job.gpus_per_node << ',' << number_text(job.requested_time) << ','
        << csv_field(job.user) << ',' << csv_field(job.group) << ',' << csv_field(job.state) << ','
        << number_text(job.recorded_wait);
    if (with_mig) out << ',' << csv_field(job.mig_profile);
    if (with_qos) out << ',' << csv_field(job.qos);
    out << '\n';
  }
}

}  // namespace gputwin
