#include "gputwin/export/prometheus_rules.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::plan_file;

struct Loaded {
  validate::ChecksData checks;
  FailureRates rates;
  PrometheusRuleSettings settings;
};

const Loaded& bundled_data() {
  static const Loaded loaded = [] {
    const std::string data = bundled_data_dir();
    auto checks = validate::load_checks_data(data + "/validate/checks.yaml");
    auto rates = load_failure_rates(data + "/reliability/failure-rates.yaml");
    auto settings = load_prometheus_rule_settings(data + "/export/prometheus-rules.yaml");
    EXPECT_TRUE(checks.ok()) << checks.error_text();
    EXPECT_TRUE(rates.ok()) << rates.error_text();
    EXPECT_TRUE(settings.ok()) << settings.error_text();
    return Loaded{checks.value(), rates.value(), settings.value()};
  }();
  return loaded;
}

ExportFiles rules_of(const Cluster& cluster, std::optional<PredictedUtilization> utilization = std::nullopt,
                     std::optional<std::string> hold = std::nullopt) {
  const Loaded& data = bundled_data();
  return prometheus_rules({cluster, bundled_catalog(), data.checks, data.rates.replacement_thresholds,
                           data.settings, std::move(utilization), std::move(hold)});
}

ExportFiles rules_with(const Cluster& cluster, PrometheusRuleSettings settings,
                       std::optional<PredictedUtilization> utilization = std::nullopt) {
  const Loaded& data = bundled_data();
  return prometheus_rules({cluster, bundled_catalog(), data.checks, data.rates.replacement_thresholds,
                           std::move(settings), std::move(utilization), std::nullopt});
}

PrometheusRuleSettings with_sbe_alert(double per_minute = 0) {
  PrometheusRuleSettings settings = bundled_data().settings;
  settings.ecc_single_bit_enabled = true;
  if (per_minute > 0) settings.ecc_single_bit_max_per_minute = per_minute;
  return settings;
}

// Every rule of a rules file, as Prometheus reads it (YAML, groups of rules).
std::vector<YAML::Node> rules_in(const std::string& text) {
  std::vector<YAML::Node> rules;
  const YAML::Node root = YAML::Load(text);
  for (const auto& group : root["groups"])
    for (const auto& rule : group["rules"]) rules.push_back(rule);
  return rules;
}

const YAML::Node* alert_named(const std::vector<YAML::Node>& rules, const std::string& name) {
  for (const auto& rule : rules)
    if (rule["alert"] && rule["alert"].as<std::string>() == name) return &rule;
  return nullptr;
}

TEST(PrometheusRules, OneSumAndOneBudgetPerComputeRackNamingItsHosts) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const auto rules = rules_in(rules_of(cluster).text("gputwin-recording.rules.yml"));
  std::set<std::string> summed_racks;
  std::set<std::string> hosts_named;
  const std::regex hosts(R"(Hostname=~"([^"]+)\")");
  std::size_t rack_rules = 0;
  for (const auto& rule : rules) {
    const std::string record = rule["record"].as<std::string>();
    if (record.rfind("gputwin:rack_gpu_power", 0) == 0) ++rack_rules;
    if (record != "gputwin:rack_gpu_power:sum_watts") continue;
    const std::string rack = rule["labels"]["rack"].as<std::string>();
    summed_racks.insert(rack);
    std::smatch match;
    const std::string expr = rule["expr"].as<std::string>();
    ASSERT_TRUE(std::regex_search(expr, match, hosts)) << expr;
    std::string list = match[1];
    for (std::size_t start = 0, bar = 0; bar != std::string::npos; start = bar + 1) {
      bar = list.find('|', start);
      EXPECT_TRUE(hosts_named.insert(list.substr(start, bar - start)).second) << "host in two racks";
    }
  }
  EXPECT_EQ(static_cast<int>(summed_racks.size()), cluster.racks_of(RackKind::compute));
  EXPECT_EQ(static_cast<int>(hosts_named.size()), cluster.nodes);
  EXPECT_EQ(rack_rules, 2 * summed_racks.size());
}

// The design's node list as records (Hostname, the node's GPUs), and the alert that compares it with the
// nodes that have any DCGM series, telling why from the scrape job's up series.
TEST(PrometheusRules, EveryDesignedNodeIsRecordedForTheNotReportingAlert) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const ExportFiles files = rules_of(cluster);
  std::set<std::string> recorded;
  for (const auto& rule : rules_in(files.text("gputwin-recording.rules.yml"))) {
    if (rule["record"].as<std::string>() != "gputwin:designed_node:info") continue;
    EXPECT_EQ(rule["expr"].as<std::string>(), "vector(8)");
    EXPECT_TRUE(recorded.insert(rule["labels"]["Hostname"].as<std::string>()).second);
  }
  EXPECT_EQ(static_cast<int>(recorded.size()), cluster.nodes);
  for (const Device& device : cluster.devices)
    if (device.kind == DeviceKind::node) {
      EXPECT_TRUE(recorded.count(device.name)) << device.name;
    }

  const auto alerts = rules_in(files.text("gputwin-alerts.rules.yml"));
  const YAML::Node* alert = alert_named(alerts, "GputwinNodeNotReporting");
  ASSERT_NE(alert, nullptr);
  const std::string expr = (*alert)["expr"].as<std::string>();
  EXPECT_NE(expr.find("up{job=\"dcgm-exporter\"}"), std::string::npos) << expr;  // the data default
  EXPECT_NE(expr.find("unless on (Hostname) group by (Hostname) ({__name__=~\"DCGM_FI_.*\"})"),
            std::string::npos)
      << expr;
  EXPECT_EQ((*alert)["labels"]["severity"].as<std::string>(), "critical");
  EXPECT_NE((*alert)["annotations"]["source"].as<std::string>().find("scrape job: dcgm-exporter"),
            std::string::npos);
}

