// Slurm accounting history (sacct) as jobs to replay: what the user's real cluster ran.
//
//   Result<TraceRows<JobSpec>> jobs = read_sacct("history.psv");   // --parsable2 or --json, told by content
//   write_job_csv(jobs.value().rows, out);                          // then `simulate replay --format jobs`
//
// `sacct --parsable2` output: '|'-separated, a header line naming the columns (docs/sacct-import.md lists
// those read), one line per job allocation or step. `sacct --json`: the 22.05 shape (openapi dbv0.0.38:
// state.current a string, plain numbers) and the newer ones (state.current a list, numbers as {set, infinite,
// number}). A job's GPUs are the count of `gres/gpu=N` in its allocated TRES (requested when it never ran),
// never adding the typed `gres/gpu:<type>=N` entries that repeat it. Step rows ("12.batch", "12.0") are
// skipped and counted; so are jobs that never started or have not ended. A line or field that cannot be read
// is an error naming the file, line and column. sacct's plain table output (space-padded, values cut to the
// column width) is recognised and refused with a hint to run sacct with --parsable2 or --json.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

[[nodiscard]] Result<TraceRows<JobSpec>> read_sacct(const std::string& path);

// The same jobs and where their clock starts: `validate --sacct` lines a replay of them up with a Prometheus
// timeline, so it needs the first submission's absolute time. --parsable2 writes wall-clock times in the
// cluster's zone (local_times: the caller supplies the zone); --json writes Unix seconds.
struct SacctHistory {
  TraceRows<JobSpec> jobs;        // submit times from the first submission, as read_sacct gives them
  std::int64_t first_submit = 0;  // the first submission: seconds since 1970 in sacct's own clock
  bool local_times = false;       // true for --parsable2 (zone-less local times), false for --json (UTC)
};
[[nodiscard]] Result<SacctHistory> read_sacct_history(const std::string& path);
[[nodiscard]] Result<SacctHistory> parse_sacct_history(const std::string& text, const std::string& name);
[[nodiscard]] Result<TraceRows<JobSpec>> parse_sacct_parsable(const std::string& text,
                                                              const std::string& name);
[[nodiscard]] Result<TraceRows<JobSpec>> parse_sacct_json(const std::string& text, const std::string& name);
// True for the header line of sacct's plain table output ("JobID    JobName  ...", no '|').
[[nodiscard]] bool is_sacct_table_header(std::string_view line);

// GPUs in a TRES list such as "cpu=2,gres/gpu:h100=2,gres/gpu=2,node=1": the `gres/gpu=` count, 0 when the
// list has none; empty when the list is malformed.
[[nodiscard]] std::optional<int> gpus_in_tres(std::string_view tres);

// A Slurm duration "[D-]HH:MM:SS", "MM:SS" or "[D-]HH" forms as sacct prints Elapsed and Timelimit, in
// seconds; empty when malformed. "UNLIMITED", "Partition_Limit" and "INVALID" are not durations (the caller
// decides).
[[nodiscard]] std::optional<double> parse_slurm_duration(std::string_view text);

}  // namespace gputwin
