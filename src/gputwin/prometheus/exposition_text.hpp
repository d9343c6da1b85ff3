// Reads the Prometheus text exposition format (a dcgm-exporter /metrics scrape): # HELP and # TYPE lines,
// samples with labels (escapes \\ \" \n unescaped), values including NaN, +Inf and -Inf, optional timestamps.
//
//   Result<MetricScrape> scrape = ExpositionText::read_file("node017/metrics.txt");
//   for (const MetricSample& sample : scrape.value().samples)
//     if (sample.name == "DCGM_FI_DEV_GPU_TEMP") sample.label("gpu");   // "0"
//
// Text around the exposition (a `curl ...` command pasted above it, curl's `* Connection #0 ... left intact`
// below it) is counted in `skipped`. A line between two metric lines that is neither comment nor sample, and
// anywhere a malformed sample (a metric name followed by labels or a number), is an error naming the line,
// the column and quoting the text.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/prometheus/metric_scrape.hpp"

namespace gputwin::prometheus {

class ExpositionText {
 public:
  [[nodiscard]] static Result<MetricScrape> read_file(const std::string& path);
  [[nodiscard]] static Result<MetricScrape> parse(std::string_view text, const std::string& source);
};

}  // namespace gputwin::prometheus
