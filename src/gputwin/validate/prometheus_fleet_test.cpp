// The fleet read from a Prometheus server, through the fake transport: the same facts as the file readers,
// batched queries, labels, skips, NaN, the range's worst faults and its utilisation timeline, and bad
// servers.
#include "gputwin/validate/prometheus_fleet.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "gputwin/prometheus/exposition_text.hpp"
#include "gputwin/prometheus/fake_transport.hpp"
#include "gputwin/validate/checks.hpp"
#include "gputwin/validate/dcgm_exporter_facts.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using prometheus::FakeTransport;
using prometheus::HttpResponse;
using testing::bundled_checks;

std::string recorded(const std::string& name) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/tests/prometheus/" + name;
}

FakeTransport recorded_server(const std::string& name) {
  auto fake = FakeTransport::from_directory(recorded(name));
  EXPECT_TRUE(fake.ok()) << fake.error_text();
  return std::move(fake).value();
}

HttpResponse json_answer(const nlohmann::json& body) {
  return {200, "application/json", body.dump()};
}

nlohmann::json answer_of(const std::string& type, nlohmann::json result) {
  return {{"status", "success"}, {"data", {{"resultType", type}, {"result", std::move(result)}}}};
}

// The real L4 scrape, as a Prometheus scraping that exporter answers the instant query: the same samples,
// each a series with __name__, plus the labels Prometheus adds.
nlohmann::json vector_of_scrape(const MetricScrape& scrape) {
  nlohmann::json result = nlohmann::json::array();
  for (const MetricSample& sample : scrape.samples) {
    nlohmann::json metric = {{"__name__", sample.name}, {"instance", "10.0.3.7:9400"}, {"job", "dcgm"}};
    for (const auto& [name, value] : sample.labels) metric[name] = value;
    result.push_back({{"metric", metric}, {"value", {1795694400, nlohmann::json(sample.value).dump()}}});
  }
  return answer_of("vector", result);
}

TEST(PrometheusFleet, GivesTheSameFactsAsTheScrapeItWasScrapedFrom) {
  const std::string path =
      testing::fixture("dcgm/k8s-ai-conformance/dcgm-exporter-metrics_L4_kops__output.md_L51-121.txt");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const MetricScrape scrape = prometheus::ExpositionText::read_file(path).value();
  FakeTransport fake;
  fake.add("/api/v1/query", "", json_answer(vector_of_scrape(scrape)));
  const auto read = read_prometheus_fleet(fake, {});
  ASSERT_TRUE(read.ok()) << read.error_text();
  const Fleet& fleet = read.value().fleet;
  ASSERT_EQ(fleet.nodes.size(), 1U);
  EXPECT_EQ(fleet.nodes[0].name, "i-030791dc5a37cd257");  // the Hostname label, not the instance
  const NodeFacts from_file = facts_from_dcgm_scrape(scrape);
  const NodeFacts& from_server = *fleet.nodes[0].facts;
  ASSERT_EQ(from_server.gpus.size(), from_file.gpus.size());
  const GpuFacts& a = from_server.gpus[0];
  const GpuFacts& b = from_file.gpus[0];
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.temperature_celsius, b.temperature_celsius);
  EXPECT_EQ(a.power.draw, b.power.draw);
  EXPECT_EQ(a.clocks.sm_mhz, b.clocks.sm_mhz);
  EXPECT_EQ(a.memory_total, b.memory_total);
  EXPECT_EQ(a.last_xid, b.last_xid);
  EXPECT_EQ(a.row_remapping.failure, b.row_remapping.failure);
  EXPECT_EQ(from_server.driver_version, from_file.driver_version);
  EXPECT_EQ(fleet.nodes[0].files.at(0).kind, FileKind::prometheus_query);
  EXPECT_EQ(read.value().read.queries, 1);  // one query for every metric of every GPU
}

