#include "gputwin/report/validate_report.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <set>

#include "gputwin/prometheus/time_params.hpp"
#include "gputwin/report/json_document.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

using validate::Finding;
using validate::FleetNode;
using validate::Outlier;
using validate::Severity;

constexpr std::array<Severity, 3> kSeverities = {Severity::critical, Severity::warning, Severity::info};

std::string location_text(const SourceLocation& where) {
  return where.line > 0 ? fmt::format("{}:{}", where.file, where.line) : where.file;
}

std::string gpu_text(const std::optional<int>& gpu) {
  return gpu ? fmt::format("GPU {}", *gpu) : "-";
}

// The node's GPU models ("NVIDIA H100 80GB HBM3"), from its one fact model (nvidia-smi outputs and scrapes).
std::string models_of(const FleetNode& node) {
  std::set<std::string> models;
  if (node.facts)
    for (const auto& gpu : node.facts->gpus) models.insert(gpu.model.empty() ? "?" : gpu.model);
  std::string text;
  for (const std::string& model : models) text += (text.empty() ? "" : ", ") + model;
  return text.empty() ? "-" : text;
}

std::array<int, 3> severity_counts(const std::vector<Finding>& findings, const std::string* node = nullptr) {
  std::array<int, 3> counts{};
  for (const Finding& finding : findings)
    if (node == nullptr || finding.node == *node) ++counts[static_cast<int>(finding.severity)];
  return counts;
}

// "ok", or "2 critical, 1 warning" (info findings are comparisons not made, not health).
std::string health_of(const FleetNode& node, const std::vector<Finding>& findings) {
  const auto counts = severity_counts(findings, &node.name);
  std::string text;
  for (Severity severity : {Severity::critical, Severity::warning})
    if (counts[static_cast<int>(severity)] > 0)
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", counts[static_cast<int>(severity)],
                          validate::severity_name(severity));
  return text.empty() ? "ok" : text;
}

int gpu_count(const FleetNode& node) {
  return static_cast<int>(node.facts ? node.facts->gpus.size() : 0);
}

std::string driver_of(const FleetNode& node) {
  return node.facts ? node.facts->driver_version.value_or("-") : "-";
}

std::string inventory_text(const ValidateRun& run) {
  TextTable table({"node", "GPUs", "model", "driver", "files", "health"},
                  {Align::left, Align::right, Align::left, Align::left, Align::right, Align::left});
  for (const FleetNode& node : run.fleet->nodes)
    table.add_row({node.name, std::to_string(gpu_count(node)), models_of(node), driver_of(node),
                   std::to_string(node.files.size()), health_of(node, run.findings)});
  return "Inventory\n" + table.render();
}

std::string findings_text(const ValidateRun& run) {
  std::string out;
  for (Severity severity : kSeverities) {
    TextTable table({"node", "GPU", "rule", "where", "message"},
                    {Align::left, Align::left, Align::left, Align::left, Align::left});
    int count = 0;
    for (const Finding& finding : run.findings) {
      if (finding.severity != severity) continue;
      table.add_row(
          {finding.node, gpu_text(finding.gpu), finding.rule, location_text(finding.where), finding.message});
      ++count;
    }
    if (count > 0)
      out += fmt::format("\nFindings: {} ({})\n", validate::severity_name(severity), count) + table.render();
  }
  return out.empty() ? "\nFindings: none\n" : out;
}

std::string outliers_text(const ValidateRun& run) {
  if (run.outliers.empty())
    return fmt::format("\nOutliers (robust z above {:g}): none\n", run.outlier_threshold);
  TextTable table(
      {"metric", "compared among", "node", "GPU", "value", "median", "robust z"},
      {Align::left, Align::left, Align::left, Align::left, Align::right, Align::right, Align::right});
  for (const Outlier& outlier : run.outliers)
    table.add_row({outlier.metric, fmt::format("{} ({})", outlier.group, outlier.group_size), outlier.node,
                   gpu_text(outlier.gpu), fmt::format("{:.2f} {}", outlier.value, outlier.unit),
                   fmt::format("{:.2f} {}", outlier.median, outlier.unit),
                   fmt::format("{:+.1f}{}", outlier.robust_z, outlier.spread_from_mad ? "" : " (MeanAD)")});
  return fmt::format("\nOutliers (robust z above {:g})\n", run.outlier_threshold) + table.render();
}

