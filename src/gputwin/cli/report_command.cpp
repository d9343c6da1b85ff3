// gputwin report: the design of a spec, with simulation and perf results beside it, as one self-contained
// HTML file.
#include <fstream>
#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/report/html/chart_js_asset.hpp"
#include "gputwin/report/html/html_report.hpp"
#include "gputwin/report/html/inputs.hpp"

namespace gputwin::cli {
namespace {

struct ReportOptions {
  CatalogOptions catalog;
  std::string spec;
  std::vector<std::string> simulations;
  std::vector<std::string> perfs;
  std::vector<std::string> validations;
  std::string rent;
  std::string out;
};

int run_report(const ReportOptions& options) {
  // Result files first: a wrong file is reported before the (slower) design of a large spec.
  auto inputs = load_report_inputs(options.simulations, options.perfs, options.validations);
  if (!inputs.ok()) {
    std::cerr << inputs.error_text();
    return kInputError;
  }
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return kInputError;
  const auto design = designed_spec(options.spec, *catalog);
  if (!design) return kInputError;
  ReportInputs drawn = std::move(inputs).value();
  if (design->workload_fit && design->workload_fit->budget) drawn.power_budget = design->workload_fit->budget;
  if (!options.rent.empty()) {
    drawn.buy_vs_rent = buy_or_rent(options.rent, options.spec, *design, *catalog);
    if (!drawn.buy_vs_rent) return kInputError;
  }
  std::ofstream out(options.out, std::ios::binary);
  out << html_report(design->cluster, drawn, chart_js_bundle());
  out.close();
  if (!out) {
    std::cerr << options.out << ": cannot write the report\n";
    return kInputError;
  }
  std::cout << options.out << "\n";
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ReportOptions>();
  auto* report = app.add_subcommand(
      "report",
      "write one self-contained HTML page: summary, racks, fabrics, cables, BOM, TCO and result charts");
  report->add_option("spec", options->spec, "cluster spec (YAML)")->required()->check(CLI::ExistingFile);
  report->add_option("--simulation", options->simulations,
                     "a `simulate replay --json` or `simulate packing --json` result (repeatable)");
  report->add_option(
      "--perf", options->perfs,
      "a `perf collective`, `perf train`, `perf infer` or `perf size` --json result (repeatable)");
  report->add_option(
      "--validate", options->validations,
      "a `validate --json` result: its findings, and with --prometheus --range its utilisation "
      "timeline (measured, and predicted with --sacct) (repeatable)");
  report
      ->add_option("--rent", options->rent,
                   "cloud prices per GPU-hour (YAML): a buy-or-rent section (docs/plan.md)")
      ->check(CLI::ExistingFile);
  report->add_option("--out", options->out, "the HTML file to write")->required();
  add_catalog_options(*report, options->catalog);
  report->callback([options, &exit_code] { exit_code = run_report(*options); });
}

}  // namespace gputwin::cli