TEST(PrometheusFleet, GroupsSeriesByHostnameElseInstanceAndCountsWhatItSkips) {
  FakeTransport fake = recorded_server("dcgm-fleet");
  const auto read = read_prometheus_fleet(fake, {});
  ASSERT_TRUE(read.ok()) << read.error_text();
  const Fleet& fleet = read.value().fleet;
  ASSERT_EQ(fleet.nodes.size(), 3U);
  EXPECT_EQ(fleet.nodes[0].name, "dgx-01");
  EXPECT_EQ(fleet.nodes[2].name, "dgx-03");  // from instance "dgx-03:9400"
  EXPECT_EQ(fleet.nodes[2].files.at(0).path, "http://prometheus.test:9090 {instance=\"dgx-03\"}");
  EXPECT_EQ(fleet.nodes[0].facts->gpus.size(), 2U);
  EXPECT_FALSE(fleet.nodes[0].facts->gpus[1].power.draw.has_value());  // NaN: no value, never 0
  const PrometheusRead& info = read.value().read;
  EXPECT_EQ(info.nan_samples, 1);
  EXPECT_EQ(info.skipped_series.at("no gpu label (or not a GPU index)"), 1);
  EXPECT_EQ(info.skipped_series.at("no Hostname or instance label"), 1);
  EXPECT_EQ(info.series, 32);
  EXPECT_EQ(fake.requests().size(), 1U);
  EXPECT_TRUE(info.timeline.empty());
}

TEST(PrometheusFleet, TheChecksRunOnTheServersFactsAsOnFiles) {
  FakeTransport fake = recorded_server("dcgm-fleet");
  const auto read = read_prometheus_fleet(fake, {});
  ASSERT_TRUE(read.ok()) << read.error_text();
  const auto findings = evaluate_checks(read.value().fleet, bundled_checks(), {});
  ASSERT_EQ(findings.size(), 1U);
  EXPECT_EQ(findings[0].rule, "xid-critical");
  EXPECT_EQ(findings[0].node, "dgx-02");
  EXPECT_EQ(findings[0].gpu, 1);
  EXPECT_EQ(findings[0].where.file, "http://prometheus.test:9090 {Hostname=\"dgx-02\"}");
}

// A range: one instant query, one max_over_time per fault metric, one range query of utilisation.
TEST(PrometheusFleet, ARangeTakesTheWorstFaultAndTheUtilisationByInterval) {
  FakeTransport fake;
  const nlohmann::json node = {{"Hostname", "dgx-01"}, {"modelName", "NVIDIA H100 80GB HBM3"}};
  auto labelled = [&](const std::string& name, int gpu) {
    nlohmann::json metric = node;
    metric["gpu"] = std::to_string(gpu);
    if (!name.empty()) metric["__name__"] = name;
    return metric;
  };
  fake.add("/api/v1/query", "",
           json_answer(answer_of(
               "vector", {{{"metric", labelled("DCGM_FI_DEV_XID_ERRORS", 0)}, {"value", {1000, "0"}}},
                          {{"metric", labelled("DCGM_FI_DEV_XID_ERRORS", 1)}, {"value", {1000, "0"}}}})));
  fake.add("/api/v1/query", "max_over_time(DCGM_FI_DEV_XID_ERRORS[900s]) > 0",
           json_answer(answer_of("vector", {{{"metric", labelled("", 1)}, {"value", {1000, "48"}}}})));
  for (const std::string& metric : dcgm_fault_metrics())  // the rest: none in the range
    fake.add("/api/v1/query", "max_over_time(" + metric + "[900s]) > 0",
             json_answer(answer_of("vector", nlohmann::json::array())));
  fake.add(
      "/api/v1/query_range", "DCGM_FI_DEV_GPU_UTIL",
      json_answer(answer_of("matrix", {{{"metric", labelled("DCGM_FI_DEV_GPU_UTIL", 0)},
                                        {"values", {{100, "0"}, {400, "50"}, {700, "100"}, {1000, "NaN"}}}},
                                       {{"metric", labelled("DCGM_FI_DEV_GPU_UTIL", 1)},
                                        {"values", {{400, "10"}, {700, "0"}, {1000, "30"}}}}})));
  const auto read = read_prometheus_fleet(fake, {1000.0, 900.0, 300.0});
  ASSERT_TRUE(read.ok()) << read.error_text();
  const PrometheusRead& info = read.value().read;
  EXPECT_EQ(info.queries, static_cast<int>(2 + dcgm_fault_metrics().size()));
  EXPECT_EQ(read.value().fleet.nodes.at(0).facts->gpus.at(1).last_xid,
            48);                        // seen in the range, 0 at its end
  ASSERT_EQ(info.timeline.size(), 4U);  // 100, 400, 700, 1000
  EXPECT_EQ(info.timeline[0].gpus, 1);
  EXPECT_EQ(info.timeline[0].busy_gpus, 0);
  EXPECT_EQ(info.timeline[1].gpus, 2);
  EXPECT_EQ(info.timeline[1].busy_gpus, 2);
  EXPECT_DOUBLE_EQ(info.timeline[1].mean_utilization_percent, 30);
  EXPECT_EQ(info.timeline[2].busy_gpus, 1);
  EXPECT_EQ(info.timeline[3].gpus, 1);  // GPU 0's NaN is no sample
  EXPECT_EQ(info.nan_samples, 1);
  const auto range = std::find_if(fake.requests().begin(), fake.requests().end(),
                                  [](const auto& request) { return request.path == "/api/v1/query_range"; });
  ASSERT_NE(range, fake.requests().end());
  EXPECT_EQ(range->params, (prometheus::QueryParams{{"query", "DCGM_FI_DEV_GPU_UTIL"},
                                                    {"start", "100.000"},
                                                    {"end", "1000.000"},
                                                    {"step", "300.000"}}));
}

