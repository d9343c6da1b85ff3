#include "gputwin/prometheus/query_client.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>
#include <thread>

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

QueryRequest QueryRequest::instant(const std::string& query, std::optional<double> time_s) {
  QueryParams params{{"query", query}};
  if (time_s) params.emplace_back("time", time_param(*time_s));
  return {"/api/v1/query", std::move(params)};
}

QueryRequest QueryRequest::range(const std::string& query, double start_s, double end_s, double step_s) {
  return {"/api/v1/query_range",
          {{"query", query},
           {"start", time_param(start_s)},
           {"end", time_param(end_s)},
           {"step", time_param(step_s)}}};
}

Result<QueryAnswer> QueryClient::instant(const std::string& query, std::optional<double> time_s) {
  const QueryRequest request = QueryRequest::instant(query, time_s);
  return ask(request.path, request.params);
}

Result<QueryAnswer> QueryClient::range(const std::string& query, double start_s, double end_s,
                                       double step_s) {
  const QueryRequest request = QueryRequest::range(query, start_s, end_s, step_s);
  return ask(request.path, request.params);
}

std::optional<InputErrors> QueryClient::ask_each(const std::vector<QueryRequest>& requests, int connections,
                                                 const AnswerUse& use) {
  std::mutex mutex;
  std::condition_variable answered;
  std::vector<std::optional<Result<QueryAnswer>>> answers(requests.size());
  std::size_t next = 0;
  bool stop = false;
  const auto fetch = [&] {
    for (;;) {
      std::size_t index = 0;
      {
        const std::lock_guard lock(mutex);
        if (stop || next == requests.size()) return;
        index = next++;
      }
      auto answer = ask(requests[index].path, requests[index].params);
      {
        const std::lock_guard lock(mutex);
        answers[index] = std::move(answer);
      }
      answered.notify_all();
    }
  };
  // Declared after what they use, so that they are joined (at the end of the scope) before it goes.
  std::vector<std::jthread> fetchers;
  const auto count =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(connections, 1)), requests.size());
  for (std::size_t i = 0; i < count; ++i) fetchers.emplace_back(fetch);
  for (std::size_t index = 0; index < requests.size(); ++index) {
    std::unique_lock lock(mutex);
    answered.wait(lock, [&] { return answers[index].has_value(); });
    Result<QueryAnswer> answer = std::move(*answers[index]);
    answers[index].reset();
    if (!answer.ok()) {
      stop = true;
      return answer.errors();
    }
    lock.unlock();
    use(index, std::move(answer).value());
  }
  return std::nullopt;
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
