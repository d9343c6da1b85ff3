// `gputwin validate`: measured outputs of a built cluster checked against the checks data, the fleet's own
// norms (outliers) and, with --cluster, the design's predicted busbw. `validate inventory` only lists nodes.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/civil_time.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/plan/replay_prediction.hpp"
#include "gputwin/prometheus/http_transport.hpp"
#include "gputwin/prometheus/time_params.hpp"
#include "gputwin/report/validate_report.hpp"
#include "gputwin/sim/run_time_estimate.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/design_inputs.hpp"
#include "gputwin/validate/inventory.hpp"
#include "gputwin/validate/prometheus_fleet.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::cli {

double percentage_option(const std::string& option, const std::string& text) {
  std::string digits = text;
  while (!digits.empty() && (digits.back() == '%' || digits.back() == ' ')) digits.pop_back();
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used != digits.size() || value < 0 || value >= 100)
    throw UsageFailure{option + ": expected a percentage from 0% to below 100%, e.g. 10%, got '" + text +
                       "'"};
  return value / 100.0;
}

namespace {

struct ValidateOptions {
  std::string measured;
  std::string prometheus;  // a Prometheus server's URL instead of --measured
  std::string at;          // RFC 3339 or Unix seconds; empty: now
  std::string range;       // Prometheus duration ("24h"); empty: one instant
  std::string step;        // Prometheus duration, with --range (default 5m)
  std::string timeout = "10s";
  std::string connect_timeout = "5s";
  int connections = validate::kDefaultQueryConnections;  // queries in flight at once
  std::string gap_tolerance;  // with --range: steps ("2") or a duration ("10m"); empty: the checks data's
  std::string cluster;
  std::string checks;
  std::string fail_on = "critical";
  std::string busbw_margin;
  std::string mig_layout;
  std::string sacct;              // with --range: replay this accounting history beside the timeline
  std::string time_zone = "UTC";  // the zone of sacct --parsable2's wall-clock times
  std::string policy = "easy";    // the replay's queue policy (Slurm's default scheduler is backfill)
  bool json = false;
  CatalogOptions catalog;
};

// The design's fleet, busbw prediction and intended MIG layout; false after printing an error.
bool add_design(const ValidateOptions& options, validate::CheckOptions& check_options) {
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return false;
  const auto cluster = load_designed_cluster(options.cluster, *catalog);
  if (!cluster) return false;
  std::optional<Result<validate::CheckOptions>> design;
  try {
    design = validate::design_check_options(options.cluster, *cluster, *catalog, options.mig_layout);
  } catch (const std::invalid_argument& error) {
    throw UsageFailure{error.what()};
  }
  if (!design->ok()) {
    std::cerr << design->error_text();
    return false;
  }
  const std::optional<double> margin = check_options.busbw_margin;
  check_options = std::move(*design).value();
  check_options.busbw_margin = margin;
  return true;
}

std::chrono::milliseconds timeout_of(const std::string& text, const char* option) {
  const auto seconds = prometheus::parse_duration(text);
  if (!seconds)
    throw UsageFailure{std::string(option) + ": expected a duration such as 10s or 500ms, got '" + text +
                       "'"};
  return std::chrono::milliseconds(std::llround(*seconds * 1000));
}

// --at, --range and --step as a window of the server's time; --range without --at ends now.
validate::PrometheusWindow window_of(const ValidateOptions& options) {
  validate::PrometheusWindow window;
  if (!options.at.empty()) {
    window.at_s = prometheus::parse_time(options.at);
    if (!window.at_s)
      throw UsageFailure{"--at: expected an RFC 3339 time (2026-11-26T12:00:00Z) or Unix seconds, got '" +
                         options.at + "'"};
  }
  if (!options.step.empty() && options.range.empty()) throw UsageFailure{"--step needs --range"};
  if (options.range.empty()) return window;
  window.range_s = prometheus::parse_duration(options.range);
  if (!window.range_s)
    throw UsageFailure{"--range: expected a duration such as 24h or 90m, got '" + options.range + "'"};
  const std::string step = options.step.empty() ? "5m" : options.step;
  const auto step_s = prometheus::parse_duration(step);
  if (!step_s) throw UsageFailure{"--step: expected a duration such as 5m, got '" + step + "'"};
  if (*step_s > *window.range_s)
    throw UsageFailure{"--step " + step + " is longer than --range " + options.range};
  window.step_s = *step_s;
  if (!window.at_s)
    window.at_s = std::floor(
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  return window;
}

// --gap-tolerance as steps of the range: a number of steps (2) or a duration (10m) divided by --step.
std::optional<double> gap_tolerance_of(const ValidateOptions& options,
                                       const validate::PrometheusWindow& window) {
  if (options.gap_tolerance.empty()) return std::nullopt;
  if (options.prometheus.empty() || options.range.empty())
    throw UsageFailure{"--gap-tolerance needs --prometheus URL and --range"};
  const auto steps = validate::parse_double(options.gap_tolerance);
  if (steps && *steps >= 0) return *steps;
  const auto seconds = prometheus::parse_duration(options.gap_tolerance);
  if (!seconds)
    throw UsageFailure{"--gap-tolerance: expected a number of steps (2) or a duration such as 10m, got '" +
                       options.gap_tolerance + "'"};
  return *seconds / window.step_s;
}

void check_source_options(const ValidateOptions& options) {
  if (options.measured.empty() == options.prometheus.empty())
    throw UsageFailure{options.measured.empty() ? "--measured DIR or --prometheus URL is required"
                                                : "--measured and --prometheus exclude each other"};
  if (options.prometheus.empty() && (!options.at.empty() || !options.range.empty() || !options.step.empty()))
    throw UsageFailure{"--at, --range and --step need --prometheus URL"};
  if (!options.sacct.empty() && (options.prometheus.empty() || options.range.empty()))
    throw UsageFailure{"--sacct needs --prometheus URL and --range (the prediction is by interval)"};
  if (!parse_utc_offset(options.time_zone))
    throw UsageFailure{
        "--time-zone: expected UTC or a fixed offset such as +01:00 or UTC-05:00 (zone names are "
        "not read: give the offset in force over the range), got '" +
        options.time_zone + "'"};
}

// What simulate replay predicts for the timeline's intervals from the sacct history: on the design with
// --cluster, else on the measured fleet (its nodes, each with the most GPUs any node reports). Composed here
// because validate may not include sim; the replay itself is plan/replay_prediction.
std::optional<ReplayPrediction> predict_from_sacct(const ValidateOptions& options,
                                                   const validate::Fleet& fleet,
                                                   const validate::PrometheusRead& read) {
  std::unique_ptr<QueuePolicy> policy;
  try {
    policy = make_queue_policy(options.policy);
  } catch (const std::invalid_argument& error) {
    throw UsageFailure{std::string("--policy: ") + error.what()};
  }
  const auto history = read_sacct_history(options.sacct);
  if (!history.ok()) {
    std::cerr << history.error_text();
    return std::nullopt;
  }
  std::optional<SimulatedCluster> cluster;
  std::string described;
  if (!options.cluster.empty()) {
    const auto catalog = load_catalog(options.catalog);
    if (!catalog) return std::nullopt;
    const auto designed = load_designed_cluster(options.cluster, *catalog);
    if (!designed) return std::nullopt;
    cluster = simulated_cluster(*designed, *catalog, std::nullopt);
    described = "the design " + options.cluster;
  } else {
    int gpus_per_node = 0;
    for (const validate::FleetNode& node : fleet.nodes)
      if (node.facts) gpus_per_node = std::max(gpus_per_node, static_cast<int>(node.facts->gpus.size()));
    const int nodes = static_cast<int>(fleet.nodes.size());
    if (nodes == 0 || gpus_per_node == 0) {
      std::cerr << "validate: --sacct: the measured fleet has no GPUs to replay on; give --cluster SPEC\n";
      return std::nullopt;
    }
    cluster = uniform_simulated_cluster(nodes, gpus_per_node);
    described = fmt::format("the measured fleet ({} nodes x {} GPUs)", nodes, gpus_per_node);
  }
  auto estimate = run_time_estimate_or_default(std::nullopt);
  if (!estimate.ok()) {
    std::cerr << estimate.error_text();
    return std::nullopt;
  }
  ReplayOptions replay_options;
  replay_options.run_time_estimate = std::move(estimate).value();
  std::vector<double> times;
  for (const validate::UtilizationPoint& point : read.timeline) times.push_back(point.time_s);
  try {
    ReplayPrediction prediction = predict_occupancy(
        history.value(), SacctClock{*parse_utc_offset(options.time_zone), options.time_zone}, times,
        read.window.step_s, std::move(*cluster), *policy, replay_options);
    prediction.sacct = options.sacct;
    prediction.cluster = described;
    return prediction;
  } catch (const std::invalid_argument& error) {
    std::cerr << "validate: --sacct " << options.sacct << ": " << error.what() << "\n";
    return std::nullopt;
  }
}

// The fleet from the directory or the server; the Prometheus read (queries, skips, timeline) when there.
struct FleetSource {
  validate::Fleet fleet;
  std::optional<validate::PrometheusRead> prometheus;
};

std::optional<FleetSource> read_source(const ValidateOptions& options,
                                       const validate::PrometheusWindow& window) {
  if (!options.measured.empty()) {
    auto fleet = validate::read_fleet(options.measured);
    if (!fleet.ok()) {
      std::cerr << fleet.error_text();
      return std::nullopt;
    }
    return FleetSource{std::move(fleet).value(), std::nullopt};
  }
  prometheus::HttpOptions http;
  http.read_timeout = timeout_of(options.timeout, "--timeout");
  http.connect_timeout = timeout_of(options.connect_timeout, "--connect-timeout");
  auto transport = prometheus::make_http_transport(options.prometheus, http);
  if (!transport.ok()) throw UsageFailure{"--prometheus: " + transport.errors().front().message};
  if (options.connections < 1)
    throw UsageFailure{fmt::format("--connections: expected 1 or more, got {}", options.connections)};
  auto read = validate::read_prometheus_fleet(*transport.value(), window, options.connections);
  if (!read.ok()) {
    std::cerr << read.error_text();
    return std::nullopt;
  }
  auto value = std::move(read).value();
  return FleetSource{std::move(value.fleet), std::move(value.read)};
}

int run_validate(const ValidateOptions& options) {
  try {
    check_source_options(options);
    if (!options.mig_layout.empty() && options.cluster.empty())
      throw UsageFailure{"--mig-layout needs --cluster SPEC (the layout is read against the cluster's GPU)"};
    const auto fail_on = validate::severity_from_name(options.fail_on);
    if (!fail_on)
      throw UsageFailure{"--fail-on: expected critical, warning or info, got '" + options.fail_on + "'"};
    validate::CheckOptions check_options;
    if (!options.busbw_margin.empty())
      check_options.busbw_margin = percentage_option("--busbw-margin", options.busbw_margin);
    const auto checks = validate::load_checks_data(
        options.checks.empty() ? bundled_data_dir() + "/validate/checks.yaml" : options.checks);
    if (!checks.ok()) {
      std::cerr << checks.error_text();
      return kInputError;
    }
    // Usage errors of the Prometheus options before any file or connection is read.
    validate::PrometheusWindow window;
    if (!options.prometheus.empty()) {
      (void)timeout_of(options.timeout, "--timeout");
      (void)timeout_of(options.connect_timeout, "--connect-timeout");
      window = window_of(options);
    }
    const auto gap_tolerance = gap_tolerance_of(options, window);
    if (!options.cluster.empty() && !add_design(options, check_options)) return kInputError;
    check_options.gap_tolerance_steps = gap_tolerance;
    const auto source = read_source(options, window);
    if (!source) return kInputError;
    const validate::Fleet& fleet = source->fleet;
    std::optional<ReplayPrediction> prediction;
    if (!options.sacct.empty()) {
      prediction = predict_from_sacct(options, fleet, *source->prometheus);
      if (!prediction) return kInputError;
    }
    ValidateRun run{&fleet,
                    validate::evaluate_checks(fleet, checks.value(), check_options),
                    validate::find_outliers(fleet, checks.value().outliers),
                    options.cluster,
                    *fail_on,
                    checks.value().outliers.threshold,
                    source->prometheus ? &*source->prometheus : nullptr,
                    prediction ? &*prediction : nullptr,
                    validate::gap_tolerance_steps(checks.value(), check_options)};
    if (options.json)
      std::cout << validate_json(run).dump(2) << "\n";
    else
      std::cout << validate_text(run);
    return validate_failed(run) ? 1 : 0;
  } catch (const UsageFailure& failure) {
    std::cerr << "validate: " << failure.message << "\n";
    return kUsageError;
  }
}

void add_validate_options(CLI::App& validate, ValidateOptions& options) {
  validate.add_option(
      "--measured", options.measured,
      "directory of per-node outputs: a subdirectory per node (or a file per node) holding "
      "nvidia-smi XML/CSV/table, nccl-tests logs or -J JSON, dcgmi diag -j JSON, /metrics scrapes");
  validate.add_option(
      "--prometheus", options.prometheus,
      "a Prometheus server scraping dcgm-exporter (http://HOST:9090[/PREFIX]): its series are "
      "read instead of --measured, into the same facts and checks");
  validate.add_option("--at", options.at,
                      "with --prometheus: the time read, RFC 3339 (2026-11-26T12:00:00Z) or Unix seconds "
                      "(default: now)");
  validate.add_option(
      "--range", options.range,
      "with --prometheus: read the range ending at --at (24h, 90m): faults are the worst value "
      "in it, and GPU utilisation and occupancy are shown by interval");
  validate.add_option("--step", options.step, "with --range: the interval (default 5m)");
  validate.add_option(
      "--gap-tolerance", options.gap_tolerance,
      "with --range: a node or GPU with no sample for more than this many steps (2), or this long (10m), "
      "stopped reporting or went missing (default: the checks data, 2 steps)");
  validate.add_option("--timeout", options.timeout,
                      "with --prometheus: the read time-out of each request (default 10s)");
  validate.add_option("--connect-timeout", options.connect_timeout,
                      "with --prometheus: the connect time-out (default 5s)");
  validate.add_option("--connections", options.connections,
                      fmt::format("with --prometheus: queries in flight at once, each on its own "
                                  "connection (default {}; never more than the read's queries)",
                                  validate::kDefaultQueryConnections));
  validate.add_option(
      "--sacct", options.sacct,
      "with --prometheus and --range: sacct --parsable2 or --json history of the same period; "
      "what simulate replay predicts from it is shown beside each interval");
  validate.add_option("--time-zone", options.time_zone,
                      "with --sacct: the zone of sacct --parsable2's local times, UTC or a fixed offset such "
                      "as +01:00 (default UTC; --json times are Unix seconds)");
  validate.add_option(
      "--policy", options.policy,
      "with --sacct: the replay's queue policy, fifo | sjf | easy | fair (default easy: Slurm "
      "schedules with backfill by default)");
  validate.add_option("--cluster", options.cluster,
                      "cluster spec (YAML): the fleet is compared with this design (nodes, GPU model, count "
                      "and memory) and busbw with perf's prediction for it");
  validate.add_flag("--json", options.json, std::string("print JSON (schema ") + kValidateSchema + ")");
  validate.add_option(
      "--fail-on", options.fail_on,
      "exit 1 when a finding of this severity or above exists: critical (default), warning, info");
  validate.add_option(
      "--busbw-margin", options.busbw_margin,
      "busbw below the prediction by more than this is a finding (default: checks data, 10%)");
  validate.add_option(
      "--mig-layout", options.mig_layout,
      "intended MIG layout of every GPU, e.g. 3g.40gb+2g.20gb+1g.10gb+1g.10gb (needs --cluster)");
  validate.add_option("--checks", options.checks,
                      "checks data (default: the bundled data/validate/checks.yaml)");
  add_catalog_options(validate, options.catalog);
}

// `validate inventory`: the fleet read and judged as `validate` does, shown one line per node.
int run_inventory(const std::string& measured) {
  const auto checks = validate::load_checks_data(bundled_data_dir() + "/validate/checks.yaml");
  if (!checks.ok()) {
    std::cerr << checks.error_text();
    return kInputError;
  }
  const auto inventory = validate::take_inventory(measured, checks.value());
  if (!inventory.ok()) {
    std::cerr << inventory.error_text();
    return kInputError;
  }
  std::cout << validate_inventory_text(inventory.value());
  for (const validate::FleetNode& node : inventory.value().fleet.nodes)
    for (const InputError& error : node.errors) std::cerr << error.to_string() << "\n";
  return validate::inventory_has_input_errors(inventory.value()) ? kInputError : 0;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto* validate = app.add_subcommand(
      "validate",
      "check measurements of a built cluster (nvidia-smi, DCGM, nccl-tests) against the checks data, the "
      "fleet's outliers and the design; exit 1 on a finding at --fail-on or above or on unreadable input, 2 "
      "on "
      "usage errors");
  validate->require_subcommand(0, 1);
  auto options = std::make_shared<ValidateOptions>();
  add_validate_options(*validate, *options);
  auto measured = std::make_shared<std::string>();
  auto* inventory = validate->add_subcommand(
      "inventory", "per node: GPUs, model, driver and health (the rules of the checks' findings)");
  inventory
      ->add_option("--measured", *measured,
                   "directory of per-node captures (a subdirectory or file per node)")
      ->required();
  inventory->callback([measured, &exit_code] { exit_code = run_inventory(*measured); });
  validate->callback([inventory, options, &exit_code] {
    if (inventory->parsed()) return;
    exit_code = run_validate(*options);
  });
}

}  // namespace gputwin::cli