struct Totals {
  int gpus = 0;
  int files = 0;
  int not_understood = 0;
  int nccl_runs = 0;
};

Totals totals_of(const validate::Fleet& fleet) {
  Totals totals;
  for (const FleetNode& node : fleet.nodes) {
    totals.gpus += gpu_count(node);
    totals.files += static_cast<int>(node.files.size());
    totals.nccl_runs += static_cast<int>(node.nccl_runs.size());
    for (const auto& file : node.files)
      totals.not_understood += file.kind == validate::FileKind::unknown ? 1 : 0;
  }
  return totals;
}

// "24h", "15m", "90s": the largest whole unit, as the durations were likely written.
std::string readable_duration(double seconds) {
  for (const auto& [unit, size] : {std::pair{"d", 86400.0}, std::pair{"h", 3600.0}, std::pair{"m", 60.0}})
    if (seconds >= size && std::fmod(seconds, size) == 0) return fmt::format("{:g}{}", seconds / size, unit);
  return prometheus::duration_text(seconds);
}

std::string window_text(const validate::PrometheusWindow& window) {
  std::string text = window.at_s ? " at " + prometheus::rfc3339(*window.at_s) : " at the server's now";
  if (window.range_s)
    text += fmt::format(" over {} in steps of {}", readable_duration(*window.range_s),
                        readable_duration(window.step_s));
  return text;
}

std::string skipped_text(const validate::PrometheusRead& read) {
  int total = 0;
  std::string reasons;
  for (const auto& [reason, count] : read.skipped_series) {
    total += count;
    reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : ", ", reason, count);
  }
  return total == 0 ? "none skipped" : fmt::format("{} skipped ({})", total, reasons);
}

// Over a range: how many nodes and GPUs stopped reporting or went missing (the reporting checks' findings).
struct ReportingCounts {
  int nodes_stopped = 0;
  int node_gaps = 0;
  int gpus_stopped = 0;
  int gpu_gaps = 0;
};

ReportingCounts reporting_counts(const std::vector<Finding>& findings) {
  ReportingCounts counts;
  for (const Finding& finding : findings) {
    counts.nodes_stopped += finding.rule == "node-stopped-reporting" ? 1 : 0;
    counts.node_gaps += finding.rule == "node-reporting-gap" ? 1 : 0;
    counts.gpus_stopped += finding.rule == "gpu-stopped-reporting" ? 1 : 0;
    counts.gpu_gaps += finding.rule == "gpu-reporting-gap" ? 1 : 0;
  }
  return counts;
}

