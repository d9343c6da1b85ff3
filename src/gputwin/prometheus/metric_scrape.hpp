// Samples of Prometheus metrics as plain values: what a /metrics scrape (ExpositionText) holds, and what
// validate turns into per-GPU facts (validate/dcgm_exporter_facts).
//
//   for (const MetricSample& sample : scrape.samples)
//     if (sample.name == "DCGM_FI_DEV_GPU_TEMP") sample.label("gpu");   // "0"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gputwin::prometheus {

// A line (or a series) of input a reader did not turn into a sample, with why: counted and shown, never
// silently dropped. `line` is 0 when the input has no lines (a series of a query answer).
struct SkippedLine {
  int line = 0;
  std::string reason;
};

using Labels = std::vector<std::pair<std::string, std::string>>;

[[nodiscard]] inline std::optional<std::string> label_of(const Labels& labels, std::string_view key) {
  for (const auto& [name, text] : labels)
    if (name == key) return text;
  return std::nullopt;
}

// One sample of a metric: from a line of a text exposition, or one point of a series a query returned.
struct MetricSample {
  int line = 0;
  std::string name;
  Labels labels;     // in the order written, values unescaped
  double value = 0;  // may be NaN or +-Inf, as written
  std::optional<std::int64_t> timestamp_ms;

  [[nodiscard]] std::optional<std::string> label(std::string_view key) const { return label_of(labels, key); }
};

struct MetricScrape {
  std::string source;
  std::vector<std::pair<std::string, std::string>> help;  // metric name, help text
  std::vector<std::pair<std::string, std::string>> type;  // metric name, counter|gauge|...
  std::vector<MetricSample> samples;
  std::vector<SkippedLine> skipped;
};

}  // namespace gputwin::prometheus
