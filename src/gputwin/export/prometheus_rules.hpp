// Prometheus recording and alerting rules for a designed cluster: what `gputwin export prometheus` writes.
//
//   Result<PrometheusRuleSettings> settings = load_prometheus_rule_settings(data +
//   "/export/prometheus-rules.yaml"); PrometheusRuleInputs inputs{cluster, catalog, checks,
//   failure_rates.replacement_thresholds, settings.value()}; inputs.utilization =
//   read_predicted_utilization("replay.json").value();   // optional ExportFiles files =
//   prometheus_rules(inputs); files.text("gputwin-recording.rules.yml")   // per rack: summed GPU power and
//   the GPU power budget files.text("gputwin-alerts.rules.yml")      // the alerts, each citing its source in
//   its annotations
//
// The rules read dcgm-exporter's series as it ships them (metric names of its default counters file, labels
// Hostname and gpu). The design gives each rack's hosts and power limit, and each node type's GPUs; NVIDIA's
// thresholds come from data (checks.yaml's drain XIDs, failure-rates.yaml's page-retirement and row-remap
// limits); the predicted utilisation from a `simulate replay --json` result on the design. Nothing needs a
// GPU or a server: the text is checked by `promtool check rules` in tests/prometheus/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/export/export_files.hpp"
#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/validate/checks_data.hpp"

namespace gputwin {

// One alert's severity label and hold time (`for:`, a Prometheus duration such as 5m), with why.
struct PrometheusAlertSetting {
  std::string name;
  std::string severity;
  std::string hold;
  std::string source;
};

// data/export/prometheus-rules.yaml: severities and hold times of the alerts, the utilisation window and
// margin.
struct PrometheusRuleSettings {
  std::vector<PrometheusAlertSetting> alerts;  // every alert the exporter writes, by name
  std::string utilization_window;              // Prometheus duration
  std::string utilization_window_source;
  double utilization_margin = 0;  // fraction, 0.10 = measured may be 10 % below the prediction
  std::string utilization_margin_source;
  std::string
      scrape_job;  // the job that scrapes dcgm-exporter: the `up` series the not-reporting alert reads
  std::string scrape_job_source;
  std::string rate_window;  // Prometheus duration: the window of the PCIe replay and NVLink error rates
  std::string rate_window_source;
  // The single-bit (corrected) ECC rate alert: off unless enabled (no published limit; see the data file).
  bool ecc_single_bit_enabled = false;
  std::string ecc_single_bit_enabled_source;
  double ecc_single_bit_max_per_minute = 0;  // corrected errors a minute, over rate_window
  std::string ecc_single_bit_max_per_minute_source;

  [[nodiscard]] const PrometheusAlertSetting& alert(std::string_view name) const;
};

[[nodiscard]] Result<PrometheusRuleSettings> load_prometheus_rule_settings(const std::string& path);
[[nodiscard]] Result<PrometheusRuleSettings> parse_prometheus_rule_settings(const std::string& text,
                                                                            const std::string& name);

// True for a scrape job name the exporter writes into a label matcher: letters, digits, '_', '-', '.'.
[[nodiscard]] bool is_scrape_job_name(std::string_view text);

// True for a Prometheus duration this exporter writes: digits and one unit of ms, s, m, h, d, w, y ("90s",
// "1h").
[[nodiscard]] bool is_prometheus_duration(std::string_view text);

// What `simulate replay --json` predicts for the cluster: the share of GPU time allocated to jobs.
struct PredictedUtilization {
  double fraction = 0;  // 0..1
  std::string source;   // the result file
  std::string policy;
  int jobs = 0;
};

// Reads a gputwin.replay/1 document; a located error when it is not one.
[[nodiscard]] Result<PredictedUtilization> read_predicted_utilization(const std::string& path);

struct PrometheusRuleInputs {
  const Cluster& cluster;
  const Catalog& catalog;
  const validate::ChecksData& checks;
  const std::vector<ReplacementThreshold>& replacement_thresholds;
  PrometheusRuleSettings settings;
  std::optional<PredictedUtilization> utilization;  // no utilisation alert without it
  std::optional<std::string> hold_override;         // every alert's `for:` when set (tests use 0s)
};

// gputwin-recording.rules.yml and gputwin-alerts.rules.yml, in that order.
[[nodiscard]] ExportFiles prometheus_rules(const PrometheusRuleInputs& inputs);

}  // namespace gputwin