std::string plural(int count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

std::string reporting_text(const ValidateRun& run) {
  const validate::PrometheusRead& read = *run.prometheus;
  if (!read.window.range_s) return "";
  const ReportingCounts counts = reporting_counts(run.findings);
  return fmt::format(
      "Reporting over the range (a finding: no sample for more than {:g} steps, {}): {} stopped, {}; {} "
      "stopped, {}; {} not judged (no DCGM_FI_DEV_GPU_UTIL series)\n",
      run.gap_tolerance_steps, readable_duration(run.gap_tolerance_steps * read.window.step_s),
      plural(counts.nodes_stopped, "node", "nodes"), plural(counts.node_gaps, "node gap", "node gaps"),
      plural(counts.gpus_stopped, "GPU", "GPUs"), plural(counts.gpu_gaps, "GPU gap", "GPU gaps"),
      plural(read.gpus_not_judged, "GPU", "GPUs"));
}

std::string prometheus_text(const ValidateRun& run) {
  const validate::PrometheusRead& read = *run.prometheus;
  return fmt::format("Prometheus {}{}: {} queries, {} series, {}; {} NaN samples (read as no value)\n{}\n",
                     read.url, window_text(read.window), read.queries, read.series, skipped_text(read),
                     read.nan_samples, reporting_text(run));
}

double occupancy_of(const validate::UtilizationPoint& point) {
  return point.gpus > 0 ? static_cast<double>(point.busy_gpus) / point.gpus : 0.0;
}

std::string prediction_text(const ReplayPrediction& prediction) {
  int skipped = 0;
  for (const auto& [reason, count] : prediction.skipped) skipped += count;
  return fmt::format(
      "predicted: simulate replay --policy {} of {} ({} jobs replayed, {} submitted after the range left "
      "out, {} "
      "larger than the cluster, {} rows skipped by the reader; times in {}) on {}: {} GPUs\n",
      prediction.policy, prediction.sacct, prediction.jobs, prediction.jobs_after, prediction.jobs_rejected,
      skipped, prediction.time_zone, prediction.cluster, prediction.gpus);
}

std::string timeline_text(const validate::PrometheusRead& read, const ReplayPrediction* prediction) {
  if (read.timeline.empty()) return "";
  std::vector<std::string> headings{"time", "GPUs", "busy", "occupancy", "mean utilisation"};
  std::vector<Align> aligns{Align::left, Align::right, Align::right, Align::right, Align::right};
  if (prediction) {
    for (const char* heading : {"predicted busy", "predicted occupancy", "difference"}) {
      headings.emplace_back(heading);
      aligns.push_back(Align::right);
    }
  }
  TextTable table(headings, aligns);
  for (std::size_t i = 0; i < read.timeline.size(); ++i) {
    const validate::UtilizationPoint& point = read.timeline[i];
    std::vector<std::string> row{prometheus::rfc3339(point.time_s), std::to_string(point.gpus),
                                 std::to_string(point.busy_gpus),
                                 fmt::format("{:.1f} %", 100 * occupancy_of(point)),
                                 fmt::format("{:.1f} %", point.mean_utilization_percent)};
    if (prediction && i < prediction->points.size()) {
      const PredictedPoint& predicted = prediction->points[i];
      row.push_back(fmt::format("{:.1f}", predicted.busy_gpus));
      row.push_back(fmt::format("{:.1f} %", 100 * predicted.occupancy));
      row.push_back(fmt::format("{:+.1f} pp", 100 * (occupancy_of(point) - predicted.occupancy)));
    }
    table.add_row(row);
  }
  const std::string title =
      prediction ? "\nGPU utilisation by interval, measured and predicted (DCGM_FI_DEV_GPU_UTIL; "
                   "busy: above 0 %; predicted: GPUs the replay allocated over the step "
                   "ending at the time; difference: measured - predicted occupancy)\n"
                 : "\nGPU utilisation by interval (DCGM_FI_DEV_GPU_UTIL; busy: above 0 %)\n";
  return title + (prediction ? prediction_text(*prediction) : "") + table.render();
}

nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
}

nlohmann::ordered_json reporting_json(const ValidateRun& run) {
  if (!run.prometheus->window.range_s) return nullptr;
  const ReportingCounts counts = reporting_counts(run.findings);
  return {{"tolerance_steps", run.gap_tolerance_steps},
          {"tolerance_s", run.gap_tolerance_steps * run.prometheus->window.step_s},
          {"nodes_stopped", counts.nodes_stopped},
          {"node_gaps", counts.node_gaps},
          {"gpus_stopped", counts.gpus_stopped},
          {"gpu_gaps", counts.gpu_gaps},
          {"gpus_not_judged", run.prometheus->gpus_not_judged}};
}

