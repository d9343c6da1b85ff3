// QueryClient::ask_each (issue 19 item 6): independent queries in flight at once, their answers used in the
// queries' order whatever order they arrive in, the first error in that order returned.
#include "gputwin/prometheus/query_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace gputwin::prometheus {
namespace {

// Answers query "qN" with one series labelled q="qN"; query "slow-first" (the first) answers 200 ms late, so
// that it arrives after those sent beside it. Holds each of the first `concurrent` requests until that many
// are in flight (or 5 s pass), and records the most that ever were.
class GatedTransport final : public Transport {
 public:
  explicit GatedTransport(int concurrent) : concurrent_(concurrent) {}

  [[nodiscard]] std::string url() const override { return "http://gated.test:9090"; }

  [[nodiscard]] Result<HttpResponse> get(const std::string& /*path*/, const QueryParams& params) override {
    const std::string query = params.front().second;
    {
      std::unique_lock lock(mutex_);
      ++in_flight_;
      most_in_flight_ = std::max(most_in_flight_, in_flight_);
      released_ = released_ || in_flight_ >= concurrent_;  // kept: the first may finish before the rest wake
      changed_.notify_all();
      if (arrivals_++ < concurrent_)
        changed_.wait_for(lock, std::chrono::seconds(5), [&] { return released_; });
    }
    if (query == "slow-first") std::this_thread::sleep_for(std::chrono::milliseconds(200));
    {
      const std::lock_guard lock(mutex_);
      --in_flight_;
    }
    if (query == "broken") return HttpResponse{404, "text/html", "<html>not here</html>"};
    return HttpResponse{200, "application/json",
                        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"q":")" +
                            query + R"("},"value":[1,"1"]}]}})"};
  }

  [[nodiscard]] int most_in_flight() const { return most_in_flight_; }

 private:
  int concurrent_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool released_ = false;
  int arrivals_ = 0;
  int in_flight_ = 0;
  int most_in_flight_ = 0;
};

std::vector<QueryRequest> requests_of(const std::vector<std::string>& queries) {
  std::vector<QueryRequest> requests;
  for (const std::string& query : queries) requests.push_back(QueryRequest::instant(query, std::nullopt));
  return requests;
}

TEST(QueryClient, AsksConcurrentlyAndUsesTheAnswersInTheQueriesOrder) {
  GatedTransport transport(3);
  QueryClient client(transport);
  std::vector<std::string> used;
  const auto failed = client.ask_each(requests_of({"slow-first", "q1", "q2", "q3", "q4", "q5"}), 3,
                                      [&](std::size_t index, QueryAnswer answer) {
                                        EXPECT_EQ(index, used.size());
                                        used.push_back(label_of(answer.series.at(0).metric, "q").value());
                                      });
  EXPECT_FALSE(failed.has_value());
  EXPECT_EQ(used, (std::vector<std::string>{"slow-first", "q1", "q2", "q3", "q4", "q5"}));
  EXPECT_EQ(transport.most_in_flight(), 3);
  EXPECT_EQ(client.queries_sent(), 6);
}

TEST(QueryClient, OneConnectionAsksOneQueryAtATime) {
  GatedTransport transport(1);
  QueryClient client(transport);
  int used = 0;
  EXPECT_FALSE(client.ask_each(requests_of({"q0", "q1", "q2"}), 1, [&](std::size_t, QueryAnswer) { ++used; })
                   .has_value());
  EXPECT_EQ(used, 3);
  EXPECT_EQ(transport.most_in_flight(), 1);
}

TEST(QueryClient, TheFirstErrorInTheQueriesOrderIsReturnedAndNothingAfterItIsUsed) {
  GatedTransport transport(2);
  QueryClient client(transport);
  std::vector<std::size_t> used;
  const auto failed = client.ask_each(requests_of({"q0", "broken", "q2", "q3"}), 2,
                                      [&](std::size_t index, QueryAnswer) { used.push_back(index); });
  ASSERT_TRUE(failed.has_value());
  EXPECT_NE(failed->front().message.find("not a Prometheus HTTP API: GET /api/v1/query answered HTTP 404"),
            std::string::npos)
      << failed->front().message;
  EXPECT_EQ(used, std::vector<std::size_t>{0});
}

}  // namespace
}  // namespace gputwin::prometheus
