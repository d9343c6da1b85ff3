// `gputwin sweep`: a grid of replays on local threads, or as a Slurm job array whose task results
// `gputwin sweep merge` gathers into the same table.
//
//   gputwin sweep SWEEP.yaml [--threads N] [--json | --csv] [--out FILE]
//   gputwin sweep SWEEP.yaml --slurm --dir DIR [--sbatch-option=--partition=gpu ...] [--wait] [--no-submit]
//   gputwin sweep task SWEEP.yaml --task I --out FILE      (what each array task runs)
//   gputwin sweep merge DIR [--allow-partial] [--json | --csv] [--out FILE]
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "gputwin/cli/commands.hpp"
#include "gputwin/export/export_files.hpp"
#include "gputwin/export/slurm_array.hpp"
#include "gputwin/plan/sweep_inputs.hpp"
#include "gputwin/report/sweep_report.hpp"
#include "gputwin/sim/sweep.hpp"

namespace gputwin::cli {
namespace {

namespace fs = std::filesystem;

struct SweepOptions {
  CatalogOptions catalog;
  std::string file;
  int threads = 0;  // 0 = the machine's hardware threads
  bool json = false;
  bool csv = false;
  std::string out;
  bool slurm = false;
  std::string dir;
  std::vector<std::string> sbatch_options;
  bool wait = false;
  bool no_submit = false;
  int task = -1;
  bool allow_partial = false;
};

// The sweep's inputs (plan/sweep_inputs.hpp), or empty after printing why they do not load.
std::optional<SweepInputs> prepare(const SweepOptions& options,
                                   std::optional<int> only_design = std::nullopt) {
  auto inputs =
      load_sweep_inputs(options.file, {options.catalog.extra_dirs, !options.catalog.no_bundled}, only_design);
  if (!inputs.ok()) {
    std::cerr << inputs.error_text();
    return std::nullopt;
  }
  return std::move(inputs).value();
}

bool write_text(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return true;
  }
  std::ofstream out(path);
  out << text;
  if (!out) std::cerr << path << ": cannot write\n";
  return static_cast<bool>(out);
}

// The table as asked: JSON (exact), CSV (rounded for reading) or, by default, a text table.
std::string table(const std::string& name, const std::vector<SweepRow>& rows, const SweepOptions& options) {
  if (options.json) return sweep_json(name, rows).dump(2) + "\n";
  return options.csv ? sweep_csv(rows) : sweep_text(name, rows);
}

// A design on which not one job can run measured nothing: said on stderr, and the sweep exits 1.
bool refused(const std::vector<SweepRow>& rows) {
  const auto refusals = sweep_refusals(rows);
  for (const std::string& refusal : refusals) std::cerr << "sweep: " << refusal << "\n";
  return !refusals.empty();
}

int run_local(const SweepOptions& options) {
  const auto prepared = prepare(options);
  if (!prepared) return kInputError;
  const int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  const auto rows = run_sweep(prepared->spec, prepared->jobs, prepared->pools, threads,
                              prepared->reader_skipped, prepared->topologies);
  if (!write_text(options.out, table(prepared->spec.name, rows, options))) return kInputError;
  return refused(rows) ? kInputError : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Slurm job arrays (export/slurm_array.hpp)

}  // namespace

bool make_array_dirs(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir / "results", error);
  std::filesystem::create_directories(dir / "logs", error);
  if (error) std::cerr << dir.string() << ": cannot create: " << error.message() << "\n";
  return !error;
}

int write_and_submit_array(const ExportFiles& files, const std::filesystem::path& dir,
                           const ArraySubmission& submission) {
  if (const auto problem = write_export_files(files, dir.string())) {
    std::cerr << *problem << "\n";
    return kInputError;
  }
  std::cout << "wrote " << (dir / submission.script).string() << " (" << submission.tasks
            << " array tasks)\n";
  if (submission.no_submit) return 0;
  const std::string command = slurm_array_submit_command(dir.string(), submission.wait, submission.script);
  const int status = std::system(command.c_str());
  if (status != 0) {
    std::cerr << submission.who << ": `" << command << "` failed (exit status " << status
              << "); see the logs in " << (dir / "logs").string() << "\n";
    return kInputError;
  }
  std::cout << "merge the results with: " << submission.merge << "\n";
  return 0;
}