void add_prometheus_json(const ValidateRun& run, nlohmann::ordered_json& out) {
  const validate::PrometheusRead& read = *run.prometheus;
  const ReplayPrediction* prediction = run.prediction;
  nlohmann::ordered_json skipped = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : read.skipped_series) skipped[reason] = count;
  out["prometheus"] = {
      {"url", read.url},
      {"at", read.window.at_s ? nlohmann::ordered_json(prometheus::rfc3339(*read.window.at_s))
                              : nlohmann::ordered_json()},
      {"range_s", optional_number(read.window.range_s)},
      {"step_s", read.window.range_s ? nlohmann::ordered_json(read.window.step_s) : nlohmann::ordered_json()},
      {"queries", read.queries},
      {"series", read.series},
      {"nan_samples", read.nan_samples},
      {"skipped_series", skipped},
      {"reporting", reporting_json(run)}};
  if (prediction) {
    nlohmann::ordered_json skipped_rows = nlohmann::ordered_json::object();
    for (const auto& [reason, count] : prediction->skipped) skipped_rows[reason] = count;
    out["prediction"] = {{"sacct", prediction->sacct},
                         {"time_zone", prediction->time_zone},
                         {"policy", prediction->policy},
                         {"cluster", prediction->cluster},
                         {"gpus", prediction->gpus},
                         {"jobs", prediction->jobs},
                         {"jobs_after_range", prediction->jobs_after},
                         {"jobs_larger_than_cluster", prediction->jobs_rejected},
                         {"skipped_rows", skipped_rows},
                         {"first_submit", prometheus::rfc3339(prediction->first_submit_s)}};
  }
  auto& timeline = out["timeline"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < read.timeline.size(); ++i) {
    const validate::UtilizationPoint& point = read.timeline[i];
    nlohmann::ordered_json row = {{"time", prometheus::rfc3339(point.time_s)},
                                  {"gpus", point.gpus},
                                  {"busy_gpus", point.busy_gpus},
                                  {"occupancy", occupancy_of(point)},
                                  {"mean_utilization_percent", point.mean_utilization_percent}};
    if (prediction && i < prediction->points.size()) {
      const PredictedPoint& predicted = prediction->points[i];
      row["predicted"] = {{"busy_gpus", predicted.busy_gpus},
                          {"occupancy", predicted.occupancy},
                          {"occupancy_difference", occupancy_of(point) - predicted.occupancy}};
    }
    timeline.push_back(std::move(row));
  }
}

}  // namespace

std::string validate_inventory_text(const validate::Inventory& inventory) {
  TextTable table({"node", "GPUs", "model", "driver", "health"},
                  {Align::left, Align::right, Align::left, Align::left, Align::left});
  for (const FleetNode& node : inventory.fleet.nodes) {
    std::string health;
    for (const std::string& part : validate::health_of_node(inventory, node.name))
      health += (health.empty() ? "" : "; ") + part;
    table.add_row({node.name, std::to_string(gpu_count(node)), models_of(node), driver_of(node),
                   health.empty() ? "ok" : health});
  }
  return table.render("");
}

bool validate_failed(const ValidateRun& run) {
  for (const Finding& finding : run.findings)
    if (finding.severity >= run.fail_on) return true;
  return false;
}

std::string validate_text(const ValidateRun& run) {
  const auto counts = severity_counts(run.findings);
  const Totals totals = totals_of(*run.fleet);
  const std::string not_compared =
      run.cluster.empty() && totals.nccl_runs > 0
          ? fmt::format("\nbusbw of {} nccl-tests run(s) not compared with a design (no --cluster given)\n",
                        totals.nccl_runs)
          : "";
  const std::string source = run.prometheus ? prometheus_text(run) : "";
  const std::string timeline = run.prometheus ? timeline_text(*run.prometheus, run.prediction) : "";
  return source + inventory_text(run) + findings_text(run) + outliers_text(run) + timeline + not_compared +
         fmt::format(
             "\n{} nodes, {} GPUs, {} files ({} not understood); {} critical, {} warning, {} info, "
             "{} outliers; {} (--fail-on {})\n",
             run.fleet->nodes.size(), totals.gpus, totals.files, totals.not_understood,
             counts[static_cast<int>(Severity::critical)], counts[static_cast<int>(Severity::warning)],
             counts[static_cast<int>(Severity::info)], run.outliers.size(),
             validate_failed(run) ? "FAIL" : "PASS", validate::severity_name(run.fail_on));
}

