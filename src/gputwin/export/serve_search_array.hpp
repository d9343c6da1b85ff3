// The capacity search of `perf serve --search` as a Slurm job array, on the sweep's job-array machinery
// (export/slurm_array.hpp): one array task per candidate deployment, each running the same `perf serve
// --search` command with `--task I --out FILE`, and the merge that ranks the tasks' rows into the answer the
// local search prints.
//
//   ServeSearchArray array{"llama3.1-70b", "trace ...", "ttft-p90=500ms", 24, binary, "/shared/run", cwd, {},
//                          {"perf", "serve", "--search", ...}};
//   ExportFiles files = serve_search_array_files(array);   // manifest.json, serve-search.sbatch
//   Result<MergedServeSearch> merged = merge_serve_search_array("/shared/run");
//   CapacitySearch search = merged_search(merged.value());
//
// An array task runs search_task (one candidate) and writes its row with write_capacity_task.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/export/export_files.hpp"
#include "gputwin/report/serve_report.hpp"
#include "gputwin/serve/capacity_search.hpp"

namespace gputwin {

inline constexpr const char* kServeSearchManifestSchema = "gputwin.serve-search-manifest/1";
inline constexpr const char* kServeSearchScript = "serve-search.sbatch";

struct ServeSearchArray {
  std::string model;
  std::string traffic;  // in words, for the merged table's header
  std::string slo;      // as given to --slo
  std::size_t tasks = 0;
  std::string binary;   // absolute
  std::string dir;      // absolute, shared by the nodes
  std::string workdir;  // where the tasks run, so relative paths in the arguments hold
  std::vector<std::string> sbatch_options;
  std::vector<std::string> arguments;  // the gputwin arguments of the search, without the array's own
};

[[nodiscard]] ExportFiles serve_search_array_files(const ServeSearchArray& array);

// A search's command line (without the program) less the options that steer the array itself (the array's
// folder, #SBATCH lines, threads, submission, task and output, JSON): what every task repeats.
[[nodiscard]] std::vector<std::string> array_task_arguments(const std::vector<std::string>& command_line);

// One candidate of the search, as an array task runs it; an error when `task` is not a candidate.
[[nodiscard]] Result<CapacityTask> search_task(const CapacityInputs& inputs,
                                               const std::vector<DeploymentCandidate>& candidates, int task,
                                               const std::vector<ServeRequest>& requests,
                                               const LatencyTargets& targets, int max_gpus);

// The task's result written whole, then renamed into place: a task killed mid-write leaves no file the merge
// could take for complete. False when it cannot be written.
[[nodiscard]] bool write_capacity_task(const std::string& path, const CapacityTask& task);

struct MergedServeSearch {
  std::string model;
  std::string traffic;
  std::string slo;
  std::size_t tasks = 0;
  std::vector<CapacityRow> rows;  // in task (candidate) order, the tasks that left a result
  int simulations = 0;
  std::vector<std::string> missing;  // one line per task without a usable result, saying why
};

[[nodiscard]] Result<MergedServeSearch> merge_serve_search_array(const std::string& dir);

// The merged rows ranked into the answer the local search gives.
[[nodiscard]] CapacitySearch merged_search(const MergedServeSearch& merged);

}  // namespace gputwin
