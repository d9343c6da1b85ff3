#include "gputwin/export/prometheus_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/core/yaml_input.hpp"
#include "gputwin/report/json_document.hpp"
#include "gputwin/report/replay_report.hpp"

namespace gputwin {
namespace {

// The alerts the exporter writes, in the order they are written; the settings file must name each once.
constexpr const char* kRackPower = "GputwinRackGpuPowerOverDesign";
constexpr const char* kGpusMissing = "GputwinNodeGpusMissing";
constexpr const char* kXidDrain = "GputwinGpuXidNeedsDrain";
constexpr const char* kRowRemapFailure = "GputwinGpuRowRemapFailure";
constexpr const char* kRowRemapsAtLimit = "GputwinGpuRowRemapsAtLimit";
constexpr const char* kRetiredPagesAtLimit = "GputwinGpuRetiredPagesAtLimit";
constexpr const char* kUtilization = "GputwinUtilizationBelowPrediction";
constexpr const char* kNodeNotReporting = "GputwinNodeNotReporting";
constexpr const char* kEccUncorrectable = "GputwinGpuEccUncorrectable";
constexpr const char* kPcieReplays = "GputwinGpuPcieReplayRate";
constexpr const char* kNvlinkErrors = "GputwinGpuNvlinkErrors";
constexpr const char* kEccSingleBitRate = "GputwinGpuEccSingleBitRate";
constexpr std::array<const char*, 12> kAlertNames = {
    kRackPower,        kGpusMissing,      kNodeNotReporting,    kXidDrain,
    kRowRemapFailure,  kRowRemapsAtLimit, kRetiredPagesAtLimit, kEccUncorrectable,
    kEccSingleBitRate, kPcieReplays,      kNvlinkErrors,        kUtilization};

// The failure-rates.yaml mechanisms whose limits the memory alerts use.
constexpr const char* kRowRemapping = "row remapping";
constexpr const char* kPageRetirement = "dynamic page retirement";

constexpr const char* kDcgmExporterSource =
    "dcgm-exporter etc/default-counters.csv (NVIDIA/dcgm-exporter; metric names and the Hostname and gpu "
    "labels)";

double fraction_of_percent(const YamlField& field) {
  const std::string text = field.text();
  if (text.size() < 2 || text.back() != '%')
    field.fail("expected a percentage such as 10%, got '" + text + "'");
  double value = 0;
  try {
    std::size_t used = 0;
    value = std::stod(text.substr(0, text.size() - 1), &used);
    if (used != text.size() - 1) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    field.fail("expected a percentage such as 10%, got '" + text + "'");
  }
  if (value < 0 || value >= 100)
    field.fail("expected a percentage from 0% to below 100%, got '" + text + "'");
  return value / 100.0;
}

std::string duration_of(const YamlField& field) {
  const std::string text = field.text();
  if (!is_prometheus_duration(text))
    field.fail("expected a Prometheus duration (digits and one of ms, s, m, h, d, w, y, such as 5m), got '" +
               text + "'");
  return text;
}

PrometheusRuleSettings read_settings(const YamlDocument& document) {
  const YamlField root = document.root();
  root.expect_keys({"schema", "alerts", "utilization", "scrape_job", "rate_window", "ecc_single_bit"});
  if (root.child("schema").text() != "gputwin.prometheus-rules/1")
    root.child("schema").fail("expected gputwin.prometheus-rules/1");
  PrometheusRuleSettings settings;
  for (const YamlField& item : root.child("alerts").items()) {
    item.expect_keys({"name", "severity", "for", "source"});
    PrometheusAlertSetting alert;
    alert.name = item.child("name").text();
    if (std::find_if(kAlertNames.begin(), kAlertNames.end(),
                     [&](const char* n) { return alert.name == n; }) == kAlertNames.end())
      item.child("name").fail("unknown alert '" + alert.name + "'");
    if (std::any_of(settings.alerts.begin(), settings.alerts.end(),
                    [&](const PrometheusAlertSetting& a) { return a.name == alert.name; }))
      item.child("name").fail("alert '" + alert.name + "' is listed twice");
    alert.severity = item.child("severity").one_of({"critical", "warning", "info"});
    alert.hold = duration_of(item.child("for"));
    alert.source = item.child("source").text_or_list();
    settings.alerts.push_back(alert);
  }
  for (const char* alert : kAlertNames) {
    if (std::none_of(settings.alerts.begin(), settings.alerts.end(),
                     [&](const PrometheusAlertSetting& a) { return a.name == alert; }))
      root.child("alerts").fail(std::string("alert '") + alert + "' is missing");
  }
  const YamlField utilization = root.child("utilization");
  utilization.expect_keys({"window", "margin"});
  const YamlField window = utilization.child("window");
  window.expect_keys({"value", "source"});
  settings.utilization_window = duration_of(window.child("value"));
  settings.utilization_window_source = window.child("source").text_or_list();
  const YamlField margin = utilization.child("margin");
  margin.expect_keys({"value", "source"});
  settings.utilization_margin = fraction_of_percent(margin.child("value"));
  settings.utilization_margin_source = margin.child("source").text_or_list();
  const YamlField job = root.child("scrape_job");
  job.expect_keys({"value", "source"});
  settings.scrape_job = job.child("value").text();
  if (!is_scrape_job_name(settings.scrape_job))
    job.child("value").fail("expected a scrape job name (letters, digits, '_', '-', '.'), got '" +
                            settings.scrape_job + "'");
  settings.scrape_job_source = job.child("source").text_or_list();
  const YamlField rate = root.child("rate_window");
  rate.expect_keys({"value", "source"});
  settings.rate_window = duration_of(rate.child("value"));
  settings.rate_window_source = rate.child("source").text_or_list();
  const YamlField sbe = root.child("ecc_single_bit");
  sbe.expect_keys({"enabled", "max_rate_per_minute"});
  const YamlField enabled = sbe.child("enabled");
  enabled.expect_keys({"value", "source"});
  settings.ecc_single_bit_enabled = enabled.child("value").boolean();
  settings.ecc_single_bit_enabled_source = enabled.child("source").text_or_list();
  const YamlField sbe_rate = sbe.child("max_rate_per_minute");
  sbe_rate.expect_keys({"value", "source"});
  settings.ecc_single_bit_max_per_minute = sbe_rate.child("value").positive_number();
  settings.ecc_single_bit_max_per_minute_source = sbe_rate.child("source").text_or_list();
  return settings;
}

// ---- writing
// ------------------------------------------------------------------------------------------------

// A YAML double-quoted scalar: JSON's string escaping is valid YAML.
std::string yaml_quoted(std::string_view text) {
  return nlohmann::json(std::string(text)).dump();
}

// A host name as a literal inside a PromQL regular expression.
std::string regex_literal(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (std::string_view(".+*?()[]{}|^$\\").find(c) != std::string_view::npos) out += "\\\\";
    out += c;
  }
  return out;
}

std::string host_regex(const std::vector<std::string>& hosts) {
  std::string regex;
  for (const std::string& host : hosts) regex += (regex.empty() ? "" : "|") + regex_literal(host);
  return regex;
}

// A number as PromQL reads it, without trailing noise: 1252, 0.7245.
std::string number_text(double value) {
  return fmt::format("{:.6g}", value);
}

struct Rule {
  std::string alert;  // empty for a recording rule
  std::string record;
  std::string expr;
  std::string hold;
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<std::string, std::string>> annotations;
  std::string comment;  // written above the rule
};

void write_rule(std::string& out, const Rule& rule) {
  if (!rule.comment.empty()) out += "      # " + rule.comment + "\n";
  if (rule.alert.empty())
    out += "      - record: " + rule.record + "\n";
  else
    out += "      - alert: " + rule.alert + "\n";
  out += "        expr: " + yaml_quoted(rule.expr) + "\n";
  if (!rule.alert.empty()) out += "        for: " + rule.hold + "\n";
  if (!rule.labels.empty()) {
    out += "        labels:\n";
    for (const auto& [key, value] : rule.labels) out += "          " + key + ": " + yaml_quoted(value) + "\n";
  }
  if (!rule.annotations.empty()) {
    out += "        annotations:\n";
    for (const auto& [key, value] : rule.annotations)
      out += "          " + key + ": " + yaml_quoted(value) + "\n";
  }
}

void write_group(std::string& out, const std::string& name, const std::vector<Rule>& rules) {
  out += "  - name: " + name + "\n    rules:\n";
  for (const Rule& rule : rules) write_rule(out, rule);
}

std::string header(const Cluster& cluster, std::string_view what) {
  return fmt::format("# gputwin export prometheus: {} of \"{}\" ({} nodes, {} GPUs, {} racks)\n", what,
                     cluster.name, cluster.nodes, cluster.gpus, cluster.racks.size());
}

// ---- what the design says
// -----------------------------------------------------------------------------------

struct RackBudget {
  std::string rack;
  std::vector<std::string> hosts;  // GPU nodes in the rack
  Power limit;
  Power other_max;  // everything but the GPUs at their maximum
  Power gpu_tdp;    // the GPUs' TDP summed
  int gpus = 0;
  [[nodiscard]] Power budget() const { return limit - other_max; }
};

std::vector<RackBudget> rack_budgets(const Cluster& cluster, const Catalog& catalog) {
  std::vector<RackBudget> budgets;
  for (const Rack& rack : cluster.racks) {
    RackBudget budget{rack.name, {}, rack.power_limit, rack.power_max, Power{}, 0};
    for (const int index : rack.devices) {
      const Device& device = cluster.devices[index];
      const NodeType* type = device.kind == DeviceKind::node ? cluster.node_type_of(device) : nullptr;
      if (type == nullptr || type->gpus == 0 || type->accelerator.empty()) continue;
      budget.hosts.push_back(device.name);
      budget.gpus += type->gpus;
      budget.gpu_tdp = budget.gpu_tdp + catalog.get<Accelerator>(type->accelerator).tdp * type->gpus;
    }
    if (budget.hosts.empty()) continue;
    budget.other_max = rack.power_max - budget.gpu_tdp;
    budgets.push_back(budget);
  }
  return budgets;
}

// Compute nodes with GPUs by GPU count, in the order the counts first appear.
std::vector<std::pair<int, std::vector<std::string>>> hosts_by_gpus(const Cluster& cluster) {
  std::vector<std::pair<int, std::vector<std::string>>> groups;
  for (const Device& device : cluster.devices) {
    const NodeType* type = device.kind == DeviceKind::node ? cluster.node_type_of(device) : nullptr;
    if (type == nullptr || type->gpus == 0) continue;
    auto group =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == type->gpus; });
    if (group == groups.end()) group = groups.insert(groups.end(), {type->gpus, {}});
    group->second.push_back(device.name);
  }
  return groups;
}

