// A sweep as a Slurm job array: the sbatch script and the manifest `gputwin sweep --slurm` writes, where each
// array task leaves its result, and the merge of those results back into one table.
//
//   SlurmArraySweep sweep{"policies", "/abs/sweep.yaml", 16, "/usr/bin/gputwin", "/shared/run",
//   {"--partition=gpu"}}; ExportFiles files = slurm_array_files(sweep);           // manifest.json,
//   sweep.sbatch std::system(slurm_array_submit_command(sweep.dir, /*wait=*/true).c_str());
//   Result<MergedSweep> merged = merge_slurm_array("/shared/run");   // rows in task order, and what is
//   missing
//
// Layout of the directory: manifest.json (schema gputwin.sweep-manifest/1: sweep file, name, task count),
// sweep.sbatch, results/task-<i>.json (schema gputwin.sweep-task/1, report/sweep_report.hpp) and
// logs/task-<i>.log. A task writes its result whole and then renames it, so a result that exists is complete.
//
// The machinery is not the sweep's alone: any gputwin command whose work splits into independent tasks (the
// capacity search of `perf serve --search --slurm-array`, export/serve_search_array.hpp) writes its job with
// slurm_array_job_files and reads its tasks' results back with read_slurm_array_manifest and
// for_each_slurm_array_result.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/export/export_files.hpp"
#include "gputwin/sim/sweep.hpp"

namespace gputwin {

// A job array of any gputwin command: task I runs `binary arguments... --task I --out
// DIR/results/task-I.json` (its output in DIR/logs/task-I.log), and the manifest the merge reads is written
// as manifest.json.
struct SlurmArrayJob {
  std::string title;     // the script's first comment, after "gputwin "
  std::string job_name;  // #SBATCH --job-name
  std::string script = "sweep.sbatch";
  std::size_t tasks = 0;
  std::string binary;   // absolute
  std::string dir;      // absolute; shared by the nodes
  std::string workdir;  // when set, the tasks run there (#SBATCH --chdir): relative paths in `arguments`
  std::vector<std::string> sbatch_options;
  std::vector<std::string> arguments;
  nlohmann::ordered_json manifest;  // at least schema, name and tasks
};
[[nodiscard]] ExportFiles slurm_array_job_files(const SlurmArrayJob& job);

// A manifest's name and task count, its schema checked; `more` reads the other fields its writer put there.
struct SlurmArrayManifest {
  std::string name;
  std::size_t tasks = 0;
};
[[nodiscard]] Result<SlurmArrayManifest> read_slurm_array_manifest(
    const std::string& dir, std::string_view schema, const std::function<void(const JsonField&)>& more = {});

// Hands each task's result file to `take` (which reads it and returns why it is unusable, or nothing); a
// task without a result, or whose result `take` refuses, is a line of `missing`, with the end of its log.
void for_each_slurm_array_result(
    const std::string& dir, std::size_t tasks,
    const std::function<std::optional<std::string>(int task, const std::string& path)>& take,
    std::vector<std::string>& missing);

inline constexpr const char* kSweepManifestSchema = "gputwin.sweep-manifest/1";

struct SlurmArraySweep {
  std::string name;        // the sweep's name
  std::string sweep_file;  // absolute: the tasks run from other directories
  std::size_t tasks = 0;
  std::string binary;                       // the gputwin each task runs, absolute
  std::string dir;                          // absolute; shared by the nodes
  std::vector<std::string> sbatch_options;  // extra #SBATCH lines, such as --partition=gpu
};

// manifest.json and sweep.sbatch; the results/ and logs/ folders are the caller's to create.
[[nodiscard]] ExportFiles slurm_array_files(const SlurmArraySweep& sweep);
[[nodiscard]] std::string slurm_array_submit_command(const std::string& dir, bool wait,
                                                     const std::string& script = "sweep.sbatch");
[[nodiscard]] std::string slurm_array_task_result(const std::string& dir, int task);
[[nodiscard]] std::string slurm_array_task_log(const std::string& dir, int task);

struct MergedSweep {
  std::string name;
  std::size_t tasks = 0;
  std::vector<SweepRow> rows;        // in task order, the tasks that left a result
  std::vector<std::string> missing;  // one line per task without a usable result, saying why
};

// Reads the manifest and every task's result. A missing or unreadable manifest is an error; a task without a
// result (or with an unreadable one) is a line of `missing`, with the last line of its log.
[[nodiscard]] Result<MergedSweep> merge_slurm_array(const std::string& dir);

}  // namespace gputwin
