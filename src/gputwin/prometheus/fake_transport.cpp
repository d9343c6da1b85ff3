#include "gputwin/prometheus/fake_transport.hpp"

#include <algorithm>
#include <filesystem>

#include "gputwin/core/input_file.hpp"
#include "gputwin/prometheus/text_scan.hpp"

namespace gputwin::prometheus {
namespace {

std::string query_of(const QueryParams& params) {
  for (const auto& [key, value] : params)
    if (key == "query") return value;
  return "";
}

// One recording: "GET PATH QUERY" / "STATUS [CONTENT-TYPE]" / "" / body.
void read_recording(const std::string& file, FakeTransport& fake) {
  const std::string text = read_input_file(file);
  const auto fail = [&](int line, const std::string& message) {
    throw InputFailure(InputError{{file, line, 0}, "", message});
  };
  const auto first_end = text.find('\n');
  const auto second_end = first_end == std::string::npos ? first_end : text.find('\n', first_end + 1);
  if (second_end == std::string::npos) fail(1, "expected a request line and a status line");
  const std::string_view request = trim(std::string_view(text).substr(0, first_end));
  const std::string_view status_line =
      trim(std::string_view(text).substr(first_end + 1, second_end - first_end - 1));
  if (!request.starts_with("GET /")) fail(1, "expected 'GET /PATH QUERY'");
  const auto path_end = request.find(' ', 4);
  const std::string path(request.substr(4, path_end == std::string_view::npos ? request.npos : path_end - 4));
  std::string query(path_end == std::string_view::npos ? "" : trim(request.substr(path_end)));
  if (query.empty()) fail(1, "expected the query after the path ('*' for any query)");
  const auto words = split_whitespace(status_line);
  const auto status = words.empty() ? std::nullopt : parse_integer(words.front());
  if (!status || *status < 100 || *status > 599) fail(2, "expected an HTTP status (100-599) first");
  std::string content_type(words.size() > 1 ? trim(status_line.substr(words[1].data() - status_line.data()))
                                            : std::string_view());
  std::string body = second_end + 1 < text.size() ? text.substr(second_end + 1) : "";
  if (!body.empty() && body.front() == '\n')
    body.erase(0, 1);
  else if (!body.empty())
    fail(3, "expected a blank line between the status line and the body");
  fake.add(path, std::move(query), {static_cast<int>(*status), std::move(content_type), std::move(body)});
}

}  // namespace

Result<FakeTransport> FakeTransport::from_directory(const std::string& directory, std::string url) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(directory, error))
    return InputError{{directory, 0, 0}, "", "no directory of recorded answers"};
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(directory))
    if (entry.path().extension() == ".http") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return result_of<FakeTransport>([&] {
    FakeTransport fake(std::move(url));
    for (const std::string& file : files) read_recording(file, fake);
    return fake;
  });
}

void FakeTransport::add(std::string path, std::string query, HttpResponse response) {
  recordings_.push_back({std::move(path), std::move(query), std::move(response)});
}

Result<HttpResponse> FakeTransport::get(const std::string& path, const QueryParams& params) {
  {
    const std::lock_guard lock(requests_mutex_.mutex);
    requests_.push_back({path, params});
  }
  if (failure_) return *failure_;
  const std::string query = query_of(params);
  const Recording* best = nullptr;
  std::size_t best_length = 0;
  for (const Recording& recording : recordings_) {
    if (recording.path != path) continue;
    if (recording.query == query) return recording.response;
    const bool prefix = recording.query.empty() || recording.query.back() == '*';
    const std::string_view stem =
        std::string_view(recording.query).substr(0, recording.query.empty() ? 0 : recording.query.size() - 1);
    if (prefix && query.starts_with(stem) && (best == nullptr || stem.size() + 1 > best_length)) {
      best = &recording;
      best_length = stem.size() + 1;
    }
  }
  if (best != nullptr) return best->response;
  return InputError{
      {url_, 0, 0}, "", "fake transport: no recorded answer for GET " + path + " query=" + query};
}

}  // namespace gputwin::prometheus