TEST(PrometheusRules, TheScrapeJobIsTheUsersSetting) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const Loaded& data = bundled_data();
  PrometheusRuleSettings settings = data.settings;
  settings.scrape_job = "gpu-metrics";
  settings.scrape_job_source = "--scrape-job";
  const ExportFiles files = prometheus_rules({cluster,
                                              bundled_catalog(),
                                              data.checks,
                                              data.rates.replacement_thresholds,
                                              settings,
                                              std::nullopt,
                                              {}});
  const auto alerts = rules_in(files.text("gputwin-alerts.rules.yml"));
  const YAML::Node* alert = alert_named(alerts, "GputwinNodeNotReporting");
  ASSERT_NE(alert, nullptr);
  EXPECT_NE((*alert)["expr"].as<std::string>().find("up{job=\"gpu-metrics\"}"), std::string::npos);
  EXPECT_TRUE(is_scrape_job_name("dcgm-exporter"));
  EXPECT_TRUE(is_scrape_job_name("kube.gpu_metrics-1"));
  EXPECT_FALSE(is_scrape_job_name(""));
  EXPECT_FALSE(is_scrape_job_name("a\"} or vector(1"));
}

TEST(PrometheusRules, RackBudgetIsTheLimitLessEverythingButTheGpusAtMaximum) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const auto rules = rules_in(rules_of(cluster).text("gputwin-recording.rules.yml"));
  const Rack& rack = *std::find_if(cluster.racks.begin(), cluster.racks.end(),
                                   [](const Rack& r) { return r.kind == RackKind::compute; });
  int gpus = 0;
  for (const int device : rack.devices) {
    const NodeType* type = cluster.node_type_of(cluster.devices[device]);
    if (cluster.devices[device].kind == DeviceKind::node && type != nullptr) gpus += type->gpus;
  }
  const double tdp = in_watts(bundled_catalog().get<Accelerator>("h100-sxm").tdp);
  const double expected = in_watts(rack.power_limit) - (in_watts(rack.power_max) - gpus * tdp);
  bool found = false;
  for (const auto& rule : rules) {
    if (rule["record"].as<std::string>() != "gputwin:rack_gpu_power_budget:watts") continue;
    if (rule["labels"]["rack"].as<std::string>() != rack.name) continue;
    const std::string expr = rule["expr"].as<std::string>();
    EXPECT_NEAR(std::stod(expr.substr(expr.find('(') + 1)), expected, 1.0) << expr;
    found = true;
  }
  EXPECT_TRUE(found) << "no budget for " << rack.name;
  EXPECT_GT(expected, gpus * tdp) << "a rack the design fills keeps room for its GPUs at TDP";
}

