// gputwin: a digital twin for GPU clusters. Thin command-line layer over the library.
#include <CLI/CLI.hpp>

#include "gputwin/cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"gputwin: a digital twin for GPU clusters (plan, perf, simulate, validate, export, report)"};
  app.require_subcommand(1);
  int exit_code = 0;
  gputwin::cli::add_plan_command(app, exit_code);
  gputwin::cli::add_catalog_command(app, exit_code);
  gputwin::cli::add_simulate_command(app, exit_code);
  gputwin::cli::add_trace_command(app, exit_code);
  gputwin::cli::add_perf_command(app, exit_code);
  gputwin::cli::add_validate_command(app, exit_code);
  gputwin::cli::add_export_command(app, exit_code);
  gputwin::cli::add_sweep_command(app, exit_code);
  gputwin::cli::add_report_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : gputwin::cli::kUsageError;
  }
  return exit_code;
}
