// `gputwin export slurm SPEC --out DIR`: slurm.conf lines, gres.conf and topology.conf for a design.
// `gputwin export prometheus SPEC --out DIR [--replay RESULT.json]`: recording and alerting rules for a
// design.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/export/prometheus_rules.hpp"
#include "gputwin/export/slurm_config.hpp"
#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/validate/checks_data.hpp"

namespace gputwin::cli {
namespace {

struct ExportOptions {
  CatalogOptions catalog;
  std::string spec;
  std::string out;
};

int run_export_slurm(const ExportOptions& options) {
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return kInputError;
  const auto cluster = load_designed_cluster(options.spec, *catalog);
  if (!cluster) return kInputError;
  const ExportFiles files = slurm_config(*cluster, *catalog);
  if (options.out == "-") {  // every file on stdout, as export prometheus --out -
    for (const ExportFile& file : files.files) std::cout << "# file: " << file.name << "\n" << file.text;
    return 0;
  }
  if (const auto problem = write_export_files(files, options.out)) {
    std::cerr << *problem << "\n";
    return kInputError;
  }
  const std::filesystem::path dir(options.out);
  std::cout << "wrote " << (dir / "slurm.conf").string() << ", gres.conf and topology.conf for "
            << cluster->nodes << " nodes and " << cluster->gpus << " GPUs\n";
  return 0;
}

struct PrometheusExportOptions {
  CatalogOptions catalog;
  std::string spec;
  std::string out;
  std::string replay;
  std::string hold;
  std::string utilization_margin;
  std::string utilization_window;
  std::string scrape_job;
  bool ecc_sbe_alert = false;
  std::string ecc_sbe_rate;
};

// A positive number of corrected ECC errors a minute ("20", "2.5").
double sbe_rate_option(const std::string& text) {
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(value > 0) || !std::isfinite(value))
    throw UsageFailure{"--ecc-sbe-rate: expected corrected ECC errors a minute, a number above 0, got '" +
                       text + "'"};
  return value;
}

std::string checked_duration(const std::string& option, const std::string& text) {
  if (!is_prometheus_duration(text))
    throw UsageFailure{option +
                       ": expected a Prometheus duration (digits and one of ms, s, m, h, d, w, y, e.g. " +
                       "5m), got '" + text + "'"};
  return text;
}

// Prints the errors of a failed load and says whether it loaded.
template <class T>
bool loaded(const Result<T>& result) {
  if (!result.ok()) std::cerr << result.error_text();
  return result.ok();
}

int run_export_prometheus(const PrometheusExportOptions& options) {
  std::optional<std::string> hold;
  if (!options.hold.empty()) hold = checked_duration("--for", options.hold);
  const std::string data = bundled_data_dir();
  auto settings = load_prometheus_rule_settings(data + "/export/prometheus-rules.yaml");
  if (!loaded(settings)) return kInputError;
  PrometheusRuleSettings rule_settings = std::move(settings).value();
  if (!options.utilization_margin.empty())
    rule_settings.utilization_margin = percentage_option("--utilization-margin", options.utilization_margin);
  if (!options.utilization_window.empty())
    rule_settings.utilization_window = checked_duration("--utilization-window", options.utilization_window);
  if (!options.scrape_job.empty()) {
    if (!is_scrape_job_name(options.scrape_job))
      throw UsageFailure{"--scrape-job: expected a job name (letters, digits, '_', '-', '.'), got '" +
                         options.scrape_job + "'"};
    rule_settings.scrape_job = options.scrape_job;
    rule_settings.scrape_job_source = "--scrape-job";
  }
  if (options.ecc_sbe_alert) {
    rule_settings.ecc_single_bit_enabled = true;
    rule_settings.ecc_single_bit_enabled_source = "--ecc-sbe-alert";
  }
  if (!options.ecc_sbe_rate.empty()) {
    rule_settings.ecc_single_bit_max_per_minute = sbe_rate_option(options.ecc_sbe_rate);
    rule_settings.ecc_single_bit_max_per_minute_source = "--ecc-sbe-rate (the user's limit)";
    rule_settings.ecc_single_bit_enabled = true;
    rule_settings.ecc_single_bit_enabled_source = "--ecc-sbe-rate";
  }
  const auto checks = validate::load_checks_data(data + "/validate/checks.yaml");
  if (!loaded(checks)) return kInputError;
  const auto rates = load_failure_rates(data + "/reliability/failure-rates.yaml");
  if (!loaded(rates)) return kInputError;
  std::optional<PredictedUtilization> utilization;
  if (!options.replay.empty()) {
    auto predicted = read_predicted_utilization(options.replay);
    if (!loaded(predicted)) return kInputError;
    utilization = std::move(predicted).value();
  }
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return kInputError;
  const auto cluster = load_designed_cluster(options.spec, *catalog);
  if (!cluster) return kInputError;
  const PrometheusRuleInputs inputs{
      *cluster,    *catalog, checks.value(), rates.value().replacement_thresholds, std::move(rule_settings),
      utilization, hold};
  const ExportFiles files = prometheus_rules(inputs);
  if (options.out == "-") {
    for (const ExportFile& file : files.files) std::cout << "# file: " << file.name << "\n" << file.text;
    return 0;
  }
  if (const auto problem = write_export_files(files, options.out)) {
    std::cerr << *problem << "\n";
    return kInputError;
  }
  const std::filesystem::path dir(options.out);
  std::cout << "wrote " << (dir / files.files.front().name).string() << " and " << files.files.back().name
            << " for " << cluster->nodes << " nodes, " << cluster->gpus << " GPUs and "
            << cluster->racks.size() << " racks"
            << (utilization ? "" : " (no utilisation alert without --replay)") << "\n";
  return 0;
}

int run_export_prometheus_guarded(const PrometheusExportOptions& options) {
  try {
    return run_export_prometheus(options);
  } catch (const UsageFailure& failure) {
    std::cerr << "export prometheus: " << failure.message << "\n";
    return kUsageError;
  }
}

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ExportOptions>();
  auto* export_command = app.add_subcommand("export", "write a design as another tool's configuration");
  export_command->require_subcommand(1);
  auto* slurm = export_command->add_subcommand(
      "slurm", "slurm.conf node/partition lines, gres.conf and topology.conf (docs/slurm.md)");
  slurm->add_option("spec", options->spec, "cluster spec (YAML)")->required()->check(CLI::ExistingFile);
  slurm->add_option("--out", options->out, "directory to write the files into ('-': print them)")->required();
  add_catalog_options(*slurm, options->catalog);
  slurm->callback([options, &exit_code] { exit_code = run_export_slurm(*options); });

