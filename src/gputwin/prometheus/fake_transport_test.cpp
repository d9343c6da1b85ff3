#include "gputwin/prometheus/fake_transport.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gputwin/prometheus/prometheus_test_support.hpp"
#include "gputwin/prometheus/query_client.hpp"

namespace gputwin::prometheus {
namespace {

TEST(FakeTransport, AnswersByPathAndQueryAndCountsRequests) {
  FakeTransport fake;
  fake.add("/api/v1/query", "up", {200, "application/json", "exact"});
  fake.add("/api/v1/query", "", {200, "application/json", "any"});
  EXPECT_EQ(fake.get("/api/v1/query", {{"query", "up"}, {"time", "1"}}).value().body, "exact");
  EXPECT_EQ(fake.get("/api/v1/query", {{"query", "down"}}).value().body, "any");
  fake.add("/api/v1/query", "max_over_time(*", {200, "application/json", "prefix"});
  EXPECT_EQ(fake.get("/api/v1/query", {{"query", "max_over_time(x[1h])"}}).value().body, "prefix");
  const auto unrecorded = fake.get("/api/v1/labels", {});
  ASSERT_FALSE(unrecorded.ok());
  EXPECT_NE(unrecorded.error_text().find("no recorded answer for GET /api/v1/labels"), std::string::npos);
  EXPECT_EQ(fake.requests().size(), 4U);
  fake.fail_every_request(InputError{{"http://x", 0, 0}, "", "cannot connect to http://x"});
  EXPECT_EQ(fake.get("/api/v1/query", {{"query", "up"}}).error_text(),
            "http://x: cannot connect to http://x\n");
}

TEST(FakeTransport, ReplaysRecordedAnswersOfANonPrometheusServer) {
  auto recorded = FakeTransport::from_directory(testing::recorded("not-prometheus"), "http://10.0.0.5:80");
  ASSERT_TRUE(recorded.ok()) << recorded.error_text();
  FakeTransport fake = std::move(recorded).value();
  QueryClient client(fake);
  const auto html = client.instant("up", std::nullopt);
  ASSERT_FALSE(html.ok());
  EXPECT_EQ(
      html.error_text(),
      "http://10.0.0.5:80: not a Prometheus HTTP API: GET /api/v1/query answered HTTP 200 text/html; "
      "charset=utf-8 '<!doctype html> <html><head><title>Welcome to nginx!</title>...' (expected "
      "JSON with \"status\"; is http://10.0.0.5:80 the Prometheus server's URL, with its route prefix?)\n");
  const auto range = client.range("up", 0, 60, 15);
  EXPECT_NE(range.error_text().find("answered HTTP 404 text/plain; charset=utf-8 '404 page not found'"),
            std::string::npos)
      << range.error_text();
  EXPECT_EQ(client.queries_sent(), 2);
}

TEST(FakeTransport, ARecordingWithoutAStatusLineIsALocatedError) {
  const auto directory = std::filesystem::temp_directory_path() / "gputwin-fake-transport-test";
  std::filesystem::create_directories(directory);
  std::ofstream(directory / "bad.http") << "GET /api/v1/query up\nOK\n\n{}";
  const auto fake = FakeTransport::from_directory(directory.string());
  ASSERT_FALSE(fake.ok());
  EXPECT_EQ(fake.errors().front().where.line, 2);
  EXPECT_NE(fake.error_text().find("expected an HTTP status"), std::string::npos);
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace gputwin::prometheus
