#include <fstream>
#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/trace/job_traces.hpp"
#include "gputwin/trace/synthetic.hpp"

namespace gputwin::cli {

void add_trace_command(CLI::App& app, int& exit_code) {
  auto* trace = app.add_subcommand("trace", "make and convert job traces");
  trace->require_subcommand(1);
  struct Options {
    SyntheticOptions synthetic;
    std::string out;
  };
  auto options = std::make_shared<Options>();
  auto* generate = trace->add_subcommand("generate", "a synthetic job trace shaped like the Philly trace");
  generate->add_option("--gpus", options->synthetic.cluster_gpus, "GPUs of the cluster it is for")
      ->required()
      ->check(CLI::PositiveNumber);
  generate->add_option("--jobs", options->synthetic.jobs, "number of jobs")->required()->check(CLI::PositiveNumber);
  generate->add_option("--days", options->synthetic.days, "days over which jobs arrive")
      ->required()
      ->check(CLI::PositiveNumber);
  generate->add_option("--load", options->synthetic.load, "offered load, GPU-seconds asked / available (default 0.8)")
      ->check(CLI::PositiveNumber);
  generate->add_option("--seed", options->synthetic.seed, "random seed (default 1)");
  generate->add_option("--groups", options->synthetic.groups, "virtual clusters (default 10)")
      ->check(CLI::PositiveNumber);
  generate->add_option("--out", options->out, "output file (gputwin job CSV, docs/jobs-format.md)")->required();
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