nlohmann::ordered_json validate_json(const ValidateRun& run) {
  nlohmann::ordered_json out;
  out["schema"] = kValidateSchema;
  out["measured"] = run.fleet->directory;
  out["cluster"] = run.cluster.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(run.cluster);
  auto& nodes = out["inventory"] = nlohmann::ordered_json::array();
  for (const FleetNode& node : run.fleet->nodes) {
    auto files = nlohmann::ordered_json::array();
    for (const auto& file : node.files)
      files.push_back({{"path", file.path}, {"kind", validate::file_kind_name(file.kind)}});
    nodes.push_back({{"node", node.name},
                     {"gpus", gpu_count(node)},
                     {"model", models_of(node)},
                     {"driver", node.facts && node.facts->driver_version ? *node.facts->driver_version : ""},
                     {"cuda", node.facts && node.facts->cuda_version ? *node.facts->cuda_version : ""},
                     {"health", health_of(node, run.findings)},
                     {"files", files}});
  }
  auto& findings = out["findings"] = nlohmann::ordered_json::array();
  for (const Finding& finding : run.findings)
    findings.push_back(
        {{"rule", finding.rule},
         {"severity", validate::severity_name(finding.severity)},
         {"node", finding.node},
         {"gpu", finding.gpu ? nlohmann::ordered_json(*finding.gpu) : nlohmann::ordered_json()},
         {"file", finding.where.file},
         {"line",
          finding.where.line > 0 ? nlohmann::ordered_json(finding.where.line) : nlohmann::ordered_json()},
         {"message", finding.message}});
  auto& outliers = out["outliers"] = nlohmann::ordered_json::array();
  for (const Outlier& outlier : run.outliers)
    outliers.push_back(
        {{"metric", outlier.metric},
         {"unit", outlier.unit},
         {"group", outlier.group},
         {"group_size", outlier.group_size},
         {"node", outlier.node},
         {"gpu", outlier.gpu ? nlohmann::ordered_json(*outlier.gpu) : nlohmann::ordered_json()},
         {"value", outlier.value},
         {"median", outlier.median},
         {"robust_z", outlier.robust_z},
         {"spread", outlier.spread_from_mad ? "mad" : "mean_absolute_deviation"}});
  const auto counts = severity_counts(run.findings);
  const Totals totals = totals_of(*run.fleet);
  out["summary"] = {{"nodes", run.fleet->nodes.size()},
                    {"gpus", totals.gpus},
                    {"files", totals.files},
                    {"files_not_understood", totals.not_understood},
                    {"nccl_runs", totals.nccl_runs},
                    {"busbw_compared_with_design", !run.cluster.empty()},
                    {"critical", counts[static_cast<int>(Severity::critical)]},
                    {"warning", counts[static_cast<int>(Severity::warning)]},
                    {"info", counts[static_cast<int>(Severity::info)]},
                    {"outliers", run.outliers.size()},
                    {"outlier_threshold", run.outlier_threshold},
                    {"fail_on", validate::severity_name(run.fail_on)},
                    {"failed", validate_failed(run)}};
  if (run.prometheus) add_prometheus_json(run, out);
  return out;
}