const ReplacementThreshold* threshold_of(const std::vector<ReplacementThreshold>& thresholds,
                                         std::string_view mechanism) {
  const auto found = std::find_if(thresholds.begin(), thresholds.end(),
                                  [&](const ReplacementThreshold& t) { return t.mechanism == mechanism; });
  return found == thresholds.end() ? nullptr : &*found;
}

// ---- the rules
// ----------------------------------------------------------------------------------------------

class RuleWriter {
 public:
  explicit RuleWriter(const PrometheusRuleInputs& inputs) : inputs_(inputs) {}

  Rule alert(const char* name, std::string expr) const {
    const PrometheusAlertSetting& setting = inputs_.settings.alert(name);
    Rule rule;
    rule.alert = name;
    rule.expr = std::move(expr);
    rule.hold = inputs_.hold_override.value_or(setting.hold);
    rule.labels = {{"severity", setting.severity}};
    return rule;
  }

  [[nodiscard]] std::string severity_and_hold_source(const char* name) const {
    const PrometheusAlertSetting& setting = inputs_.settings.alert(name);
    return "severity and hold: " + (inputs_.hold_override ? "--for " + *inputs_.hold_override + "; " : "") +
           setting.source + " (data/export/prometheus-rules.yaml)";
  }

 private:
  const PrometheusRuleInputs& inputs_;
};

