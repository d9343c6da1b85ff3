// Reads an answer of the Prometheus HTTP API (/api/v1/query, /api/v1/query_range) from its JSON:
// {"status": "success"|"error", "errorType", "error", "warnings", "data": {"resultType": "vector"|"matrix",
// "result": [{"metric": {labels}, "value": [t, "v"]} | {"metric": {...}, "values": [[t, "v"], ...]}]}}.
// Sample values are strings, NaN, +Inf and -Inf included, as Prometheus writes them.
//
//   Result<QueryAnswer> answer = read_query_answer(body, "http://127.0.0.1:9090/api/v1/query");
//   for (const Series& series : answer.value().series)
//     series.metric;   // labels, __name__ included when the query kept it
//     series.points;   // one point (vector) or many (matrix)
//
// An answer with status "error" is an error quoting Prometheus's errorType and error; JSON that is not such
// an answer (another server's, cut short) is an error naming the JSON path (or the line and column of bad
// JSON). A scalar or string result is an error too: gputwin asks only for series.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/prometheus/metric_scrape.hpp"

namespace gputwin::prometheus {

struct SeriesPoint {
  double time_s = 0;  // Unix seconds
  double value = 0;   // may be NaN or +-Inf
};

struct Series {
  Labels metric;  // sorted by name, as the JSON object holds them
  std::vector<SeriesPoint> points;
};

enum class ResultType { vector, matrix };

struct QueryAnswer {
  ResultType type = ResultType::vector;
  std::vector<Series> series;
  std::vector<std::string> warnings;
};

[[nodiscard]] Result<QueryAnswer> read_query_answer(std::string_view body, const std::string& source);

}  // namespace gputwin::prometheus