namespace {

std::optional<int> optional_int(const JsonField& field) {
  if (field.json().is_null()) return std::nullopt;
  return int_of(field);
}

Severity severity_of(const JsonField& field) {
  const std::string name = field.string();
  const auto severity = validate::severity_from_name(name);
  if (!severity) field.fail("expected critical, warning or info, found '" + name + "'");
  return *severity;
}

ValidateNodeSummary node_summary_from_json(const JsonField& node) {
  return {node.child("node").string(),
          int_of(node.child("gpus")),
          node.child("model").string(),
          node.child("driver").string(),
          node.child("cuda").string(),
          node.child("health").string(),
          static_cast<int>(node.child("files").array_size())};
}

ValidateFindingSummary finding_summary_from_json(const JsonField& finding) {
  return {finding.child("rule").string(),   severity_of(finding.child("severity")),
          finding.child("node").string(),   optional_int(finding.child("gpu")),
          finding.child("file").string(),   optional_int(finding.child("line")),
          finding.child("message").string()};
}

ValidateOutlierSummary outlier_summary_from_json(const JsonField& outlier) {
  return {outlier.child("metric").string(),   outlier.child("unit").string(),
          outlier.child("group").string(),    outlier.child("node").string(),
          optional_int(outlier.child("gpu")), outlier.child("value").number(),
          outlier.child("median").number(),   outlier.child("robust_z").number()};
}

ValidateTimelinePoint timeline_point_from_json(const JsonField& point) {
  ValidateTimelinePoint out{point.child("time").string(),
                            int_of(point.child("gpus")),
                            int_of(point.child("busy_gpus")),
                            point.child("occupancy").number(),
                            point.child("mean_utilization_percent").number(),
                            std::nullopt,
                            std::nullopt};
  if (const auto predicted = point.optional_child("predicted")) {
    out.predicted_busy_gpus = predicted->child("busy_gpus").number();
    out.predicted_occupancy = predicted->child("occupancy").number();
  }
  return out;
}

}  // namespace

ValidateSummary validate_summary_from_json(const JsonField& root) {
  expect_schema(root, kValidateSchema, "validate --json");
  ValidateSummary summary;
  summary.measured = root.child("measured").string();
  const JsonField cluster = root.child("cluster");
  if (!cluster.json().is_null()) summary.cluster = cluster.string();
  const JsonField nodes = root.child("inventory");
  for (std::size_t i = 0; i < nodes.array_size(); ++i)
    summary.nodes.push_back(node_summary_from_json(nodes.element(i)));
  const JsonField findings = root.child("findings");
  for (std::size_t i = 0; i < findings.array_size(); ++i)
    summary.findings.push_back(finding_summary_from_json(findings.element(i)));
  const JsonField outliers = root.child("outliers");
  for (std::size_t i = 0; i < outliers.array_size(); ++i)
    summary.outliers.push_back(outlier_summary_from_json(outliers.element(i)));
  const JsonField totals = root.child("summary");
  summary.gpus = int_of(totals.child("gpus"));
  summary.files = int_of(totals.child("files"));
  summary.files_not_understood = int_of(totals.child("files_not_understood"));
  summary.critical = int_of(totals.child("critical"));
  summary.warning = int_of(totals.child("warning"));
  summary.info = int_of(totals.child("info"));
  summary.fail_on = severity_of(totals.child("fail_on"));
  summary.failed = boolean_of(totals.child("failed"));
  if (const auto timeline = root.optional_child("timeline")) {
    for (std::size_t i = 0; i < timeline->array_size(); ++i)
      summary.timeline.push_back(timeline_point_from_json(timeline->element(i)));
  }
  if (const auto prediction = root.optional_child("prediction")) {
    summary.prediction = prediction->child("policy").string() + " on " + prediction->child("sacct").string() +
                         ", times in " + prediction->child("time_zone").string();
  }
  return summary;
}

Result<ValidateSummary> read_validate_json(std::string_view text, const std::string& source) {
  return read_json_document<ValidateSummary>(text, source, validate_summary_from_json);
}

}  // namespace gputwin