std::vector<Rule> rack_power_records(const std::vector<RackBudget>& budgets) {
  std::vector<Rule> rules;
  for (const RackBudget& rack : budgets) {
    Rule sum;
    sum.record = "gputwin:rack_gpu_power:sum_watts";
    sum.expr = "sum(DCGM_FI_DEV_POWER_USAGE{Hostname=~\"" + host_regex(rack.hosts) + "\"})";
    sum.labels = {{"rack", rack.rack}};
    sum.comment = fmt::format("{}: {} nodes, {} GPUs", rack.rack, rack.hosts.size(), rack.gpus);
    rules.push_back(sum);
    Rule budget;
    budget.record = "gputwin:rack_gpu_power_budget:watts";
    budget.expr = "vector(" + number_text(in_watts(rack.budget())) + ")";
    budget.labels = {{"rack", rack.rack}};
    budget.comment =
        fmt::format("{}: limit {} less {} the rest of the rack may draw at maximum (GPUs' TDP {})", rack.rack,
                    format_power(rack.limit), format_power(rack.other_max), format_power(rack.gpu_tdp));
    rules.push_back(budget);
  }
  return rules;
}

Rule rack_power_alert(const RuleWriter& writer, const Cluster& cluster) {
  Rule rule = writer.alert(kRackPower,
                           "gputwin:rack_gpu_power:sum_watts > on(rack) gputwin:rack_gpu_power_budget:watts");
  rule.annotations = {
      {"summary",
       "Rack {{ $labels.rack }}: its GPUs draw {{ $value | printf \"%.0f\" }} W, over the design's GPU "
       "power budget"},
      {"description",
       "The GPUs of the rack's hosts (DCGM_FI_DEV_POWER_USAGE summed) draw more than the rack's "
       "designed power limit leaves them once every other part of the rack draws its maximum."},
      {"source",
       "design \"" + cluster.name +
           "\": each rack's power limit (facility.rack_power_limit, or the cooling's limit when lower) "
           "less the rack's maximum draw other than its GPUs (catalog power_max of its parts minus the "
           "accelerators' TDP); hosts per rack from the design's placement; " +
           kDcgmExporterSource + "; " + writer.severity_and_hold_source(kRackPower)}};
  return rule;
}

