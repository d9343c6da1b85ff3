#include "gputwin/prometheus/query_client.hpp"

#include <fmt/format.h>

#include "gputwin/prometheus/text_scan.hpp"

namespace gputwin::prometheus {
namespace {

// Times as the API takes them: Unix seconds with milliseconds.
std::string time_param(double seconds) {
  return fmt::format("{:.3f}", seconds);
}

// The start of a body, on one line, for an error that quotes what the server sent.
std::string excerpt(std::string_view body) {
  constexpr std::size_t kLongest = 60;
  std::string text(trim(body.substr(0, kLongest)));
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return body.size() > kLongest ? text + "..." : text;
}

bool looks_like_json(std::string_view body) {
  const std::string_view start = trim(body.substr(0, 64));
  return start.starts_with("{");
}

}  // namespace

Result<QueryAnswer> QueryClient::instant(const std::string& query, std::optional<double> time_s) {
  QueryParams params{{"query", query}};
  if (time_s) params.emplace_back("time", time_param(*time_s));
  return ask("/api/v1/query", params);
}

Result<QueryAnswer> QueryClient::range(const std::string& query, double start_s, double end_s,
                                       double step_s) {
  return ask("/api/v1/query_range", {{"query", query},
                                     {"start", time_param(start_s)},
                                     {"end", time_param(end_s)},
                                     {"step", time_param(step_s)}});
}

Result<QueryAnswer> QueryClient::ask(const std::string& path, const QueryParams& params) {
  ++queries_sent_;
  const std::string url = transport_.url();
  auto response = transport_.get(path, params);
  if (!response.ok()) return response.errors();
  const HttpResponse& http = response.value();
  const std::string source = url + path;
  // Prometheus answers 200, or 400/422/503 with its JSON error body; anything else is another server.
  const bool api_status =
      http.status == 200 || http.status == 400 || http.status == 422 || http.status == 503;
  if (!api_status || !looks_like_json(http.body))
    return InputError{
        {url, 0, 0},
        "",
        fmt::format(
            "not a Prometheus HTTP API: GET {} answered HTTP {}{} '{}' (expected JSON with \"status\"; "
            "is {} the Prometheus server's URL, with its route prefix?)",
            path, http.status, http.content_type.empty() ? "" : " " + http.content_type, excerpt(http.body),
            url)};
  return read_query_answer(http.body, source);
}

}  // namespace gputwin::prometheus
