#include "gputwin/export/serve_search_array.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gputwin/core/input_file.hpp"
#include "gputwin/export/slurm_array.hpp"
#include "gputwin/report/serve_documents.hpp"

namespace gputwin {

ExportFiles serve_search_array_files(const ServeSearchArray& array) {
  SlurmArrayJob job;
  job.title = "perf serve --search for " + array.model + ": one array task per candidate deployment";
  job.job_name = "gputwin-serve-search";
  job.script = kServeSearchScript;
  job.tasks = array.tasks;
  job.binary = array.binary;
  job.dir = array.dir;
  job.workdir = array.workdir;
  job.sbatch_options = array.sbatch_options;
  job.arguments = array.arguments;
  job.manifest = nlohmann::ordered_json{{"schema", kServeSearchManifestSchema},
                                        {"name", "perf serve --search " + array.model},
                                        {"tasks", array.tasks},
                                        {"model", array.model},
                                        {"traffic", array.traffic},
                                        {"slo", array.slo},
                                        {"arguments", array.arguments}};
  return slurm_array_job_files(job);
}

std::vector<std::string> array_task_arguments(const std::vector<std::string>& command_line) {
  const std::vector<std::string> with_value{"--slurm-array", "--sbatch-option", "--threads", "--task",
                                            "--out"};
  const std::vector<std::string> flags{"--no-submit", "--wait", "--json"};
  const auto named = [](const std::vector<std::string>& names, const std::string& w) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return w == n || w.starts_with(n + "="); });
  };
  std::vector<std::string> kept;
  for (std::size_t k = 0; k < command_line.size(); ++k) {
    const std::string& word = command_line[k];
    if (named(flags, word)) continue;
    if (named(with_value, word)) {
      if (word.find('=') == std::string::npos) ++k;  // its value is the next word
      continue;
    }
    kept.push_back(word);
  }
  return kept;
}

Result<CapacityTask> search_task(const CapacityInputs& inputs,
                                 const std::vector<DeploymentCandidate>& candidates, int task,
                                 const std::vector<ServeRequest>& requests, const LatencyTargets& targets,
                                 int max_gpus) {
  if (task < 0 || task >= static_cast<int>(candidates.size())) {
    InputError error;
    error.field = "task";
    error.message = fmt::format("{} is not a candidate of this search (0 to {})", task,
                                static_cast<int>(candidates.size()) - 1);
    return error;
  }
  CapacityTask result;
  result.task = task;
  result.row = search_candidate(inputs, candidates[static_cast<std::size_t>(task)], requests, targets,
                                max_gpus, result.simulations);
  return result;
}

bool write_capacity_task(const std::string& path, const CapacityTask& task) {
  const std::string partial = path + ".partial";
  std::ofstream out(partial);
  out << capacity_task_json(task).dump(2) << "\n";
  out.close();
  std::error_code error;
  if (out) std::filesystem::rename(partial, path, error);
  return out && !error;
}

Result<MergedServeSearch> merge_serve_search_array(const std::string& dir) {
  MergedServeSearch merged;
  const auto manifest =
      read_slurm_array_manifest(dir, kServeSearchManifestSchema, [&](const JsonField& root) {
        merged.model = root.child("model").string();
        merged.traffic = root.child("traffic").string();
        merged.slo = root.child("slo").string();
      });
  if (!manifest.ok()) return manifest.errors();
  merged.tasks = manifest.value().tasks;
  const auto take = [&](int task, const std::string& path) -> std::optional<std::string> {
    auto result = guarded_parse<CapacityTask>(
        path, [&] { return read_capacity_task_json(read_input_file(path), path); });
    if (!result.ok()) return "unreadable result: " + result.error_text();
    if (result.value().task != task) return fmt::format("{} holds task {}", path, result.value().task);
    merged.rows.push_back(result.value().row);
    merged.simulations += result.value().simulations;
    return std::nullopt;
  };
  for_each_slurm_array_result(dir, merged.tasks, take, merged.missing);
  return merged;
}

CapacitySearch merged_search(const MergedServeSearch& merged) {
  return rank_capacity_rows(merged.rows, merged.simulations);
}

}  // namespace gputwin