  auto prometheus_options = std::make_shared<PrometheusExportOptions>();
  auto* prometheus = export_command->add_subcommand(
      "prometheus", "Prometheus recording and alerting rules from the design (docs/prometheus.md)");
  prometheus->add_option("spec", prometheus_options->spec, "cluster spec (YAML)")
      ->required()
      ->check(CLI::ExistingFile);
  prometheus
      ->add_option(
          "--out", prometheus_options->out,
          "directory to write the two rule files into; - prints both, each after a line '# file: NAME'")
      ->required();
  prometheus->add_option("--replay", prometheus_options->replay,
                         "simulate replay --json result on this design: adds the utilisation alert");
  prometheus->add_option("--for", prometheus_options->hold,
                         "every alert's hold time (Prometheus `for:`), e.g. 0s; default per alert from "
                         "data/export/prometheus-rules.yaml");
  prometheus->add_option("--utilization-margin", prometheus_options->utilization_margin,
                         "how far measured utilisation may fall below the prediction, e.g. 10%; default from "
                         "data/export/prometheus-rules.yaml");
  prometheus->add_option("--utilization-window", prometheus_options->utilization_window,
                         "window of the mean utilisation, a Prometheus duration, e.g. 1h; default from "
                         "data/export/prometheus-rules.yaml");
  prometheus->add_option(
      "--scrape-job", prometheus_options->scrape_job,
      "the Prometheus job that scrapes dcgm-exporter, whose up series tells why a node has "
      "no series (default dcgm-exporter: data/export/prometheus-rules.yaml)");
  prometheus->add_flag("--ecc-sbe-alert", prometheus_options->ecc_sbe_alert,
                       "add the single-bit (corrected) ECC rate alert, off by default, at the default limit "
                       "of data/export/prometheus-rules.yaml (a gputwin default: NVIDIA publishes none)");
  prometheus->add_option("--ecc-sbe-rate", prometheus_options->ecc_sbe_rate,
                         "add the single-bit ECC rate alert at this many corrected errors a minute");
  add_catalog_options(*prometheus, prometheus_options->catalog);
  prometheus->callback(
      [prometheus_options, &exit_code] { exit_code = run_export_prometheus_guarded(*prometheus_options); });
}

}  // namespace gputwin::cli