TEST(PrometheusRules, ThresholdsComeFromTheDataFiles) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const auto alerts = rules_in(rules_of(cluster).text("gputwin-alerts.rules.yml"));
  const Loaded& data = bundled_data();

  const YAML::Node* xid = alert_named(alerts, "GputwinGpuXidNeedsDrain");
  ASSERT_NE(xid, nullptr);
  const std::string xid_expr = (*xid)["expr"].as<std::string>();
  for (const std::string& value : data.checks.rule("xid-critical").word_parameters.at("xids"))
    EXPECT_NE(xid_expr.find("DCGM_FI_DEV_XID_ERRORS == " + value), std::string::npos) << value;
  EXPECT_EQ(xid_expr.find("== 13"), std::string::npos)
      << "XID 13 (a graphics engine exception) needs no drain";

  const YAML::Node* gpus = alert_named(alerts, "GputwinNodeGpusMissing");
  ASSERT_NE(gpus, nullptr);
  EXPECT_NE((*gpus)["expr"].as<std::string>().find("< 8"), std::string::npos);

  for (const ReplacementThreshold& limit : data.rates.replacement_thresholds) {
    const char* name =
        limit.mechanism == "row remapping" ? "GputwinGpuRowRemapsAtLimit" : "GputwinGpuRetiredPagesAtLimit";
    const YAML::Node* alert = alert_named(alerts, name);
    ASSERT_NE(alert, nullptr) << name;
    EXPECT_NE((*alert)["expr"].as<std::string>().find(">= " + std::to_string(limit.limit)),
              std::string::npos);
  }
}

TEST(PrometheusRules, EveryAlertCarriesSeverityHoldAndSource) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  // Every alert of the settings file, the optional ones (utilisation, single-bit ECC) turned on.
  const auto alerts =
      rules_in(rules_with(cluster, with_sbe_alert(), PredictedUtilization{0.7, "replay.json", "fifo", 100})
                   .text("gputwin-alerts.rules.yml"));
  const Loaded& data = bundled_data();
  EXPECT_EQ(alerts.size(), data.settings.alerts.size());
  for (const auto& alert : alerts) {
    const std::string name = alert["alert"].as<std::string>();
    EXPECT_EQ(alert["labels"]["severity"].as<std::string>(), data.settings.alert(name).severity) << name;
    EXPECT_EQ(alert["for"].as<std::string>(), data.settings.alert(name).hold) << name;
    EXPECT_FALSE(alert["annotations"]["source"].as<std::string>().empty()) << name;
    EXPECT_FALSE(alert["annotations"]["summary"].as<std::string>().empty()) << name;
  }
}

TEST(PrometheusRules, EccAndNvlinkAlertsUseTheChecksDataLimits) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const auto alerts = rules_in(rules_of(cluster).text("gputwin-alerts.rules.yml"));
  const Loaded& data = bundled_data();
  const YAML::Node* ecc = alert_named(alerts, "GputwinGpuEccUncorrectable");
  ASSERT_NE(ecc, nullptr);
  EXPECT_EQ((*ecc)["expr"].as<std::string>(), "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL > 0");
  const YAML::Node* nvlink = alert_named(alerts, "GputwinGpuNvlinkErrors");
  ASSERT_NE(nvlink, nullptr);
  const std::string expr = (*nvlink)["expr"].as<std::string>();
  const double crc = data.checks.rule("nvlink-errors").number_parameters.at("max_crc_rate_per_second");
  const std::string window = "[" + data.settings.rate_window + "]";
  EXPECT_NE(expr.find("rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL" + window +
                      ") + rate(DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL" + window + ") > " +
                      std::to_string(static_cast<int>(crc))),
            std::string::npos)
      << expr;
  EXPECT_NE(expr.find("increase(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL" + window + ") > 0"),
            std::string::npos)
      << expr;
  EXPECT_NE(expr.find("increase(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL" + window + ") > 0"),
            std::string::npos)
      << expr;
}

TEST(PrometheusRules, SingleBitEccAlertIsOffByDefaultAndAtTheUsersLimit) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const Loaded& data = bundled_data();
  ASSERT_FALSE(data.settings.ecc_single_bit_enabled) << "the bundled default is off";
  const std::string off = rules_of(cluster).text("gputwin-alerts.rules.yml");
  EXPECT_EQ(alert_named(rules_in(off), "GputwinGpuEccSingleBitRate"), nullptr);
  EXPECT_EQ(off.find("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL"), std::string::npos);
  EXPECT_NE(off.find("# No single-bit ECC alert: off by default"), std::string::npos);

  const std::string window = "[" + data.settings.rate_window + "]";
  const auto at_default = rules_in(rules_with(cluster, with_sbe_alert()).text("gputwin-alerts.rules.yml"));
  const YAML::Node* alert = alert_named(at_default, "GputwinGpuEccSingleBitRate");
  ASSERT_NE(alert, nullptr);
  EXPECT_EQ((*alert)["expr"].as<std::string>(),
            "rate(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL" + window + ") * 60 > " +
                std::to_string(static_cast<int>(data.settings.ecc_single_bit_max_per_minute)));
  EXPECT_NE((*alert)["annotations"]["source"].as<std::string>().find("gputwin default"), std::string::npos)
      << "the limit is said to be a default, not a fact";

  const auto at_25 = rules_in(rules_with(cluster, with_sbe_alert(25)).text("gputwin-alerts.rules.yml"));
  alert = alert_named(at_25, "GputwinGpuEccSingleBitRate");
  ASSERT_NE(alert, nullptr);
  EXPECT_EQ((*alert)["expr"].as<std::string>(),
            "rate(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL" + window + ") * 60 > 25");
}

