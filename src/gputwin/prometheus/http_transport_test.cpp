// The HTTP transport against small cpp-httplib servers on loopback: a Prometheus-like answer, a server that
// is not Prometheus, a port nobody listens on, a server slower than the read time-out.
#include "gputwin/prometheus/http_transport.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "gputwin/prometheus/query_client.hpp"

namespace gputwin::prometheus {
namespace {

using namespace std::chrono_literals;

// A loopback server on a free port, stopped when the test ends.
class LoopbackServer {
 public:
  explicit LoopbackServer(const std::function<void(httplib::Server&)>& routes) {
    routes(server_);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LoopbackServer() {
    server_.stop();
    thread_.join();
  }
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpTransport, AsksAQueryAndReadsTheAnswer) {
  LoopbackServer server([](httplib::Server& s) {
    s.Get("/prefix/api/v1/query", [](const httplib::Request& request, httplib::Response& response) {
      nlohmann::json answer = nlohmann::json::parse(
          R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"7"]}]}})");
      answer["data"]["result"][0]["metric"]["q"] = request.get_param_value("query");
      response.set_content(answer.dump(), "application/json");
    });
  });
  auto transport = make_http_transport(server.url() + "/prefix/", {});
  ASSERT_TRUE(transport.ok()) << transport.error_text();
  QueryClient client(*transport.value());
  const auto answer = client.instant("up{job=\"a b\"}", 12.5);
  ASSERT_TRUE(answer.ok()) << answer.error_text();
  EXPECT_EQ(transport.value()->url(), server.url() + "/prefix");
  EXPECT_EQ(label_of(answer.value().series.at(0).metric, "q"), "up{job=\"a b\"}");  // sent encoded, intact
}

TEST(HttpTransport, AnHtmlPageOrA404IsNotPrometheus) {
  LoopbackServer server([](httplib::Server& s) {
    s.Get("/api/v1/query", [](const httplib::Request&, httplib::Response& response) {
      response.set_content("<!DOCTYPE html><html><body>Grafana</body></html>", "text/html; charset=utf-8");
    });
  });
  auto transport = make_http_transport(server.url(), {});
  QueryClient client(*transport.value());
  const auto html = client.instant("up", std::nullopt);
  ASSERT_FALSE(html.ok());
  EXPECT_NE(
      html.error_text().find("not a Prometheus HTTP API: GET /api/v1/query answered HTTP 200 text/html"),
      std::string::npos)
      << html.error_text();
  EXPECT_NE(html.error_text().find("'<!DOCTYPE html>"), std::string::npos);
  const auto missing = client.range("up", 0, 600, 60);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error_text().find("GET /api/v1/query_range answered HTTP 404"), std::string::npos)
      << missing.error_text();
  EXPECT_EQ(missing.errors().front().where.file, server.url());
}

TEST(HttpTransport, AClosedPortIsAnErrorNamingTheUrl) {
  std::string url;
  {
    LoopbackServer server([](httplib::Server&) {});
    url = server.url();
  }  // stopped: nothing listens on the port now
  auto transport = make_http_transport(url, {});
  const auto answer = transport.value()->get("/api/v1/query", {{"query", "up"}});
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error_text().find("cannot connect to " + url), std::string::npos) << answer.error_text();
}

TEST(HttpTransport, ASlowServerIsCutAtTheReadTimeoutAndTheErrorSaysSo) {
  LoopbackServer server([](httplib::Server& s) {
    s.Get("/api/v1/query", [](const httplib::Request&, httplib::Response& response) {
      std::this_thread::sleep_for(1500ms);
      response.set_content("{}", "application/json");
    });
  });
  HttpOptions options;
  options.read_timeout = 300ms;
  auto transport = make_http_transport(server.url(), options);
  const auto started = std::chrono::steady_clock::now();
  const auto answer = transport.value()->get("/api/v1/query", {{"query", "up"}});
  const auto waited = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error_text().find("within the read time-out of 300 ms"), std::string::npos)
      << answer.error_text();
  EXPECT_LT(waited, 1200ms);
}

TEST(HttpTransport, RejectsAUrlThatIsNoHttpUrl) {
  EXPECT_FALSE(make_http_transport("localhost:9090", {}).ok());
  EXPECT_FALSE(make_http_transport("ftp://host", {}).ok());
  EXPECT_FALSE(make_http_transport("http://", {}).ok());
  EXPECT_NE(make_http_transport("prometheus", {}).error_text().find("expected http://HOST[:PORT][/PREFIX]"),
            std::string::npos);
}

}  // namespace
}  // namespace gputwin::prometheus
