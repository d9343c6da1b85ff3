// Reads the Prometheus text exposition format (a dcgm-exporter /metrics scrape): # HELP and # TYPE lines,
// samples with labels (escapes \\ \" \n unescaped), values including NaN, +Inf and -Inf, optional timestamps.
//
//   Result<MetricScrape> scrape = PrometheusText::read_file("node017/metrics.txt");
//   for (const MetricSample& sample : scrape.value().samples)
//     if (sample.name == "DCGM_FI_DEV_GPU_TEMP") sample.label("gpu");   // "0"
//
// Lines before the exposition starts (a `curl ...` command pasted above it) are counted in `skipped`; once it
// has started, a line that is not a valid comment or sample is an error naming the line.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

class PrometheusText {
 public:
  [[nodiscard]] static Result<MetricScrape> read_file(const std::string& path);
  [[nodiscard]] static Result<MetricScrape> parse(std::string_view text, const std::string& source);
};

}  // namespace gputwin::validate