std::vector<Rule> gpus_missing_alerts(const RuleWriter& writer, const Cluster& cluster) {
  const auto groups = hosts_by_gpus(cluster);
  std::vector<Rule> rules;
  for (const auto& [gpus, hosts] : groups) {
    // With one GPU count in the cluster every host is judged; otherwise each count names its hosts.
    const std::string selector = groups.size() == 1 ? "" : "{Hostname=~\"" + host_regex(hosts) + "\"}";
    Rule rule =
        writer.alert(kGpusMissing, "count by (Hostname) (count by (Hostname, gpu) (DCGM_FI_DEV_GPU_TEMP" +
                                       selector + ")) < " + std::to_string(gpus));
    rule.labels.emplace_back("designed_gpus", std::to_string(gpus));
    rule.annotations = {
        {"summary",
         "{{ $labels.Hostname }}: {{ $value }} GPUs report where the design has " + std::to_string(gpus)},
        {"description",
         "Fewer GPUs of the node have series in dcgm-exporter than the design fits: a GPU has "
         "fallen off the bus, or was never fitted. A node with no series at all is not seen by "
         "this rule: GputwinNodeNotReporting is."},
        {"source", "design \"" + cluster.name +
                       "\": GPUs per node of the node's system (catalog systems.yaml " +
                       "accelerators); data/validate/checks.yaml gpu-count-mismatch; " + kDcgmExporterSource +
                       " (DCGM_FI_DEV_GPU_TEMP, one series per GPU); " +
                       writer.severity_and_hold_source(kGpusMissing)}};
    rules.push_back(rule);
  }
  return rules;
}

// One record per designed GPU node: the node list the not-reporting alert compares with.
std::vector<Rule> designed_node_records(const Cluster& cluster) {
  std::vector<Rule> rules;
  for (const auto& [gpus, hosts] : hosts_by_gpus(cluster)) {
    for (const std::string& host : hosts) {
      Rule rule;
      rule.record = "gputwin:designed_node:info";
      rule.expr = "vector(" + std::to_string(gpus) + ")";
      rule.labels = {{"Hostname", host}};
      rules.push_back(rule);
    }
  }
  return rules;
}

