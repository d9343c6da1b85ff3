#include "gputwin/validate/prometheus_fleet.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "gputwin/prometheus/query_client.hpp"
#include "gputwin/prometheus/time_params.hpp"
#include "gputwin/validate/dcgm_exporter_facts.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

using prometheus::QueryAnswer;
using prometheus::QueryClient;
using prometheus::Series;

constexpr const char* kUtilization = "DCGM_FI_DEV_GPU_UTIL";

std::string joined(const std::vector<std::string>& names, std::string_view separator) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : std::string(separator)) + name;
  return text;
}

// Where a node's series came from, as findings name it: the server and the label that made the node.
std::string source_of(const std::string& url, const prometheus::Labels& labels, const std::string& host) {
  const char* label = prometheus::label_of(labels, "Hostname") ? "Hostname" : "instance";
  return fmt::format("{} {{{}=\"{}\"}}", url, label, host);
}

struct NodeSeries {
  prometheus::MetricScrape scrape;
};

// Series grouped by node; what cannot be placed on a node's GPU is counted by reason.
class FleetAssembler {
 public:
  FleetAssembler(std::string url, PrometheusRead& read) : url_(std::move(url)), read_(read) {}

  // `name` names series of a query whose answer drops __name__ (max_over_time).
  void add(QueryAnswer answer, const std::optional<std::string>& name) {
    read_.series += static_cast<int>(answer.series.size());
    for (Series& series : answer.series) add_series(std::move(series), name);
  }

  Fleet fleet() {
    Fleet fleet;
    fleet.directory = url_;
    for (auto& [host, node_series] : nodes_) {
      FleetNode node;
      node.name = host;
      node.path = url_;
      node.files.push_back({node_series.scrape.source, FileKind::prometheus_query, ""});
      NodeFacts facts = facts_from_dcgm_scrape(node_series.scrape);
      if (!facts.gpus.empty()) node.facts = std::move(facts);
      node.metric_scrapes.push_back(std::move(node_series.scrape));
      fleet.nodes.push_back(std::move(node));
    }
    return fleet;
  }

 private:
  void add_series(Series series, const std::optional<std::string>& name) {
    const std::string host = host_of(series.metric);
    if (host.empty()) return skip("no Hostname or instance label");
    const auto gpu = prometheus::label_of(series.metric, "gpu");
    if (!gpu || !parse_integer(*gpu)) return skip("no gpu label (or not a GPU index)");
    const auto metric = name ? name : prometheus::label_of(series.metric, "__name__");
    if (!metric) return skip("no metric name");
    NodeSeries& node = nodes_[host];
    if (node.scrape.source.empty()) node.scrape.source = source_of(url_, series.metric, host);
    for (std::size_t i = 0; i < series.points.size(); ++i) {
      const prometheus::SeriesPoint& point = series.points[i];
      if (std::isnan(point.value)) {
        ++read_.nan_samples;
        continue;
      }
      prometheus::MetricSample sample;
      sample.name = *metric;
      // An instant answer has one point per series: its labels move into the sample.
      sample.labels = i + 1 == series.points.size() ? std::move(series.metric) : series.metric;
      sample.value = point.value;
      sample.timestamp_ms = std::llround(point.time_s * 1000);
      node.scrape.samples.push_back(std::move(sample));
    }
  }

  void skip(const std::string& reason) { ++read_.skipped_series[reason]; }

  std::string url_;
  PrometheusRead& read_;
  std::map<std::string, NodeSeries> nodes_;
};