constexpr double kGapsEnd = 1795694400;  // 2026-11-26T12:00:00Z, the end of dcgm-fleet-gaps' 6 h range
constexpr double kHalfHour = 1800;

double gaps_at(int hour, int minute) {
  return kGapsEnd - (12 - hour) * 3600.0 + minute * 60.0;
}

const FleetNode& node_named(const Fleet& fleet, const std::string& name) {
  const auto found = std::find_if(fleet.nodes.begin(), fleet.nodes.end(),
                                  [&](const FleetNode& node) { return node.name == name; });
  EXPECT_NE(found, fleet.nodes.end()) << name;
  return *found;
}

PrometheusFleet read_gaps_fleet() {
  FakeTransport fake = recorded_server("dcgm-fleet-gaps");
  auto read = read_prometheus_fleet(fake, {kGapsEnd, 6 * 3600.0, kHalfHour});
  EXPECT_TRUE(read.ok()) << read.error_text();
  return std::move(read).value();
}

// tests/prometheus/dcgm-fleet-gaps (generate_gaps.py): a node that stops, a GPU that stops after an XID, a
// GPU and a node missing for a while, one missed step, and one GPU whose series changes labels part way.
TEST(PrometheusFleet, ARangeGivesEachNodeAndGpuItsLastSampleAndItsGaps) {
  const PrometheusFleet read = read_gaps_fleet();
  ASSERT_EQ(read.fleet.nodes.size(), 5U);
  EXPECT_EQ(read.read.gpus_not_judged, 0);

  const FleetNode& stopped = node_named(read.fleet, "dgx-02");  // absent at the end: kept from the range
  ASSERT_TRUE(stopped.reporting.has_value());
  EXPECT_EQ(stopped.facts->gpus.size(), 2U);
  EXPECT_DOUBLE_EQ(stopped.reporting->last_sample_s, gaps_at(10, 0));
  ASSERT_EQ(stopped.reporting->gaps.size(), 1U);
  EXPECT_TRUE(stopped.reporting->gaps[0].to_end);
  EXPECT_EQ(stopped.reporting->gaps[0].steps, 4);
  EXPECT_DOUBLE_EQ(stopped.reporting->gaps[0].from_s, gaps_at(10, 30));
  EXPECT_TRUE(stopped.reporting->gpus.at(0).gaps.empty());  // its GPUs stopped with it: the node's gap only

  const RangeReporting& lost_gpu = *node_named(read.fleet, "dgx-04").reporting;
  EXPECT_TRUE(lost_gpu.gaps.empty());
  EXPECT_DOUBLE_EQ(lost_gpu.last_sample_s, kGapsEnd);
  EXPECT_DOUBLE_EQ(lost_gpu.gpus.at(0).last_sample_s, gaps_at(9, 0));
  ASSERT_EQ(lost_gpu.gpus.at(0).gaps.size(), 1U);
  EXPECT_TRUE(lost_gpu.gpus.at(0).gaps[0].to_end);
  EXPECT_EQ(lost_gpu.gpus.at(0).gaps[0].steps, 6);
  EXPECT_EQ(node_named(read.fleet, "dgx-04").facts->gpus.at(0).last_xid, 79);  // logged before it was lost

  const GpuReporting& back = node_named(read.fleet, "dgx-03").reporting->gpus.at(1);
  ASSERT_EQ(back.gaps.size(), 1U);
  EXPECT_FALSE(back.gaps[0].to_end);
  EXPECT_DOUBLE_EQ(back.gaps[0].from_s, gaps_at(8, 0));
  EXPECT_DOUBLE_EQ(back.gaps[0].to_s, gaps_at(9, 30));
  EXPECT_EQ(back.gaps[0].steps, 4);

  const RangeReporting& away = *node_named(read.fleet, "dgx-05").reporting;
  ASSERT_EQ(away.gaps.size(), 1U);
  EXPECT_EQ(away.gaps[0].steps, 3);
  EXPECT_FALSE(away.gaps[0].to_end);
  EXPECT_TRUE(away.gpus.at(1).gaps.empty());  // missing only when its node was
  ASSERT_EQ(away.gpus.at(0).gaps.size(), 1U);
  EXPECT_EQ(away.gpus.at(0).gaps[0].steps, 1);

  // Two series of one GPU (a pod label until 09:00, none after) are one GPU with no gap, counted once.
  const RangeReporting& relabelled = *node_named(read.fleet, "dgx-01").reporting;
  EXPECT_TRUE(relabelled.gpus.at(1).gaps.empty());
  EXPECT_EQ(read.read.timeline.front().gpus, 10);
}

