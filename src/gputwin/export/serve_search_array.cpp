#include "gputwin/export/serve_search_array.hpp"

#include <fmt/format.h>

#include "gputwin/core/input_file.hpp"
#include "gputwin/export/slurm_array.hpp"
#include "gputwin/report/serve_report.hpp"

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

}  // namespace gputwin