TEST(PrometheusRules, NoNvlinkBandwidthAlertAndTheFileSaysWhy) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const std::string alerts =
      rules_with(cluster, with_sbe_alert(), PredictedUtilization{0.7, "r.json", "fifo", 1})
          .text("gputwin-alerts.rules.yml");
  for (const auto& rule : rules_in(alerts))
    EXPECT_EQ(rule["expr"].as<std::string>().find("NVLINK_BANDWIDTH"), std::string::npos)
        << rule["alert"].as<std::string>();
  EXPECT_NE(alerts.find("# No NVLink bandwidth alert: DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL has no unit"),
            std::string::npos);
}

TEST(PrometheusRules, UtilizationAlertOnlyWithAPredictionAndAtItsFloor) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  EXPECT_EQ(alert_named(rules_in(rules_of(cluster).text("gputwin-alerts.rules.yml")),
                        "GputwinUtilizationBelowPrediction"),
            nullptr);
  const auto alerts = rules_in(rules_of(cluster, PredictedUtilization{0.8, "replay.json", "fifo", 10})
                                   .text("gputwin-alerts.rules.yml"));
  const YAML::Node* alert = alert_named(alerts, "GputwinUtilizationBelowPrediction");
  ASSERT_NE(alert, nullptr);
  const double floor = 0.8 * (1 - bundled_data().settings.utilization_margin);
  const std::string expr = (*alert)["expr"].as<std::string>();
  EXPECT_NEAR(std::stod(expr.substr(expr.rfind('<') + 1)), floor, 1e-9) << expr;
  EXPECT_NE(expr.find("[" + bundled_data().settings.utilization_window + "]"), std::string::npos) << expr;
}

TEST(PrometheusRules, HoldOverrideSetsEveryAlertsFor) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  for (const auto& alert : rules_in(rules_of(cluster, std::nullopt, "0s").text("gputwin-alerts.rules.yml")))
    EXPECT_EQ(alert["for"].as<std::string>(), "0s");
}

TEST(PrometheusRules, SameDesignSameText) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  EXPECT_EQ(rules_of(cluster).text("gputwin-recording.rules.yml"),
            rules_of(cluster).text("gputwin-recording.rules.yml"));
  EXPECT_EQ(rules_of(cluster).text("gputwin-alerts.rules.yml"),
            rules_of(cluster).text("gputwin-alerts.rules.yml"));
}

