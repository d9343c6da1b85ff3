// A transport that replays recorded answers instead of talking to a server, for tests and benchmarks: each
// GET is answered by the recording of its path and exact `query` parameter, else by the recording whose query
// ends in '*' and is the longest prefix of it, else by one for any query of the path.
// It keeps every request it was asked, so a test can count the queries sent; it may be asked from several
// threads at once (QueryClient::ask_each), so the order kept is the order the requests came in.
//
//   FakeTransport fake;
//   fake.add("/api/v1/query", "up", {200, "application/json", R"({"status":"success",...})"});
//   fake.add("/api/v1/query_range", "", {404, "text/plain", "404 page not found"});   // any query
//   Result<FakeTransport> recorded = FakeTransport::from_directory("tests/prometheus/healthy");
//
// A recorded answer is a file (*.http) in the directory: a request line, a status line, a blank line, the
// body:
//
//   GET /api/v1/query DCGM_FI_DEV_GPU_TEMP       (the `query` parameter; 'max_over_time(*' answers every
//                                                 query starting so; '*' alone answers any query)
//   200 application/json
//
//   {"status":"success","data":{"resultType":"vector","result":[...]}}
//
// A request with no recording fails loudly (a located error naming it), as no server would stay silent.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/prometheus/transport.hpp"

namespace gputwin::prometheus {

class FakeTransport final : public Transport {
 public:
  struct Request {
    std::string path;
    QueryParams params;
  };

  explicit FakeTransport(std::string url = "http://prometheus.test:9090") : url_(std::move(url)) {}

  // Reads every *.http recording of the directory (in name order); errors name the file and line.
  [[nodiscard]] static Result<FakeTransport> from_directory(const std::string& directory,
                                                            std::string url = "http://prometheus.test:9090");

  // The answer to GETs of `path` whose `query` parameter is `query`; a `query` ending in '*' answers those
  // starting with the rest; an empty `query` (or "*") answers any.
  void add(std::string path, std::string query, HttpResponse response);
  // Every GET fails with this error instead (a refused connection, a time-out).
  void fail_every_request(InputError error) { failure_ = std::move(error); }

  [[nodiscard]] std::string url() const override { return url_; }
  [[nodiscard]] Result<HttpResponse> get(const std::string& path, const QueryParams& params) override;
  [[nodiscard]] const std::vector<Request>& requests() const { return requests_; }

 private:
  struct Recording {
    std::string path;
    std::string query;  // empty: any
    HttpResponse response;
  };

  // Guards requests_; a copy of the fake gets a mutex of its own.
  struct RequestsMutex {
    std::mutex mutex;
    RequestsMutex() = default;
    RequestsMutex(const RequestsMutex& /*other*/) {}
    RequestsMutex& operator=(const RequestsMutex& /*other*/) { return *this; }
    ~RequestsMutex() = default;
  };

  std::string url_;
  std::vector<Recording> recordings_;
  RequestsMutex requests_mutex_;
  std::vector<Request> requests_;
  std::optional<InputError> failure_;
};

}  // namespace gputwin::prometheus
