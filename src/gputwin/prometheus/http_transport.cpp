#include "gputwin/prometheus/http_transport.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <mutex>
#include <optional>
#include <vector>

namespace gputwin::prometheus {
namespace {

// "12 s", "1.5 s", "250 ms": a time-out as an error states it.
std::string duration_text(std::chrono::milliseconds duration) {
  if (duration.count() % 1000 == 0) return fmt::format("{} s", duration.count() / 1000);
  if (duration.count() > 1000) return fmt::format("{:g} s", static_cast<double>(duration.count()) / 1000.0);
  return fmt::format("{} ms", duration.count());
}

struct ParsedUrl {
  std::string scheme_host_port;  // "http://127.0.0.1:9090", what httplib connects to
  std::string prefix;            // "" or "/prometheus", put before every path
};

std::optional<ParsedUrl> parse_url(const std::string& url) {
  std::string_view rest = url;
  std::string_view scheme;
  for (std::string_view candidate : {"http://", "https://"})
    if (rest.starts_with(candidate)) scheme = candidate;
  if (scheme.empty()) return std::nullopt;
  rest.remove_prefix(scheme.size());
  const auto slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  if (authority.empty() || authority.find_first_of("?#@ ") != std::string_view::npos) return std::nullopt;
  std::string prefix(slash == std::string_view::npos ? std::string_view() : rest.substr(slash));
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (prefix.find_first_of("?# ") != std::string::npos) return std::nullopt;
  return ParsedUrl{std::string(scheme) + std::string(authority), prefix};
}

class HttpTransport final : public Transport {
 public:
  HttpTransport(std::string url, ParsedUrl parsed, const HttpOptions& options)
      : url_(std::move(url)),
        scheme_host_port_(std::move(parsed.scheme_host_port)),
        prefix_(std::move(parsed.prefix)),
        options_(options) {}

  [[nodiscard]] std::string url() const override { return url_; }

  [[nodiscard]] Result<HttpResponse> get(const std::string& path, const QueryParams& params) override {
    httplib::Params query;
    for (const auto& [key, value] : params) query.emplace(key, value);
    std::unique_ptr<httplib::Client> client = take_client();
    const auto answer = client->Get(prefix_ + path, query, httplib::Headers{});
    give_back(std::move(client));
    if (!answer) return failure(path, answer.error());
    return HttpResponse{answer->status, answer->get_header_value("Content-Type"), answer->body};
  }

 private:
  // One connection per request in flight: an httplib client sends one request at a time, so concurrent
  // GETs each take an idle client (kept alive for the next) or open a new one.
  [[nodiscard]] std::unique_ptr<httplib::Client> take_client() {
    {
      const std::lock_guard lock(idle_mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<httplib::Client> client = std::move(idle_.back());
        idle_.pop_back();
        return client;
      }
    }
    auto client = std::make_unique<httplib::Client>(scheme_host_port_);
    client->set_connection_timeout(options_.connect_timeout);
    client->set_read_timeout(options_.read_timeout);
    client->set_write_timeout(options_.read_timeout);
    client->set_keep_alive(true);
    return client;
  }

  void give_back(std::unique_ptr<httplib::Client> client) {
    const std::lock_guard lock(idle_mutex_);
    idle_.push_back(std::move(client));
  }

  [[nodiscard]] InputError failure(const std::string& path, httplib::Error error) const {
    std::string message;
    switch (error) {
      case httplib::Error::Connection:
        message = fmt::format(
            "cannot connect to {} (connection refused, host unreachable or no connection within the connect "
            "time-out of {})",
            url_, duration_text(options_.connect_timeout));
        break;
      case httplib::Error::ConnectionTimeout:
        message = fmt::format("no connection to {} within the connect time-out of {}", url_,
                              duration_text(options_.connect_timeout));
        break;
      case httplib::Error::Read:
        message = fmt::format(
            "no answer from {} for GET {} within the read time-out of {} (a slow or stuck server; raise "
            "--timeout)",
            url_, path, duration_text(options_.read_timeout));
        break;
      default:
        message = fmt::format("GET {} at {} failed: {}", path, url_, httplib::to_string(error));
        break;
    }
    return InputError{{url_, 0, 0}, "", message};
  }

  std::string url_;
  std::string scheme_host_port_;  // what httplib connects to
  std::string prefix_;
  HttpOptions options_;
  std::mutex idle_mutex_;
  std::vector<std::unique_ptr<httplib::Client>> idle_;
};

}  // namespace

Result<std::unique_ptr<Transport>> make_http_transport(const std::string& url, const HttpOptions& options) {
  const auto parsed = parse_url(url);
  if (!parsed)
    return InputError{{url, 0, 0},
                      "",
                      "not an http(s) URL of a Prometheus server: expected "
                      "http://HOST[:PORT][/PREFIX], e.g. http://127.0.0.1:9090"};
  // Named without a trailing slash, so that the URL and a path join into one address.
  std::string name = parsed->scheme_host_port + parsed->prefix;
  std::unique_ptr<Transport> transport = std::make_unique<HttpTransport>(std::move(name), *parsed, options);
  return transport;
}

}  // namespace gputwin::prometheus
