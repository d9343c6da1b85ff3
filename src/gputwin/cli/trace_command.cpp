#include <fstream>
#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
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
      ->check(CLI::PositiveNumber);
  generate->add_option("--jobs", options->synthetic.jobs, "number of jobs")
      ->required()
      ->check(CLI::PositiveNumber);
  generate->add_option("--days", options->synthetic.days, "days over which jobs arrive")
      ->required()
      ->check(CLI::PositiveNumber);
  generate
      ->add_option("--load", options->synthetic.load,
                   "offered load, GPU-seconds asked / available (default 0.8)")
      ->check(CLI::PositiveNumber);
  generate->add_option("--seed", options->synthetic.seed, "random seed (default 1)");
  generate->add_option("--groups", options->synthetic.groups, "virtual clusters (default 10)")
      ->check(CLI::PositiveNumber);
  generate->add_option("--out", options->out, "output file (gputwin job CSV, docs/jobs-format.md)")
      ->required();
  generate->callback([options, &exit_code] {
    const auto shape = load_synthetic_shape(bundled_data_dir() + "/reference/synthetic-jobs.yaml");
    if (!shape.ok()) {
      std::cerr << shape.error_text();
      exit_code = kInputError;
      return;
    }
    std::ofstream out(options->out);
    write_job_csv(generate_jobs(shape.value(), options->synthetic), out);
    if (!out) {
      std::cerr << options->out << ": cannot write\n";
      exit_code = kInputError;
    }
  });
}

}  // namespace gputwin::cli
