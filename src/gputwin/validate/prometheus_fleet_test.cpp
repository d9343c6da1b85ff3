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
  fake.add("/api/v1/query", "max_over_time(DCGM_FI_DEV_XID_ERRORS[900s])",
           json_answer(answer_of("vector", {{{"metric", labelled("", 1)}, {"value", {1000, "48"}}}})));
  for (const std::string& metric : dcgm_fault_metrics())  // the rest: none in the range
    fake.add("/api/v1/query", "max_over_time(" + metric + "[900s])",
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
