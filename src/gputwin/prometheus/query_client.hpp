// Instant and range queries against a Prometheus server through a Transport, their answers read into series.
//
//   QueryClient client(transport);
//   Result<QueryAnswer> now = client.instant("DCGM_FI_DEV_GPU_TEMP", 1795003200.0);
//   Result<QueryAnswer> day = client.range("DCGM_FI_DEV_GPU_UTIL", start, end, 300);
//   client.queries_sent();   // 2
//   client.ask_each({QueryRequest::instant("up", {}), QueryRequest::range(...)}, 3,
//                   [](std::size_t index, QueryAnswer answer) { ... });   // in the requests' order
//
// What is not a Prometheus answer is said so, naming the URL: an HTTP status other than 200 without the API's
// JSON error body (a 404 from another server), an HTML page, JSON of another shape. Prometheus's own errors
// (400 bad_data, 422 execution, 503 timeout) are quoted.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/prometheus/query_api.hpp"
#include "gputwin/prometheus/transport.hpp"

namespace gputwin::prometheus {

// A query to send: the API's path and its parameters.
struct QueryRequest {
  std::string path;
  QueryParams params;

  // At `time_s` (Unix seconds), or at the server's now when empty.
  [[nodiscard]] static QueryRequest instant(const std::string& query, std::optional<double> time_s);
  [[nodiscard]] static QueryRequest range(const std::string& query, double start_s, double end_s,
                                          double step_s);
};

class QueryClient {
 public:
  using AnswerUse = std::function<void(std::size_t index, QueryAnswer answer)>;

  explicit QueryClient(Transport& transport) : transport_(transport) {}

  // At `time_s` (Unix seconds), or at the server's now when empty.
  [[nodiscard]] Result<QueryAnswer> instant(const std::string& query, std::optional<double> time_s);
  [[nodiscard]] Result<QueryAnswer> range(const std::string& query, double start_s, double end_s,
                                          double step_s);
  // Sends the requests over at most `connections` at once, each answer read on the thread that fetched it, so
  // the server answers one while gputwin reads another; hands each answer to `use` on the calling thread in
  // the requests' order (so what is built from them does not depend on which came first). The first error in
  // that order stops sending and is returned; nullopt when every answer was used.
  [[nodiscard]] std::optional<InputErrors> ask_each(const std::vector<QueryRequest>& requests,
                                                    int connections, const AnswerUse& use);
  [[nodiscard]] int queries_sent() const { return queries_sent_; }
  [[nodiscard]] std::string url() const { return transport_.url(); }

 private:
  [[nodiscard]] Result<QueryAnswer> ask(const std::string& path, const QueryParams& params);

  Transport& transport_;
  std::atomic<int> queries_sent_ = 0;
};

}  // namespace gputwin::prometheus
