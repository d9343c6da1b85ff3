// How the Prometheus readers reach a server: one GET with query parameters, answered by a status and a body,
// or by a located error when no answer came (connection refused, time-out). The HTTP transport
// (http_transport.hpp) talks to a real server; the fake (fake_transport.hpp) replays recorded answers, so
// tests need no server, as DCGM's nvml-injection lets its tests run without a GPU.
//
//   std::unique_ptr<Transport> transport = make_http_transport("http://127.0.0.1:9090", {}).value();
//   Result<HttpResponse> answer = transport->get("/api/v1/query", {{"query", "up"}});
//   answer.value().status;   // 200
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gputwin/core/error.hpp"

namespace gputwin::prometheus {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  int status = 0;
  std::string content_type;  // as the server sent it ("application/json", "text/html; charset=utf-8")
  std::string body;
};

class Transport {
 public:
  Transport() = default;
  virtual ~Transport() = default;

  // The server's address as errors name it ("http://127.0.0.1:9090").
  [[nodiscard]] virtual std::string url() const = 0;
  // Any HTTP answer, whatever its status; an error naming the URL when none came. Safe to call from several
  // threads at once (QueryClient::ask_each sends independent queries concurrently).
  [[nodiscard]] virtual Result<HttpResponse> get(const std::string& path, const QueryParams& params) = 0;

 protected:
  // Copied or moved only as its concrete type (a fake is a value; the HTTP transport is held by pointer).
  Transport(const Transport&) = default;
  Transport(Transport&&) = default;
  Transport& operator=(const Transport&) = default;
  Transport& operator=(Transport&&) = default;
};

}  // namespace gputwin::prometheus
