#include "gputwin/prometheus/query_api.hpp"

#include <nlohmann/json.hpp>

#include "gputwin/core/json_input.hpp"
#include "gputwin/prometheus/text_scan.hpp"

namespace gputwin::prometheus {
namespace {

using nlohmann::json;

class AnswerReader {
 public:
  explicit AnswerReader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw InputFailure(InputError{{source_, 0, 0}, path, message});
  }

  const json& member(const json& object, const std::string& path, std::string_view key) const {
    const auto found = object.find(key);
    if (found == object.end()) fail(path, "missing \"" + std::string(key) + "\"");
    return *found;
  }

  std::string text(const json& value, const std::string& path) const {
    if (!value.is_string()) fail(path, std::string("expected a string, got ") + value.type_name());
    return value.get<std::string>();
  }

  QueryAnswer read(const json& root) const {
    if (!root.is_object()) fail("", std::string("expected a JSON object, got ") + root.type_name());
    const std::string status = text(member(root, "", "status"), "/status");
    if (status == "error") {
      const auto type = root.find("errorType");
      const auto error = root.find("error");
      fail("", "Prometheus answered an error (" +
                   (type != root.end() && type->is_string() ? type->get<std::string>() : "no errorType") +
                   "): " + (error != root.end() && error->is_string() ? error->get<std::string>() : "?"));
    }
    if (status != "success") fail("/status", "expected \"success\" or \"error\", got \"" + status + "\"");
    QueryAnswer answer;
    if (const auto warnings = root.find("warnings"); warnings != root.end() && warnings->is_array())
      for (const json& warning : *warnings)
        if (warning.is_string()) answer.warnings.push_back(warning.get<std::string>());
    const json& data = member(root, "", "data");
    if (!data.is_object()) fail("/data", std::string("expected an object, got ") + data.type_name());
    const std::string type = text(member(data, "/data", "resultType"), "/data/resultType");
    if (type == "vector")
      answer.type = ResultType::vector;
    else if (type == "matrix")
      answer.type = ResultType::matrix;
    else
      fail("/data/resultType", "expected vector or matrix (a query for series), got " + type);
    const json& result = member(data, "/data", "result");
    if (!result.is_array()) fail("/data/result", std::string("expected an array, got ") + result.type_name());
    answer.series.reserve(result.size());
    for (std::size_t i = 0; i < result.size(); ++i)
      answer.series.push_back(series(result[i], "/data/result/" + std::to_string(i), answer.type));
    return answer;
  }

 private:
  Series series(const json& entry, const std::string& path, ResultType type) const {
    if (!entry.is_object()) fail(path, std::string("expected an object, got ") + entry.type_name());
    Series series;
    const json& metric = member(entry, path, "metric");
    if (!metric.is_object()) fail(path + "/metric", "expected an object of labels");
    series.metric.reserve(metric.size());
    for (const auto& [name, value] : metric.items())
      series.metric.emplace_back(name, text(value, path + "/metric/" + name));
    if (type == ResultType::vector) {
      series.points.push_back(point(member(entry, path, "value"), path + "/value"));
      return series;
    }
    const json& values = member(entry, path, "values");
    if (!values.is_array()) fail(path + "/values", "expected an array of [time, value] pairs");
    series.points.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      series.points.push_back(point(values[i], path + "/values/" + std::to_string(i)));
    return series;
  }

  SeriesPoint point(const json& pair, const std::string& path) const {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string())
      fail(path, "expected [time, \"value\"] (a number and a string)");
    const auto& value_text = pair[1].get_ref<const std::string&>();
    const auto value = parse_sample_value(value_text);
    if (!value)
      fail(path + "/1", "expected a sample value (a number, NaN, +Inf or -Inf), got \"" + value_text + "\"");
    return {pair[0].get<double>(), *value};
  }

  const std::string& source_;
};

}  // namespace

Result<QueryAnswer> read_query_answer(std::string_view body, const std::string& source) {
  return result_of<QueryAnswer>([&] {
    const json document = parse_json(body, source);
    return AnswerReader(source).read(document);
  });
}

}  // namespace gputwin::prometheus