namespace {

int run_slurm(const SweepOptions& options) {
  if (options.dir.empty()) {
    std::cerr << "sweep: --slurm needs --dir DIR, a directory the cluster's nodes can read and write\n";
    return kUsageError;
  }
  auto spec = load_sweep(options.file);
  if (!spec.ok()) {
    std::cerr << spec.error_text();
    return kInputError;
  }
  const auto tasks = sweep_tasks(spec.value()).size();
  const fs::path dir = fs::absolute(options.dir);
  if (!make_array_dirs(dir)) return kInputError;
  const SlurmArraySweep array{spec.value().name,
                              fs::absolute(options.file).string(),
                              tasks,
                              fs::read_symlink("/proc/self/exe").string(),
                              dir.string(),
                              options.sbatch_options};
  return write_and_submit_array(slurm_array_files(array), dir,
                                {"sweep.sbatch", tasks, options.no_submit, options.wait, "sweep",
                                 "gputwin sweep merge " + dir.string()});
}

int run_task(const SweepOptions& options) {
  auto spec = load_sweep(options.file);
  if (!spec.ok()) {
    std::cerr << spec.error_text();
    return kInputError;
  }
  const auto tasks = sweep_tasks(spec.value());
  if (options.task < 0 || options.task >= static_cast<int>(tasks.size())) {
    std::cerr << "sweep task: --task " << options.task << " is not a task of " << options.file << " (0 to "
              << tasks.size() - 1 << ")\n";
    return kUsageError;
  }
  const SweepTask& task = tasks[options.task];
  const auto prepared = prepare(options, task.design);
  if (!prepared) return kInputError;
  const SweepRow row = run_sweep_task(prepared->spec, task, prepared->jobs, prepared->pools[task.design],
                                      prepared->reader_skipped, &prepared->topologies[task.design]);
  // Written whole, then renamed: a task killed mid-write leaves no result that merge could take for complete.
  const std::string partial = options.out + ".partial";
  if (!write_text(partial, sweep_task_json(fs::absolute(options.file).string(), row).dump(2) + "\n"))
    return kInputError;
  std::error_code error;
  fs::rename(partial, options.out, error);
  if (error) {
    std::cerr << options.out << ": cannot write: " << error.message() << "\n";
    return kInputError;
  }
  return 0;
}

int run_merge(const SweepOptions& options) {
  // The directory as the user named it, so messages point where they looked.
  const auto merged = merge_slurm_array(options.dir);
  if (!merged.ok()) {
    std::cerr << merged.error_text();
    return kInputError;
  }
  const MergedSweep& sweep = merged.value();
  for (const std::string& line : sweep.missing) std::cerr << "sweep merge: " << line << "\n";
  if (!sweep.missing.empty() && !options.allow_partial) {
    std::cerr << "sweep merge: " << sweep.missing.size() << " of " << sweep.tasks
              << " tasks have no result; merge what there is with --allow-partial\n";
    return kInputError;
  }
  if (!sweep.missing.empty()) {
    std::cerr << "sweep merge: merged " << sweep.rows.size() << " of " << sweep.tasks << " tasks\n";
  }
  if (!write_text(options.out, table(sweep.name, sweep.rows, options))) return kInputError;
  return refused(sweep.rows) ? kInputError : 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SweepOptions>();
  auto* sweep = app.add_subcommand("sweep",
                                   "a grid of replays (designs x policies x trace variants x seeds), "
                                   "on local threads or as a Slurm job array (docs/sweep.md)");
  sweep->require_subcommand(0, 1);
  sweep->add_option("file", o->file, "sweep file (YAML)")->check(CLI::ExistingFile);
  sweep->add_option("--threads", o->threads, "local threads (default: all hardware threads)")
      ->check(positive_number());
  auto* sweep_json_flag = sweep->add_flag(
      "--json", o->json, "print JSON (schema gputwin.sweep/1, exact figures) instead of the table");
  sweep->add_flag("--csv", o->csv, "print CSV (figures rounded for reading) instead of the table")
      ->excludes(sweep_json_flag);
  sweep->add_option("--out", o->out, "write the table to this file instead of standard output");
  sweep->add_flag("--slurm", o->slurm, "run as a Slurm job array (sbatch) instead of local threads");
  sweep->add_option("--dir", o->dir, "with --slurm: directory for the script, task results and logs");
  sweep->add_option("--sbatch-option", o->sbatch_options,
                    "with --slurm: an #SBATCH line, e.g. --partition=gpu (repeatable)");
  sweep->add_flag("--wait", o->wait, "with --slurm: wait until the array job ends (sbatch --wait)");
  sweep->add_flag("--no-submit", o->no_submit, "with --slurm: write the script without submitting it");
  add_catalog_options(*sweep, o->catalog);
  sweep->callback([o, sweep, &exit_code] {
    if (!sweep->get_subcommands().empty()) return;
    if (o->file.empty()) {
      std::cerr << "sweep: give a sweep file, or `sweep merge DIR`\n";
      exit_code = kUsageError;
      return;
    }
    exit_code = o->slurm ? run_slurm(*o) : run_local(*o);
  });

  auto* task =
      sweep->add_subcommand("task", "run one task of a sweep and write its row (what an array task runs)");
  task->add_option("file", o->file, "sweep file (YAML)")->required()->check(CLI::ExistingFile);
  task->add_option("--task", o->task, "task index, 0-based")->required();
  task->add_option("--out", o->out, "result file (JSON)")->required();
  add_catalog_options(*task, o->catalog);
  task->callback([o, &exit_code] { exit_code = run_task(*o); });

  auto* merge = sweep->add_subcommand("merge", "gather the task results of a --slurm sweep into one table");
  merge->add_option("dir", o->dir, "the --dir of the sweep")->required()->check(CLI::ExistingDirectory);
  merge->add_flag("--allow-partial", o->allow_partial, "merge even when some tasks left no result");
  auto* merge_json_flag = merge->add_flag(
      "--json", o->json, "print JSON (schema gputwin.sweep/1, exact figures) instead of the table");
  merge->add_flag("--csv", o->csv, "print CSV (figures rounded for reading) instead of the table")
      ->excludes(merge_json_flag);
  merge->add_option("--out", o->out, "write the table to this file instead of standard output");
  merge->callback([o, &exit_code] { exit_code = run_merge(*o); });
}

}  // namespace gputwin::cli