std::vector<std::pair<std::string, std::optional<int>>> reporting_findings(const Fleet& fleet,
                                                                           std::optional<double> tolerance) {
  CheckOptions options;
  options.gap_tolerance_steps = tolerance;
  std::vector<std::pair<std::string, std::optional<int>>> found;
  for (const Finding& finding : evaluate_checks(fleet, bundled_checks(), options))
    if (finding.rule.find("reporting") != std::string::npos)
      found.emplace_back(finding.node + " " + finding.rule, finding.gpu);
  return found;
}

TEST(PrometheusFleet, ARunOfStepsWithoutASampleBeyondTheToleranceIsAFinding) {
  const PrometheusFleet read = read_gaps_fleet();
  using Found = std::vector<std::pair<std::string, std::optional<int>>>;
  // The checks data's tolerance, 2 steps: the one missed step of dgx-05 GPU 0 is not a finding.
  EXPECT_EQ(reporting_findings(read.fleet, std::nullopt),
            (Found{{"dgx-02 node-stopped-reporting", std::nullopt},
                   {"dgx-04 gpu-stopped-reporting", 0},
                   {"dgx-03 gpu-reporting-gap", 1},
                   {"dgx-05 node-reporting-gap", std::nullopt}}));
  EXPECT_EQ(reporting_findings(read.fleet, 0.0).size(), 5U);
  // 3 steps: dgx-05's 3-step gap is within it; 6: nothing is beyond it.
  EXPECT_EQ(reporting_findings(read.fleet, 3.0).size(), 3U);
  EXPECT_TRUE(reporting_findings(read.fleet, 6.0).empty());

  const auto findings = evaluate_checks(read.fleet, bundled_checks(), {});
  const auto stopped = std::find_if(findings.begin(), findings.end(),
                                    [](const Finding& f) { return f.rule == "node-stopped-reporting"; });
  ASSERT_NE(stopped, findings.end());
  EXPECT_EQ(stopped->severity, Severity::critical);
  EXPECT_EQ(
      stopped->message,
      "stopped reporting after 2026-11-26T10:00:00Z: no sample from 2026-11-26T10:30:00Z to the range's "
      "end 2026-11-26T12:00:00Z (4 steps of 30m)");
  EXPECT_EQ(stopped->where.file, "http://prometheus.test:9090 {Hostname=\"dgx-02\"}");
  const auto gap = std::find_if(findings.begin(), findings.end(),
                                [](const Finding& f) { return f.rule == "gpu-reporting-gap"; });
  ASSERT_NE(gap, findings.end());
  EXPECT_EQ(gap->severity, Severity::warning);
  EXPECT_EQ(
      gap->message,
      "missing from 2026-11-26T08:00:00Z to 2026-11-26T09:30:00Z (4 steps of 30m) while its node reported");
}