// A designed node absent from every DCGM series: its exporter's target is missing from the scrape job
// (value -1), down (0, from `up`), or up with no GPU series (1). The node is matched to `up` by the target's
// instance without its port.
Rule node_not_reporting_alert(const RuleWriter& writer, const Cluster& cluster,
                              const PrometheusRuleSettings& settings) {
  const std::string up = "label_replace(up{job=\"" + settings.scrape_job +
                         "\"}, \"Hostname\", \"$1\", \"instance\", \"([^:]+)(?::[0-9]+)?\")";
  Rule rule = writer.alert(kNodeNotReporting,
                           "(max by (Hostname) (" + up +
                               ") or on (Hostname) (gputwin:designed_node:info * 0 - 1))\n"
                               "  and on (Hostname) (gputwin:designed_node:info unless on (Hostname) "
                               "group by (Hostname) ({__name__=~\"DCGM_FI_.*\"}))");
  rule.annotations = {
      {"summary",
       "{{ $labels.Hostname }}: no dcgm-exporter series at all ({{ if lt $value 0.0 }}no target of scrape "
       "job " +
           settings.scrape_job +
           "{{ else if eq $value 0.0 }}its exporter is down: up == 0{{ else }}its exporter answers "
           "without GPU series{{ end }})"},
      {"description",
       "A node of the design has no DCGM_FI_* series: GputwinNodeGpusMissing cannot see it. Value -1: no "
       "target of the scrape job names it (instance without its port is the node's name; relabel instance "
       "when targets are IP addresses); 0: the target is down; 1: dcgm-exporter answers but reports no GPU."},
      {"source", "design \"" + cluster.name +
                     "\": its GPU nodes (gputwin:designed_node:info); scrape job: " + settings.scrape_job +
                     " (" + settings.scrape_job_source + "); Prometheus's up series of each target; " +
                     kDcgmExporterSource + "; " + writer.severity_and_hold_source(kNodeNotReporting)}};
  return rule;
}

Rule xid_alert(const RuleWriter& writer, const validate::CheckRule& xid_rule) {
  const auto found = xid_rule.word_parameters.find("xids");
  const std::vector<std::string> xids =
      found == xid_rule.word_parameters.end() ? std::vector<std::string>{} : found->second;
  std::string expr;
  std::string list;
  for (const std::string& xid : xids) {
    expr += (expr.empty() ? "" : " or ") + std::string("DCGM_FI_DEV_XID_ERRORS == ") + xid;
    list += (list.empty() ? "" : ", ") + xid;
  }
  Rule rule = writer.alert(kXidDrain, expr);
  rule.annotations = {
      {"summary", "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: XID {{ $value }}, drain the node"},
      {"description",
       "The GPU's last XID (" + list +
           ") is one NVIDIA answers with a GPU reset, a node reboot or a service call: drain the "
           "node so no new job lands on it."},
      {"source", "data/validate/checks.yaml xid-critical: " + xid_rule.source + "; " + kDcgmExporterSource +
                     " (DCGM_FI_DEV_XID_ERRORS); " + writer.severity_and_hold_source(kXidDrain)}};
  return rule;
}

Rule row_remap_failure_alert(const RuleWriter& writer, const validate::CheckRule& check) {
  Rule rule = writer.alert(kRowRemapFailure, "DCGM_FI_DEV_ROW_REMAP_FAILURE > 0");
  rule.annotations = {
      {"summary", "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: row remapping failed"},
      {"description",
       "A bank ran out of spare rows: the GPU meets NVIDIA's RMA criteria. Drain the node and "
       "replace the GPU."},
      {"source", "data/validate/checks.yaml row-remap-failure: " + check.source + "; " + kDcgmExporterSource +
                     " (DCGM_FI_DEV_ROW_REMAP_FAILURE); " +
                     writer.severity_and_hold_source(kRowRemapFailure)}};
  return rule;
}

Rule row_remaps_at_limit_alert(const RuleWriter& writer, const ReplacementThreshold& limit) {
  Rule rule =
      writer.alert(kRowRemapsAtLimit,
                   "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS + DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS >= " +
                       std::to_string(limit.limit));
  rule.annotations = {
      {"summary",
       "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: {{ $value }} rows remapped, at NVIDIA's limit of " +
           std::to_string(limit.limit)},
      {"description", "The GPU has used the row remappings its memory allows (" + limit.generation +
                          "); the "
                          "next uncorrectable error cannot be remapped."},
      {"source", "data/reliability/failure-rates.yaml replacement_thresholds (" + limit.mechanism +
                     "): " + limit.source + "; " + kDcgmExporterSource +
                     " (DCGM_FI_DEV_{UNCORRECTABLE,CORRECTABLE}_REMAPPED_ROWS); " +
                     writer.severity_and_hold_source(kRowRemapsAtLimit)}};
  return rule;
}

