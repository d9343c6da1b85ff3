#include "gputwin/export/slurm_array.hpp"

#include <fmt/format.h>

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

// The last non-empty line of a task's log, to say why it left no result.
std::string log_ending(const std::string& path) {
  std::ifstream log(path);
  if (!log) return "no log (the task never ran)";
  std::string line, last;
  while (std::getline(log, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last.empty() ? "its log is empty" : "its log ends: " + last;
}

std::string sbatch_script(const SlurmArraySweep& sweep) {
  const fs::path dir = sweep.dir;
  std::string script = "#!/bin/bash\n# gputwin sweep " + sweep.name + ": one array task per grid point\n";
  script += fmt::format("#SBATCH --job-name=gputwin-sweep\n#SBATCH --array=0-{}\n#SBATCH --ntasks=1\n",
                        sweep.tasks - 1);
  script += "#SBATCH --output=" + (dir / "logs" / "task-%a.log").string() + "\n";
  for (const std::string& option : sweep.sbatch_options) script += "#SBATCH " + option + "\n";
  script += "exec " + quoted(sweep.binary) + " sweep task " + quoted(sweep.sweep_file) +
            " --task \"$SLURM_ARRAY_TASK_ID\" --out " + quoted((dir / "results").string()) +
            "/task-\"$SLURM_ARRAY_TASK_ID\".json\n";
  return script;
}

}  // namespace

ExportFiles slurm_array_files(const SlurmArraySweep& sweep) {
  const nlohmann::ordered_json manifest{{"schema", kSweepManifestSchema},
                                        {"sweep", sweep.sweep_file},
                                        {"name", sweep.name},
                                        {"tasks", sweep.tasks}};
  return {{{"manifest.json", manifest.dump(2) + "\n"}, {"sweep.sbatch", sbatch_script(sweep)}}};
}

std::string slurm_array_submit_command(const std::string& dir, bool wait) {
  return std::string("sbatch --parsable") + (wait ? " --wait " : " ") +
         quoted((fs::path(dir) / "sweep.sbatch").string());
}

std::string slurm_array_task_result(const std::string& dir, int task) {
  return (fs::path(dir) / "results" / fmt::format("task-{}.json", task)).string();
}

std::string slurm_array_task_log(const std::string& dir, int task) {
  return (fs::path(dir) / "logs" / fmt::format("task-{}.log", task)).string();
}

Result<MergedSweep> merge_slurm_array(const std::string& dir) {
  const std::string manifest_path = (fs::path(dir) / "manifest.json").string();
  MergedSweep merged;
  try {
    const std::string text = read_input_file(manifest_path);
    const nlohmann::json document = parse_json(text, manifest_path);
    const JsonField root = JsonField::root(document, manifest_path, text);
    if (root.child("schema").string() != kSweepManifestSchema)
      root.child("schema").fail(std::string("expected ") + kSweepManifestSchema);
    merged.tasks = static_cast<std::size_t>(root.child("tasks").integer());
    merged.name = root.child("name").string();
  } catch (const InputFailure& failure) {
    return failure.error();
  }
  for (std::size_t task = 0; task < merged.tasks; ++task) {
    const int index = static_cast<int>(task);
    const std::string path = slurm_array_task_result(dir, index);
    const std::string log = slurm_array_task_log(dir, index);
    if (!fs::exists(path)) {
      merged.missing.push_back(fmt::format("task {}: no result; {} ({})", task, log_ending(log), log));
      continue;
    }
    auto row =
        guarded_parse<SweepRow>(path, [&] { return sweep_row_from_json(read_input_file(path), path); });
    if (!row.ok() || row.value().task != index) {
      merged.missing.push_back(row.ok()
                                   ? fmt::format("task {}: {} holds task {}", task, path, row.value().task)
                                   : fmt::format("task {}: unreadable result: {}", task, row.error_text()));
      continue;
    }
    merged.rows.push_back(row.value());
  }
  return merged;
}

}  // namespace gputwin