// Utilisation series of one node that stops part way, the other on to the end; nothing at the range's end
// from the instant query or the fault queries.
FakeTransport fleet_silent_at_its_end(bool with_utilization) {
  FakeTransport fake;
  fake.add("/api/v1/query", "", json_answer(answer_of("vector", nlohmann::json::array())));
  nlohmann::json matrix = nlohmann::json::array();
  if (with_utilization) {
    auto series = [](const std::string& host, int gpu, double last) {
      nlohmann::json values = nlohmann::json::array();
      for (double t = 300; t <= last; t += 100) values.push_back({t, "50"});  // Prometheus started at 300
      return nlohmann::json{{"metric",
                             {{"__name__", "DCGM_FI_DEV_GPU_UTIL"},
                              {"Hostname", host},
                              {"gpu", std::to_string(gpu)},
                              {"modelName", "NVIDIA H100 80GB HBM3"}}},
                            {"values", values}};
    };
    matrix = {series("n1", 0, 1000), series("n2", 0, 600)};
  }
  fake.add("/api/v1/query_range", "", json_answer(answer_of("matrix", matrix)));
  return fake;
}

TEST(PrometheusFleet, AFleetSilentAtTheRangesEndIsJudgedOnWhatTheRangeSaw) {
  FakeTransport fake = fleet_silent_at_its_end(true);
  const auto read = read_prometheus_fleet(fake, {1000.0, 1000.0, 100.0});
  ASSERT_TRUE(read.ok()) << read.error_text();
  const Fleet& fleet = read.value().fleet;
  ASSERT_EQ(fleet.nodes.size(), 2U);  // placed from their utilisation series alone
  EXPECT_EQ(fleet.nodes[1].facts->gpus.at(0).model, "NVIDIA H100 80GB HBM3");
  // Before 300 Prometheus had no data at all: no node is missing there.
  EXPECT_TRUE(fleet.nodes[0].reporting->gaps.empty());
  EXPECT_DOUBLE_EQ(fleet.nodes[0].reporting->fleet_first_sample_s, 300);
  ASSERT_EQ(fleet.nodes[1].reporting->gaps.size(), 1U);
  EXPECT_EQ(fleet.nodes[1].reporting->gaps[0].steps, 4);  // 700 to 1000
  EXPECT_EQ(
      reporting_findings(fleet, std::nullopt),
      (std::vector<std::pair<std::string, std::optional<int>>>{{"n2 node-stopped-reporting", std::nullopt}}));

  FakeTransport empty = fleet_silent_at_its_end(false);
  const auto nothing = read_prometheus_fleet(empty, {1000.0, 1000.0, 100.0});
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.error_text().find("no DCGM_FI_* series"), std::string::npos) << nothing.error_text();
}

