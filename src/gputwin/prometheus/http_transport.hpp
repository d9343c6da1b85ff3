// The HTTP transport on cpp-httplib (Debian's libcpp-httplib-dev): GET requests to a Prometheus server with
// bounded waits. A URL may carry a route prefix (http://host:9090/prometheus); https is accepted.
//
//   HttpOptions options;
//   options.read_timeout = std::chrono::seconds(30);
//   Result<std::unique_ptr<Transport>> transport = make_http_transport("http://127.0.0.1:9090", options);
//
// Connection refused or an unknown host is an error naming the URL; no connection within `connect_timeout`,
// or a wait for data longer than `read_timeout`, is an error stating the time-out. The read time-out bounds
// each wait for data, not the whole transfer: a server that keeps sending is not cut off.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "gputwin/core/error.hpp"
#include "gputwin/prometheus/transport.hpp"

namespace gputwin::prometheus {

struct HttpOptions {
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(5)};
  std::chrono::milliseconds read_timeout{std::chrono::seconds(10)};
};

// An error naming the URL when it is not http(s)://host[:port][/prefix].
[[nodiscard]] Result<std::unique_ptr<Transport>> make_http_transport(const std::string& url,
                                                                     const HttpOptions& options);

}  // namespace gputwin::prometheus
