// Renders a `gputwin validate` run: the terminal report (inventory, findings by severity, outliers, summary)
// and its JSON (schema gputwin.validate/1, docs/validate.md); and the table of `gputwin validate inventory`.
//
//   ValidateRun run{&fleet, findings, outliers, "cluster.yaml", Severity::critical, 3.5};
//   std::cout << validate_text(run);
//   int status = validate_failed(run) ? 1 : 0;
//   std::cout << validate_inventory_text(take_inventory("measured/", checks).value());
//   Result<ValidateSummary> back = read_validate_json(text, "validate.json");   // validate --json read back
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/plan/replay_prediction.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/fleet.hpp"
#include "gputwin/validate/inventory.hpp"
#include "gputwin/validate/outliers.hpp"
#include "gputwin/validate/prometheus_fleet.hpp"

namespace gputwin {

inline constexpr const char* kValidateSchema = "gputwin.validate/1";

struct ValidateRun {
  const validate::Fleet* fleet = nullptr;
  std::vector<validate::Finding> findings;  // sorted by evaluate_checks
  std::vector<validate::Outlier> outliers;
  std::string cluster;  // the spec compared with; empty when none
  validate::Severity fail_on = validate::Severity::critical;
  double outlier_threshold = 0;
  // With `validate --prometheus`: the server, the queries and what was skipped, and the utilisation
  // timeline over a range (text: a "Prometheus" line and a table; JSON: "prometheus" and "timeline").
  const validate::PrometheusRead* prometheus = nullptr;
  // With `--sacct`: what simulate replay predicts for the same intervals (text: columns beside the measured
  // ones and a line saying what was replayed; JSON: "prediction" and each timeline point's "predicted").
  const ReplayPrediction* prediction = nullptr;
  // Over a range: the steps without a sample beyond which a node or GPU stopped reporting or went missing
  // (text: a "Reporting" line with the counts; JSON: "prometheus"."reporting").
  double gap_tolerance_steps = 0;
};

// A finding at or above the --fail-on severity exists.
[[nodiscard]] bool validate_failed(const ValidateRun& run);
[[nodiscard]] std::string validate_text(const ValidateRun& run);
[[nodiscard]] nlohmann::ordered_json validate_json(const ValidateRun& run);
// One line per node: node, GPUs, model, driver, health ("ok", or per GPU the rules of its findings).
[[nodiscard]] std::string validate_inventory_text(const validate::Inventory& inventory);

// What a gputwin.validate/1 document holds for a program that tracks a fleet's health over runs: the
// inventory, every finding and outlier, and the summary. The files of each node are counted, not listed.
struct ValidateNodeSummary {
  std::string node;
  int gpus = 0;
  std::string model;
  std::string driver;  // empty when no capture gave one
  std::string cuda;
  std::string health;  // "ok" or "2 critical, 1 warning"
  int files = 0;
};
struct ValidateFindingSummary {
  std::string rule;
  validate::Severity severity = validate::Severity::info;
  std::string node;
  std::optional<int> gpu;
  std::string file;
  std::optional<int> line;
  std::string message;
};
struct ValidateOutlierSummary {
  std::string metric;
  std::string unit;
  std::string group;
  std::string node;
  std::optional<int> gpu;
  double value = 0;
  double median = 0;
  double robust_z = 0;
};
// One interval of a `validate --prometheus --range` timeline, with the replay's prediction when --sacct gave
// one.
struct ValidateTimelinePoint {
  std::string time;  // RFC 3339, as printed
  int gpus = 0;
  int busy_gpus = 0;
  double occupancy = 0;  // 0..1
  double mean_utilization_percent = 0;
  std::optional<double> predicted_busy_gpus;
  std::optional<double> predicted_occupancy;  // 0..1
};
struct ValidateSummary {
  std::string measured;  // the directory read, or the Prometheus URL
  std::string cluster;   // the spec compared with; empty when none
  std::vector<ValidateNodeSummary> nodes;
  std::vector<ValidateFindingSummary> findings;
  std::vector<ValidateOutlierSummary> outliers;
  int gpus = 0;
  int files = 0;
  int files_not_understood = 0;
  int critical = 0;
  int warning = 0;
  int info = 0;
  validate::Severity fail_on = validate::Severity::critical;
  bool failed = false;
  std::vector<ValidateTimelinePoint> timeline;  // with --prometheus --range; empty otherwise
  std::string prediction;  // with --sacct: the policy and history replayed ("easy on sacct.psv"); else empty
};

// Reads a gputwin.validate/1 document back; throws InputFailure naming the field (JSON pointer) when the
// schema is another, a field is missing or of the wrong type, or a severity is not one the checks use.
[[nodiscard]] ValidateSummary validate_summary_from_json(const JsonField& root);
[[nodiscard]] Result<ValidateSummary> read_validate_json(std::string_view text, const std::string& source);

}  // namespace gputwin