TEST(PrometheusFleet, AGpuWithoutUtilisationSeriesIsCountedNotJudged) {
  FakeTransport fake;
  auto metric = [](const std::string& name, int gpu) {
    return nlohmann::json{{"__name__", name}, {"Hostname", "n1"}, {"gpu", std::to_string(gpu)}};
  };
  // GPU 1 runs MIG: no DCGM_FI_DEV_GPU_UTIL, only its temperature.
  fake.add("/api/v1/query", "max_over_time(*", json_answer(answer_of("vector", nlohmann::json::array())));
  fake.add("/api/v1/query", "",
           json_answer(answer_of(
               "vector", {{{"metric", metric("DCGM_FI_DEV_GPU_TEMP", 0)}, {"value", {1000, "40"}}},
                          {{"metric", metric("DCGM_FI_DEV_GPU_TEMP", 1)}, {"value", {1000, "41"}}}})));
  fake.add("/api/v1/query_range", "",
           json_answer(answer_of("matrix", {{{"metric", metric("DCGM_FI_DEV_GPU_UTIL", 0)},
                                             {"values", {{800, "1"}, {900, "1"}, {1000, "1"}}}}})));
  const auto read = read_prometheus_fleet(fake, {1000.0, 200.0, 100.0});
  ASSERT_TRUE(read.ok()) << read.error_text();
  EXPECT_EQ(read.value().read.gpus_not_judged, 1);
  EXPECT_TRUE(reporting_findings(read.value().fleet, 0.0).empty());
}

TEST(PrometheusFleet, APrometheusWithoutDcgmSeriesIsAnErrorNamingTheUrl) {
  FakeTransport fake = recorded_server("no-dcgm");
  const auto read = read_prometheus_fleet(fake, {1795694400.0, std::nullopt, 300});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error_text().rfind(
                "http://prometheus.test:9090: no DCGM_FI_* series at http://prometheus.test:9090 "
                "at 2026-11-26T12:00:00Z",
                0),
            0U)
      << read.error_text();
}

TEST(PrometheusFleet, SeriesThatNameNoNodeAndGpuLeaveNothingToValidate) {
  FakeTransport fake;
  fake.add("/api/v1/query", "",
           json_answer(answer_of("vector", {{{"metric", {{"__name__", "DCGM_FI_DEV_GPU_TEMP"}, {"gpu", "0"}}},
                                             {"value", {1, "40"}}}})));
  const auto read = read_prometheus_fleet(fake, {});
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error_text().find("none of the 1 DCGM_FI_* series"), std::string::npos) << read.error_text();
}

TEST(PrometheusFleet, AnUnreachableOrForeignServerIsAnError) {
  FakeTransport refused;
  refused.fail_every_request(
      InputError{{"http://127.0.0.1:1", 0, 0}, "", "cannot connect to http://127.0.0.1:1"});
  EXPECT_EQ(read_prometheus_fleet(refused, {}).error_text(),
            "http://127.0.0.1:1: cannot connect to http://127.0.0.1:1\n");
  FakeTransport html = recorded_server("not-prometheus");
  EXPECT_NE(read_prometheus_fleet(html, {}).error_text().find("not a Prometheus HTTP API"),
            std::string::npos);
}

TEST(PrometheusFleet, HostIsTheHostnameLabelElseTheInstanceWithoutItsPort) {
  EXPECT_EQ(host_of({{"Hostname", "n1"}, {"instance", "10.0.0.1:9400"}}), "n1");
  EXPECT_EQ(host_of({{"instance", "10.0.0.1:9400"}}), "10.0.0.1");
  EXPECT_EQ(host_of({{"instance", "[::1]:9400"}}), "[::1]");
  EXPECT_EQ(host_of({{"instance", "node7"}}), "node7");
  EXPECT_EQ(host_of({{"job", "x"}}), "");
}

}  // namespace
}  // namespace gputwin::validate
