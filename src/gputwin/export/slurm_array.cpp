#include "gputwin/export/slurm_array.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/report/sweep_report.hpp"

namespace gputwin {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A plain word (letters, digits, - and _) as it is, anything else quoted.
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
  });
  return plain ? text : quoted(text);
}

// The last non-empty line of a task's log, to say why it left no result.
std::string log_ending(const std::string& path) {
  std::ifstream log(path);
  if (!log) return "no log (the task never ran)";
  std::string line, last;
  while (std::getline(log, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last.empty() ? "its log is empty" : "its log ends: " + last;
}

std::string sbatch_script(const SlurmArrayJob& job) {
  const fs::path dir = job.dir;
  std::string script = "#!/bin/bash\n# gputwin " + job.title + "\n";
  script += fmt::format("#SBATCH --job-name={}\n#SBATCH --array=0-{}\n#SBATCH --ntasks=1\n", job.job_name,
                        job.tasks - 1);
  script += "#SBATCH --output=" + (dir / "logs" / "task-%a.log").string() + "\n";
  if (!job.workdir.empty()) script += "#SBATCH --chdir=" + job.workdir + "\n";
  for (const std::string& option : job.sbatch_options) script += "#SBATCH " + option + "\n";
  script += "exec " + quoted(job.binary);
  for (const std::string& argument : job.arguments) script += " " + shell_word(argument);
  script += " --task \"$SLURM_ARRAY_TASK_ID\" --out " + quoted((dir / "results").string()) +
            "/task-\"$SLURM_ARRAY_TASK_ID\".json\n";
  return script;
}

}  // namespace

ExportFiles slurm_array_job_files(const SlurmArrayJob& job) {
  return {{{"manifest.json", job.manifest.dump(2) + "\n"}, {job.script, sbatch_script(job)}}};
}

ExportFiles slurm_array_files(const SlurmArraySweep& sweep) {
  SlurmArrayJob job;
  job.title = "sweep " + sweep.name + ": one array task per grid point";
  job.job_name = "gputwin-sweep";
  job.tasks = sweep.tasks;
  job.binary = sweep.binary;
  job.dir = sweep.dir;
  job.sbatch_options = sweep.sbatch_options;
  job.arguments = {"sweep", "task", sweep.sweep_file};
  job.manifest = nlohmann::ordered_json{{"schema", kSweepManifestSchema},
                                        {"sweep", sweep.sweep_file},
                                        {"name", sweep.name},
                                        {"tasks", sweep.tasks}};
  return slurm_array_job_files(job);
}

std::string slurm_array_submit_command(const std::string& dir, bool wait, const std::string& script) {
  return std::string("sbatch --parsable") + (wait ? " --wait " : " ") +
         quoted((fs::path(dir) / script).string());
}

std::string slurm_array_task_result(const std::string& dir, int task) {
  return (fs::path(dir) / "results" / fmt::format("task-{}.json", task)).string();
}

std::string slurm_array_task_log(const std::string& dir, int task) {
  return (fs::path(dir) / "logs" / fmt::format("task-{}.log", task)).string();
}

Result<SlurmArrayManifest> read_slurm_array_manifest(const std::string& dir, std::string_view schema,
                                                     const std::function<void(const JsonField&)>& more) {
  const std::string manifest_path = (fs::path(dir) / "manifest.json").string();
  SlurmArrayManifest manifest;
  try {
    const std::string text = read_input_file(manifest_path);
    const nlohmann::json document = parse_json(text, manifest_path);
    const JsonField root = JsonField::root(document, manifest_path, text);
    if (root.child("schema").string() != schema) root.child("schema").fail("expected " + std::string(schema));
    manifest.tasks = static_cast<std::size_t>(root.child("tasks").integer());
    manifest.name = root.child("name").string();
    if (more) more(root);
  } catch (const InputFailure& failure) {
    return failure.error();
  }
  return manifest;
}

void for_each_slurm_array_result(
    const std::string& dir, std::size_t tasks,
    const std::function<std::optional<std::string>(int task, const std::string& path)>& take,
    std::vector<std::string>& missing) {
  for (std::size_t task = 0; task < tasks; ++task) {
    const int index = static_cast<int>(task);
    const std::string path = slurm_array_task_result(dir, index);
    if (!fs::exists(path)) {
      const std::string log = slurm_array_task_log(dir, index);
      missing.push_back(fmt::format("task {}: no result; {} ({})", task, log_ending(log), log));
      continue;
    }
    if (const auto problem = take(index, path)) missing.push_back(fmt::format("task {}: {}", task, *problem));
  }
}

Result<MergedSweep> merge_slurm_array(const std::string& dir) {
  const auto manifest = read_slurm_array_manifest(dir, kSweepManifestSchema);
  if (!manifest.ok()) return manifest.errors();
  MergedSweep merged;
  merged.name = manifest.value().name;
  merged.tasks = manifest.value().tasks;
  const auto take = [&](int task, const std::string& path) -> std::optional<std::string> {
    auto row =
        guarded_parse<SweepRow>(path, [&] { return sweep_row_from_json(read_input_file(path), path); });
    if (!row.ok()) return "unreadable result: " + row.error_text();
    if (row.value().task != task) return fmt::format("{} holds task {}", path, row.value().task);
    merged.rows.push_back(row.value());
    return std::nullopt;
  };
  for_each_slurm_array_result(dir, merged.tasks, take, merged.missing);
  return merged;
}

}  // namespace gputwin