Rule retired_pages_alert(const RuleWriter& writer, const ReplacementThreshold& limit) {
  Rule rule = writer.alert(kRetiredPagesAtLimit, "DCGM_FI_DEV_RETIRED_SBE + DCGM_FI_DEV_RETIRED_DBE >= " +
                                                     std::to_string(limit.limit));
  rule.annotations = {
      {"summary",
       "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: {{ $value }} pages retired, at NVIDIA's limit of " +
           std::to_string(limit.limit)},
      {"description",
       "The GPU (" + limit.generation +
           ") has retired as many pages as NVIDIA's RMA criteria allow. dcgm-exporter ships "
           "DCGM_FI_DEV_RETIRED_SBE and _DBE commented out: enable them in its counters file."},
      {"source", "data/reliability/failure-rates.yaml replacement_thresholds (" + limit.mechanism + "): " +
                     limit.source + "; " + kDcgmExporterSource + " (DCGM_FI_DEV_RETIRED_SBE, _DBE); " +
                     writer.severity_and_hold_source(kRetiredPagesAtLimit)}};
  return rule;
}

// A rule parameter of data/validate/checks.yaml as PromQL reads it.
std::string parameter_text(const validate::CheckRule& rule, const std::string& name) {
  return number_text(rule.number_parameters.at(name));
}

Rule ecc_uncorrectable_alert(const RuleWriter& writer, const validate::CheckRule& check) {
  Rule rule = writer.alert(kEccUncorrectable, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL > 0");
  rule.annotations = {
      {"summary", "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: {{ $value }} uncorrectable ECC errors"},
      {"description",
       "Double-bit (uncorrectable) ECC errors since the driver loaded: the processes hit were terminated "
       "and the GPU needs a recovery action. dcgm-exporter ships DCGM_FI_DEV_ECC_DBE_VOL_TOTAL commented "
       "out: enable it in its counters file."},
      {"source", "data/validate/checks.yaml ecc-uncorrectable: " + check.source + "; " + kDcgmExporterSource +
                     " (DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, commented out there); " +
                     writer.severity_and_hold_source(kEccUncorrectable)}};
  return rule;
}

Rule ecc_single_bit_alert(const RuleWriter& writer, const PrometheusRuleSettings& settings) {
  const std::string limit = number_text(settings.ecc_single_bit_max_per_minute);
  const std::string& window = settings.rate_window;
  Rule rule =
      writer.alert(kEccSingleBitRate, "rate(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL[" + window + "]) * 60 > " + limit);
  rule.annotations = {
      {"summary",
       "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: {{ $value | printf \"%.1f\" }} corrected "
       "(single-bit) ECC errors per minute, above " +
           limit},
      {"description",
       "Single-bit ECC errors are corrected by the GPU and do not stop a job; a GPU correcting them at a "
       "rising rate is one whose memory is degrading. The limit is the user's (a gputwin default, not a "
       "published figure: NVIDIA publishes none). The driver reports a high rate itself as XID 92, which "
       "GputwinGpuXidNeedsDrain watches. dcgm-exporter ships DCGM_FI_DEV_ECC_SBE_VOL_TOTAL commented out: "
       "enable it in its counters file."},
      {"source", "limit " + limit + " a minute: " + settings.ecc_single_bit_max_per_minute_source +
                     "; enabled: " + settings.ecc_single_bit_enabled_source +
                     "; rate window: " + settings.rate_window_source + "; " + kDcgmExporterSource +
                     " (DCGM_FI_DEV_ECC_SBE_VOL_TOTAL, commented out there); " +
                     writer.severity_and_hold_source(kEccSingleBitRate)}};
  return rule;
}

Rule pcie_replays_alert(const RuleWriter& writer, const validate::CheckRule& check, const std::string& window,
                        const std::string& window_source) {
  const std::string limit = parameter_text(check, "max_rate_per_minute");
  Rule rule =
      writer.alert(kPcieReplays, "rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER[" + window + "]) * 60 > " + limit);
  rule.annotations = {{"summary",
                       "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: {{ $value | printf \"%.1f\" }} PCIe "
                       "replays per minute, above " +
                           limit},
                      {"description",
                       "The GPU's PCIe link retransmits packets after link errors at a rate DCGM's health "
                       "watch calls unhealthy: check the riser, cable or seating."},
                      {"source", "data/validate/checks.yaml pcie-replays max_rate_per_minute: " +
                                     check.parameter_sources.at("max_rate_per_minute") +
                                     "; rate window: " + window_source + "; " + kDcgmExporterSource +
                                     " (DCGM_FI_DEV_PCIE_REPLAY_COUNTER, in the default file); " +
                                     writer.severity_and_hold_source(kPcieReplays)}};
  return rule;
}

Rule nvlink_errors_alert(const RuleWriter& writer, const validate::CheckRule& check,
                         const std::string& window, const std::string& window_source) {
  const std::string crc = parameter_text(check, "max_crc_rate_per_second");
  Rule rule = writer.alert(
      kNvlinkErrors, "rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL[" + window +
                         "]) + rate(DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL[" + window + "]) > " + crc +
                         " or increase(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL[" + window +
                         "]) > 0 or increase(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL[" + window +
                         "]) > 0");
  rule.annotations = {
      {"summary", "{{ $labels.Hostname }} GPU {{ $labels.gpu }}: NVLink errors ({{ $value }})"},
      {"description", "NVLink CRC errors above " + crc +
                          " per second, or any NVLink replay or recovery error, over " + window +
                          ": a link is degrading. dcgm-exporter ships the NVLink error counters "
                          "commented out: enable them in its counters file."},
      {"source",
       "data/validate/checks.yaml nvlink-errors: " + check.source +
           "; max_crc_rate_per_second: " + check.parameter_sources.at("max_crc_rate_per_second") +
           "; rate window: " + window_source + "; " + kDcgmExporterSource +
           " (DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_COUNT_TOTAL, commented out "
           "there); " +
           writer.severity_and_hold_source(kNvlinkErrors)}};
  return rule;
}

Rule utilization_alert(const RuleWriter& writer, const PrometheusRuleInputs& inputs,
                       const PredictedUtilization& predicted) {
  const PrometheusRuleSettings& settings = inputs.settings;
  const double floor = predicted.fraction * (1.0 - settings.utilization_margin);
  Rule rule =
      writer.alert(kUtilization, "avg(avg_over_time(DCGM_FI_DEV_GPU_UTIL[" + settings.utilization_window +
                                     "])) / 100 < " + number_text(floor));
  rule.annotations = {
      {"summary", "Fleet GPU utilisation {{ $value | humanizePercentage }} over " +
                      settings.utilization_window + ", below the predicted " +
                      fmt::format("{:.1f}", predicted.fraction * 100) + " %"},
      {"description",
       fmt::format("The mean DCGM_FI_DEV_GPU_UTIL of every GPU over {} is below {:.1f} % ({:.1f} % "
                   "predicted less a {:.0f} % margin). The prediction is the share of GPU time "
                   "allocated to jobs; a GPU allocated but idle counts as unused here, so either "
                   "fewer jobs ran than predicted or they left GPUs idle.",
                   settings.utilization_window, floor * 100, predicted.fraction * 100,
                   settings.utilization_margin * 100)},
      {"source", "gputwin simulate replay --json on the design (" + predicted.source + ": policy " +
                     predicted.policy + ", " + std::to_string(predicted.jobs) +
                     " jobs, utilisation); window: " + settings.utilization_window_source +
                     "; margin: " + settings.utilization_margin_source + "; " + kDcgmExporterSource +
                     " (DCGM_FI_DEV_GPU_UTIL); " + writer.severity_and_hold_source(kUtilization)}};
  return rule;
}

}  // namespace

