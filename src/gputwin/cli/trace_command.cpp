#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/trace/job_traces.hpp"
#include "gputwin/trace/sacct.hpp"
#include "gputwin/trace/synthetic.hpp"

namespace gputwin::cli {
namespace {

// `trace import sacct FILE`: the jobs as gputwin job CSV, on stdout or in --out; what was skipped on stderr.
void add_import_command(CLI::App& trace, int& exit_code) {
  struct Options {
    std::string file;
    std::string out;
  };
  auto options = std::make_shared<Options>();
  auto* import =
      trace.add_subcommand("import", "convert a scheduler's accounting history to gputwin job CSV");
  import->require_subcommand(1);
  auto* sacct = import->add_subcommand(
      "sacct", "sacct --parsable2 or --json output (docs/sacct-import.md) to job CSV for `simulate replay`");
  sacct->add_option("file", options->file, "sacct output")->required();
  sacct->add_option("--out", options->out, "output file (default: standard output)");
  sacct->callback([options, &exit_code] {
    const auto jobs = read_sacct(options->file);
    if (!jobs.ok()) {
      std::cerr << jobs.error_text();
      exit_code = kInputError;
      return;
    }
    if (options->out.empty()) {
      write_job_csv(jobs.value().rows, std::cout);
    } else {
      std::ofstream out(options->out);
      write_job_csv(jobs.value().rows, out);
      if (!out) {
        std::cerr << options->out << ": cannot write\n";
        exit_code = kInputError;
        return;
      }
    }
    std::cerr << options->file << ": " << jobs.value().rows.size() << " jobs imported";
    for (const auto& [reason, count] : jobs.value().skipped)
      std::cerr << "; skipped " << count << " " << reason;
    std::cerr << "\n";
  });
}

// Jobs beyond this would not fit in memory as a trace; the user caps them with --jobs.
constexpr double kMostGeneratedJobs = 20'000'000;
// A duration factor beyond 2 (or below 1/2) changes the shape's run times more than sampling noise does.
constexpr double kFarFromTheShape = 2.0;

int run_generate(const SyntheticOptions& synthetic, const std::string& path) {
  const auto shape = load_synthetic_shape(bundled_data_dir() + "/reference/synthetic-jobs.yaml");
  if (!shape.ok()) {
    std::cerr << shape.error_text();
    return kInputError;
  }
  const double needed = jobs_for_load(shape.value(), synthetic);
  if (synthetic.jobs == 0 && needed > kMostGeneratedJobs) {
    std::cerr << fmt::format(
        "trace generate: load {} on {} GPUs over {} days needs about {:.0f} jobs at the shape's durations "
        "(more than {:.0f}); give --jobs N to fix the count, and the durations are stretched to reach the "
        "load\n",
        synthetic.load, synthetic.cluster_gpus, synthetic.days, needed, kMostGeneratedJobs);
    return kUsageError;
  }
  const SyntheticTrace trace = generate_trace(shape.value(), synthetic);
  std::ofstream out(path);
  write_job_csv(trace.jobs, out);
  if (!out) {
    std::cerr << path << ": cannot write\n";
    return kInputError;
  }
  std::cerr << fmt::format("{}: {} jobs over {} days on {} GPUs, {} arrivals per hour; offered load {}", path,
                           trace.jobs.size(), synthetic.days, synthetic.cluster_gpus,
                           format_number(trace.arrivals_per_hour, 2), format_number(trace.offered_load, 4));
  std::cerr << fmt::format("; durations x{} of the shape's", format_number(trace.duration_scale, 3));
  if (synthetic.jobs > 0) {
    std::cerr << fmt::format(" (--jobs fixes the arrival rate; the load alone needs {:.0f} jobs)", needed);
  }
  std::cerr << fmt::format("; {}% of the asked GPU-seconds fall after day {} even with no queueing",
                           format_number(100 * trace.work_after_horizon_share, 1), synthetic.days);
  if (trace.left_out_share > 0) {
    std::cerr << fmt::format("; sizes above {} GPUs ({}% of the shape's jobs) left out",
                             synthetic.cluster_gpus, format_number(100 * trace.left_out_share, 3));
  }
  std::cerr << "\n";
  // A factor far from 1 means the durations are no longer the shape's: say so rather than let it pass.
  if (trace.duration_scale > kFarFromTheShape || trace.duration_scale < 1 / kFarFromTheShape) {
    std::cerr << fmt::format(
        "trace generate: warning: durations x{} are not the shape's (its median run time becomes {} h); "
        "to keep them, omit --jobs and let the arrival rate reach the load\n",
        format_number(trace.duration_scale, 3),
        format_number(std::exp(shape.value().duration_log_mean) * trace.duration_scale / 3600, 2));
  }
  return 0;
}

}  // namespace

void add_trace_command(CLI::App& app, int& exit_code) {
  auto* trace = app.add_subcommand("trace", "make and convert job traces");
  trace->require_subcommand(1);
  add_import_command(*trace, exit_code);
  struct Options {
    SyntheticOptions synthetic;
    std::string out;
  };
  auto options = std::make_shared<Options>();
  auto* generate = trace->add_subcommand("generate", "a synthetic job trace shaped like the Philly trace");
  generate->add_option("--gpus", options->synthetic.cluster_gpus, "GPUs of the cluster it is for")
      ->required()
      ->check(positive_number());
  generate
      ->add_option("--jobs", options->synthetic.jobs,
                   "number of jobs (default: as many as --load needs at the shape's durations; given, the "
                   "durations are scaled to reach the load)")
      ->check(positive_number());
  generate->add_option("--days", options->synthetic.days, "days over which jobs arrive")
      ->required()
      ->check(positive_number());
  generate
      ->add_option("--load", options->synthetic.load,
                   "offered load, GPU-seconds asked / available (default 0.8)")
      ->check(positive_number());
  generate->add_option("--seed", options->synthetic.seed, "random seed (default 1)");
  generate->add_option("--groups", options->synthetic.groups, "virtual clusters (default 10)")
      ->check(positive_number());
  generate->add_option("--out", options->out, "output file (gputwin job CSV, docs/jobs-format.md)")
      ->required();
  generate->callback([options, &exit_code] { exit_code = run_generate(options->synthetic, options->out); });
}

}  // namespace gputwin::cli