TEST(PrometheusRuleSettings, BadFilesAreLocated) {
  const std::string good = R"(schema: gputwin.prometheus-rules/1
alerts:
  - {name: GputwinRackGpuPowerOverDesign, severity: critical, for: 5 minutes, source: x}
utilization:
  window: {value: 1h, source: x}
  margin: {value: 10%, source: x}
)";
  const auto bad_for = parse_prometheus_rule_settings(good, "s.yaml");
  ASSERT_FALSE(bad_for.ok());
  EXPECT_NE(bad_for.error_text().find("s.yaml:3:"), std::string::npos) << bad_for.error_text();
  EXPECT_NE(bad_for.error_text().find("Prometheus duration"), std::string::npos) << bad_for.error_text();

  std::string missing = good;
  missing.replace(missing.find("5 minutes"), 9, "5m");
  const auto incomplete = parse_prometheus_rule_settings(missing, "s.yaml");
  ASSERT_FALSE(incomplete.ok());
  EXPECT_NE(incomplete.error_text().find("GputwinNodeGpusMissing' is missing"), std::string::npos)
      << incomplete.error_text();

  std::string unknown = missing;
  unknown.replace(unknown.find("GputwinRackGpuPowerOverDesign"), 29, "GputwinTypo");
  const auto typo = parse_prometheus_rule_settings(unknown, "s.yaml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error_text().find("unknown alert 'GputwinTypo'"), std::string::npos) << typo.error_text();

  // The bundled file with a job name that would break out of the label matcher.
  std::ifstream in(bundled_data_dir() + "/export/prometheus-rules.yaml");
  std::string bad_job((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = bad_job.find("  value: dcgm-exporter");
  ASSERT_NE(at, std::string::npos);
  bad_job.replace(at, 22, "  value: 'a\"} or vector(1)'");
  const int line =
      static_cast<int>(std::count(bad_job.begin(), bad_job.begin() + static_cast<long>(at), '\n')) + 1;
  const auto job = parse_prometheus_rule_settings(bad_job, "s.yaml");
  ASSERT_FALSE(job.ok());
  EXPECT_NE(job.error_text().find("s.yaml:" + std::to_string(line) + ":"), std::string::npos)
      << job.error_text();
  EXPECT_NE(job.error_text().find("scrape job name"), std::string::npos) << job.error_text();
}

TEST(PrometheusRuleSettings, SingleBitSettingsAreLocated) {
  std::ifstream in(bundled_data_dir() + "/export/prometheus-rules.yaml");
  const std::string bundled((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto line_of = [&](std::size_t at) {
    return static_cast<int>(std::count(bundled.begin(), bundled.begin() + static_cast<long>(at), '\n')) + 1;
  };
  const std::size_t rate = bundled.find("    value: 10\n", bundled.find("max_rate_per_minute:"));
  ASSERT_NE(rate, std::string::npos);
  std::string negative = bundled;
  negative.replace(rate, 13, "    value: -3");
  const auto bad_rate = parse_prometheus_rule_settings(negative, "s.yaml");
  ASSERT_FALSE(bad_rate.ok());
  EXPECT_NE(bad_rate.error_text().find("s.yaml:" + std::to_string(line_of(rate)) + ":"), std::string::npos)
      << bad_rate.error_text();

  const std::size_t enabled = bundled.find("    value: false", bundled.find("ecc_single_bit:"));
  ASSERT_NE(enabled, std::string::npos);
  std::string word = bundled;
  word.replace(enabled, 16, "    value: maybe");
  const auto bad_enabled = parse_prometheus_rule_settings(word, "s.yaml");
  ASSERT_FALSE(bad_enabled.ok());
  EXPECT_NE(bad_enabled.error_text().find("s.yaml:" + std::to_string(line_of(enabled)) + ":"),
            std::string::npos)
      << bad_enabled.error_text();

  const std::string without = bundled.substr(0, bundled.find("ecc_single_bit:"));
  const auto missing = parse_prometheus_rule_settings(without, "s.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error_text().find("ecc_single_bit"), std::string::npos) << missing.error_text();
}

TEST(PrometheusRuleSettings, DurationsAsPrometheusReadsThem) {
  EXPECT_TRUE(is_prometheus_duration("0s"));
  EXPECT_TRUE(is_prometheus_duration("90s"));
  EXPECT_TRUE(is_prometheus_duration("1h"));
  EXPECT_TRUE(is_prometheus_duration("250ms"));
  EXPECT_FALSE(is_prometheus_duration("5"));
  EXPECT_FALSE(is_prometheus_duration("m"));
  EXPECT_FALSE(is_prometheus_duration("5 m"));
  EXPECT_FALSE(is_prometheus_duration("5min"));
  EXPECT_FALSE(is_prometheus_duration("-5m"));
}

TEST(PredictedUtilization, ReadsAReplayAndRefusesOtherDocuments) {
  const std::string dir = ::testing::TempDir();
  const std::string replay = dir + "/prometheus-rules-replay.json";
  std::ofstream(replay)
      << R"({"schema": "gputwin.replay/1", "policy": "fifo", "jobs": 3, "utilisation": 0.625,
    "jct_s": {"mean": 1, "median": 1, "p95": 1, "max": 1}, "wait_s": {"mean": 0, "median": 0, "p95": 0, "max": 0},
    "intervals": []})";
  const auto read = read_predicted_utilization(replay);
  ASSERT_TRUE(read.ok()) << read.error_text();
  EXPECT_DOUBLE_EQ(read.value().fraction, 0.625);
  EXPECT_EQ(read.value().policy, "fifo");

  const std::string other = dir + "/prometheus-rules-other.json";
  std::ofstream(other) << R"({"schema": "gputwin.plan/1"})";
  const auto refused = read_predicted_utilization(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error_text().find("/schema"), std::string::npos) << refused.error_text();
}

}  // namespace
}  // namespace gputwin