const PrometheusAlertSetting& PrometheusRuleSettings::alert(std::string_view name) const {
  for (const PrometheusAlertSetting& setting : alerts)
    if (setting.name == name) return setting;
  throw std::out_of_range("no setting for alert " + std::string(name));
}

bool is_scrape_job_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
  });
}

bool is_prometheus_duration(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return false;
  const std::string_view unit = text.substr(digits);
  return unit == "ms" || unit == "s" || unit == "m" || unit == "h" || unit == "d" || unit == "w" ||
         unit == "y";
}

Result<PrometheusRuleSettings> load_prometheus_rule_settings(const std::string& path) {
  return result_of<PrometheusRuleSettings>([&] { return read_settings(YamlDocument::load(path)); });
}

Result<PrometheusRuleSettings> parse_prometheus_rule_settings(const std::string& text,
                                                              const std::string& name) {
  return result_of<PrometheusRuleSettings>([&] { return read_settings(YamlDocument::parse(text, name)); });
}

Result<PredictedUtilization> read_predicted_utilization(const std::string& path) {
  return result_of<PredictedUtilization>([&]() -> Result<PredictedUtilization> {
    const std::string text = read_input_file(path);
    return read_json_document<PredictedUtilization>(text, path, [&](const JsonField& root) {
      expect_schema(root, kReplaySchema, "simulate replay --json");
      const ReplaySeries replay = replay_series_from_json(root, path);
      if (replay.utilisation < 0 || replay.utilisation > 1)
        root.child("utilisation").fail("expected a fraction from 0 to 1");
      return PredictedUtilization{replay.utilisation, path, replay.policy, replay.jobs};
    });
  });
}