// Utilisation by interval: each GPU (node and index) counted once per step, however many series carry it.
std::vector<UtilizationPoint> timeline_of(const QueryAnswer& answer, double start_s, double end_s,
                                          double step_s, PrometheusRead& read) {
  const auto steps = static_cast<std::size_t>(std::floor((end_s - start_s) / step_s + 1e-9)) + 1;
  std::vector<UtilizationPoint> timeline(steps);
  std::vector<double> sums(steps, 0);
  for (std::size_t i = 0; i < steps; ++i) timeline[i].time_s = start_s + static_cast<double>(i) * step_s;
  std::set<std::pair<std::string, std::string>> seen;
  read.series += static_cast<int>(answer.series.size());
  for (const Series& series : answer.series) {
    const std::string host = host_of(series.metric);
    const auto gpu = prometheus::label_of(series.metric, "gpu");
    if (host.empty() || !gpu) {
      ++read.skipped_series[host.empty() ? "no Hostname or instance label"
                                         : "no gpu label (or not a GPU index)"];
      continue;
    }
    if (!seen.emplace(host, *gpu).second) {
      ++read.skipped_series["a second utilisation series of the same GPU"];
      continue;
    }
    for (const prometheus::SeriesPoint& point : series.points) {
      if (std::isnan(point.value)) {
        ++read.nan_samples;
        continue;
      }
      const double index = std::round((point.time_s - start_s) / step_s);
      if (index < 0 || index >= static_cast<double>(steps)) continue;
      const auto at = static_cast<std::size_t>(index);
      ++timeline[at].gpus;
      timeline[at].busy_gpus += point.value > 0 ? 1 : 0;
      sums[at] += point.value;
    }
  }
  for (std::size_t i = 0; i < steps; ++i)
    if (timeline[i].gpus > 0) timeline[i].mean_utilization_percent = sums[i] / timeline[i].gpus;
  return timeline;
}

InputError no_series_error(const std::string& url, const PrometheusWindow& window) {
  const std::string when = window.at_s ? " at " + prometheus::rfc3339(*window.at_s) : "";
  return InputError{
      {url, 0, 0},
      "",
      fmt::format("no DCGM_FI_* series at {}{} (none of the dcgm-exporter metrics gputwin reads, "
                  "e.g. DCGM_FI_DEV_GPU_TEMP: is dcgm-exporter scraped by this Prometheus?)",
                  url, when)};
}

}  // namespace

std::string host_of(const prometheus::Labels& labels) {
  if (auto hostname = prometheus::label_of(labels, "Hostname"); hostname && !hostname->empty())
    return *hostname;
  auto instance = prometheus::label_of(labels, "instance");
  if (!instance) return "";
  // "node01:9400" -> "node01"; "[::1]:9400" -> "[::1]".
  const auto colon = instance->rfind(':');
  if (colon != std::string::npos && colon + 1 < instance->size() &&
      instance->find(']', colon) == std::string::npos &&
      parse_integer(std::string_view(*instance).substr(colon + 1)))
    instance->erase(colon);
  return *instance;
}

Result<PrometheusFleet> read_prometheus_fleet(prometheus::Transport& transport,
                                              const PrometheusWindow& window) {
  PrometheusFleet result;
  PrometheusRead& read = result.read;
  read.url = transport.url();
  read.window = window;
  QueryClient client(transport);
  FleetAssembler assembler(read.url, read);

  const std::string every_fact =
      "{__name__=~\"" + joined(dcgm_fact_metrics(), "|") + "|" + kUtilization + "\"}";
  auto now = client.instant(every_fact, window.at_s);
  if (!now.ok()) return now.errors();
  if (now.value().series.empty()) return no_series_error(read.url, window);
  assembler.add(std::move(now).value(), std::nullopt);

  if (window.range_s && window.at_s) {
    const std::string range = prometheus::duration_text(*window.range_s);
    for (const std::string& metric : dcgm_fault_metrics()) {
      auto worst = client.instant("max_over_time(" + metric + "[" + range + "])", window.at_s);
      if (!worst.ok()) return worst.errors();
      assembler.add(std::move(worst).value(), metric);
    }
    const double start_s = *window.at_s - *window.range_s;
    const auto utilization = client.range(kUtilization, start_s, *window.at_s, window.step_s);
    if (!utilization.ok()) return utilization.errors();
    read.timeline = timeline_of(utilization.value(), start_s, *window.at_s, window.step_s, read);
  }
  read.queries = client.queries_sent();
  result.fleet = assembler.fleet();
  if (result.fleet.nodes.empty())
    return InputError{{read.url, 0, 0},
                      "",
                      fmt::format("none of the {} DCGM_FI_* series at {} names a node and a GPU (labels "
                                  "Hostname or instance, and gpu): nothing to validate",
                                  read.series, read.url)};
  return result;
}

}  // namespace gputwin::validate
