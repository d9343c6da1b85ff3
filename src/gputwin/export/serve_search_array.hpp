// The capacity search of `perf serve --search` as a Slurm job array, on the sweep's job-array machinery
// (export/slurm_array.hpp): one array task per candidate deployment, each running the same `perf serve
// --search` command with `--task I --out FILE`, and the merge that ranks the tasks' rows into the answer the
// local search prints.
//
//   ServeSearchArray array{"llama3.1-70b", "trace ...", "ttft-p90=500ms", 24, binary, "/shared/run", cwd, {},
//                          {"perf", "serve", "--search", ...}};
//   ExportFiles files = serve_search_array_files(array);   // manifest.json, serve-search.sbatch
//   Result<MergedServeSearch> merged = merge_serve_search_array("/shared/run");
//   CapacitySearch search = rank_capacity_rows(merged.value().rows, merged.value().simulations);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/export/export_files.hpp"
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

}  // namespace gputwin