ExportFiles prometheus_rules(const PrometheusRuleInputs& inputs) {
  const Cluster& cluster = inputs.cluster;
  const RuleWriter writer(inputs);
  const auto budgets = rack_budgets(cluster, inputs.catalog);

  std::string recording = header(cluster, "recording rules");
  recording +=
      "# Each rack's GPU power summed from dcgm-exporter, and the most its GPUs may draw by the design: the\n"
      "# rack's power limit less what its other parts draw at maximum. gputwin-alerts.rules.yml compares "
      "them.\n"
      "groups:\n";
  write_group(recording, "gputwin-rack-gpu-power", rack_power_records(budgets));
  const std::vector<Rule> designed_nodes = designed_node_records(cluster);
  if (!designed_nodes.empty()) {
    recording +=
        "# Every GPU node of the design, its value the GPUs it has: the node list GputwinNodeNotReporting "
        "compares\n# with the nodes that have dcgm-exporter series.\n";
    write_group(recording, "gputwin-designed-nodes", designed_nodes);
  }

  std::vector<Rule> alerts;
  if (!budgets.empty()) alerts.push_back(rack_power_alert(writer, cluster));
  for (Rule& rule : gpus_missing_alerts(writer, cluster)) alerts.push_back(std::move(rule));
  if (!designed_nodes.empty()) alerts.push_back(node_not_reporting_alert(writer, cluster, inputs.settings));
  alerts.push_back(xid_alert(writer, inputs.checks.rule("xid-critical")));
  alerts.push_back(row_remap_failure_alert(writer, inputs.checks.rule("row-remap-failure")));
  std::string notes;
  if (const auto* limit = threshold_of(inputs.replacement_thresholds, kRowRemapping))
    alerts.push_back(row_remaps_at_limit_alert(writer, *limit));
  else
    notes += "# No row-remapping limit in the failure data: no alert on remapped rows.\n";
  if (const auto* limit = threshold_of(inputs.replacement_thresholds, kPageRetirement))
    alerts.push_back(retired_pages_alert(writer, *limit));
  else
    notes += "# No page-retirement limit in the failure data: no alert on retired pages.\n";
  alerts.push_back(ecc_uncorrectable_alert(writer, inputs.checks.rule("ecc-uncorrectable")));
  if (inputs.settings.ecc_single_bit_enabled)
    alerts.push_back(ecc_single_bit_alert(writer, inputs.settings));
  else
    notes +=
        "# No single-bit ECC alert: off by default (NVIDIA publishes no limit for corrected errors; the "
        "driver "
        "reports\n# a high rate as XID 92). --ecc-sbe-alert or --ecc-sbe-rate N (a minute) turns it on.\n";
  alerts.push_back(pcie_replays_alert(writer, inputs.checks.rule("pcie-replays"), inputs.settings.rate_window,
                                      inputs.settings.rate_window_source));
  alerts.push_back(nvlink_errors_alert(writer, inputs.checks.rule("nvlink-errors"),
                                       inputs.settings.rate_window, inputs.settings.rate_window_source));
  if (inputs.utilization)
    alerts.push_back(utilization_alert(writer, inputs, *inputs.utilization));
  else
    notes += "# No utilisation alert: give --replay RESULT.json (simulate replay --json on this design).\n";
  notes +=
      "# No busbw alert: dcgm-exporter has no bus-bandwidth series (NCCL's busbw is measured by nccl-tests; "
      "see\n"
      "# gputwin validate --measured with --cluster).\n"
      "# No NVLink bandwidth alert: DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL has no unit in dcgm-exporter's "
      "counters "
      "file or\n# DCGM's dcgm_fields.h, so it cannot be compared with a predicted busbw "
      "(docs/prometheus.md).\n";

  std::string alerting = header(cluster, "alerting rules");
  alerting += "# Every alert's annotations cite where its threshold comes from.\n" + notes + "groups:\n";
  write_group(alerting, "gputwin-alerts", alerts);
  return ExportFiles{{{"gputwin-recording.rules.yml", recording}, {"gputwin-alerts.rules.yml", alerting}}};
}

}  // namespace gputwin
