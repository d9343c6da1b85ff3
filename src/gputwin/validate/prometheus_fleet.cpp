#include "gputwin/validate/prometheus_fleet.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
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

// A GPU of the fleet: its node and its index.
using GpuKey = std::pair<std::string, int>;

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

  [[nodiscard]] bool has_gpu(const GpuKey& gpu) const { return gpus_.contains(gpu); }

  // A GPU only the utilisation range saw (no instant or worst-fault series of it: it left before the range's
  // end and logged no fault metric the range read): placed from its latest utilisation sample.
  void add_utilization_only(const prometheus::Labels& labels, double time_s, double value) {
    ++read_.series;
    add_series(Series{labels, {{time_s, value}}}, std::string(kUtilization));
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
    gpus_.emplace(host, static_cast<int>(*parse_integer(*gpu)));
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
  std::set<GpuKey> gpus_;
};

// The utilisation range query, one row of steps per GPU: empty where the GPU had no sample, NaN where its
// sample was NaN (it reported, with no value). Several series of one GPU fill one row, the first in the
// answer's order winning a step both have.
struct UtilizationGrid {
  double start_s = 0;
  double step_s = 0;
  std::size_t steps = 0;
  std::map<GpuKey, std::vector<std::optional<double>>> rows;
  // The GPU's latest sample with a value, and the labels of its series.
  struct Latest {
    double time_s = 0;
    double value = 0;
    prometheus::Labels labels;
  };
  std::map<GpuKey, Latest> latest;

  [[nodiscard]] double time_of(std::size_t step) const {
    return start_s + static_cast<double>(step) * step_s;
  }
};

UtilizationGrid grid_of(const QueryAnswer& answer, double start_s, double end_s, double step_s,
                        PrometheusRead& read) {
  UtilizationGrid grid;
  grid.start_s = start_s;
  grid.step_s = step_s;
  grid.steps = static_cast<std::size_t>(std::floor((end_s - start_s) / step_s + 1e-9)) + 1;
  read.series += static_cast<int>(answer.series.size());
  for (const Series& series : answer.series) {
    const std::string host = host_of(series.metric);
    const auto gpu_label = prometheus::label_of(series.metric, "gpu");
    const auto gpu = gpu_label ? parse_integer(*gpu_label) : std::nullopt;
    if (host.empty() || !gpu) {
      ++read.skipped_series[host.empty() ? "no Hostname or instance label"
                                         : "no gpu label (or not a GPU index)"];
      continue;
    }
    const GpuKey key{host, static_cast<int>(*gpu)};
    auto& row = grid.rows[key];
    row.resize(grid.steps);
    for (const prometheus::SeriesPoint& point : series.points) {
      const double index = std::round((point.time_s - start_s) / step_s);
      if (index < 0 || index >= static_cast<double>(grid.steps)) continue;
      auto& cell = row[static_cast<std::size_t>(index)];
      if (cell) continue;
      cell = point.value;
      if (std::isnan(point.value)) continue;
      const auto known = grid.latest.find(key);
      if (known == grid.latest.end() || point.time_s > known->second.time_s)
        grid.latest[key] = {point.time_s, point.value, series.metric};
    }
  }
  return grid;
}

// Utilisation by interval: each GPU counted once per step; a NaN sample is counted and is no value.
std::vector<UtilizationPoint> timeline_of(const UtilizationGrid& grid, PrometheusRead& read) {
  std::vector<UtilizationPoint> timeline(grid.steps);
  std::vector<double> sums(grid.steps, 0);
  for (std::size_t i = 0; i < grid.steps; ++i) timeline[i].time_s = grid.time_of(i);
  for (const auto& [gpu, row] : grid.rows) {
    for (std::size_t i = 0; i < grid.steps; ++i) {
      if (!row[i]) continue;
      if (std::isnan(*row[i])) {
        ++read.nan_samples;
        continue;
      }
      ++timeline[i].gpus;
      timeline[i].busy_gpus += *row[i] > 0 ? 1 : 0;
      sums[i] += *row[i];
    }
  }
  for (std::size_t i = 0; i < grid.steps; ++i)
    if (timeline[i].gpus > 0) timeline[i].mean_utilization_percent = sums[i] / timeline[i].gpus;
  return timeline;
}

// The runs of steps in `judged` (ascending) at which `present` is false.
std::vector<ReportingGap> gaps_of(const UtilizationGrid& grid, const std::vector<std::size_t>& judged,
                                  const std::vector<bool>& present) {
  std::vector<ReportingGap> gaps;
  bool open = false;
  for (const std::size_t step : judged) {
    if (present[step]) {
      open = false;
      continue;
    }
    if (!open) gaps.push_back({grid.time_of(step), grid.time_of(step), 0, false});
    open = true;
    gaps.back().to_s = grid.time_of(step);
    ++gaps.back().steps;
  }
  if (open) gaps.back().to_end = true;
  return gaps;
}

// Every node's reporting over the range: its steps with a sample of any GPU, from the fleet's first sample on
// (before it Prometheus had no data, which says nothing of a node), and per GPU the steps at which its node
// reported and it did not.
std::map<std::string, RangeReporting> reporting_of(const UtilizationGrid& grid) {
  std::map<std::string, RangeReporting> nodes;
  std::optional<std::size_t> first;
  for (const auto& [gpu, row] : grid.rows) {
    const auto sampled =
        std::find_if(row.begin(), row.end(), [](const auto& cell) { return cell.has_value(); });
    const auto step = static_cast<std::size_t>(sampled - row.begin());
    if (sampled != row.end() && (!first || step < *first)) first = step;
  }
  if (!first) return nodes;
  std::map<std::string, std::vector<bool>> node_present;
  for (const auto& [gpu, row] : grid.rows) {
    auto& present = node_present[gpu.first];
    present.resize(grid.steps, false);
    for (std::size_t i = 0; i < grid.steps; ++i)
      if (row[i]) present[i] = true;
  }
  std::vector<std::size_t> fleet_steps;
  for (std::size_t i = *first; i < grid.steps; ++i) fleet_steps.push_back(i);
  for (const auto& [host, present] : node_present) {
    std::vector<std::size_t> node_steps;
    for (const std::size_t step : fleet_steps)
      if (present[step]) node_steps.push_back(step);
    if (node_steps.empty()) continue;  // its series had no point on the range's steps
    RangeReporting& node = nodes[host];
    node.step_s = grid.step_s;
    node.end_s = grid.time_of(grid.steps - 1);
    node.fleet_first_sample_s = grid.time_of(*first);
    node.gaps = gaps_of(grid, fleet_steps, present);
    node.last_sample_s = grid.time_of(node_steps.back());
    for (auto row = grid.rows.lower_bound({host, INT_MIN});
         row != grid.rows.end() && row->first.first == host; ++row) {
      std::vector<bool> gpu_present(grid.steps, false);
      std::optional<std::size_t> last;
      for (std::size_t i = 0; i < grid.steps; ++i)
        if (row->second[i]) {
          gpu_present[i] = true;
          last = i;
        }
      if (!last) continue;
      node.gpus[row->first.second] = {grid.time_of(*last), gaps_of(grid, node_steps, gpu_present)};
    }
  }
  return nodes;
}

// Each node's reporting onto the fleet; GPUs the facts hold but the utilisation series did not are counted.
void attach_reporting(std::map<std::string, RangeReporting> reporting, Fleet& fleet, PrometheusRead& read) {
  for (FleetNode& node : fleet.nodes) {
    const auto found = reporting.find(node.name);
    if (found != reporting.end()) node.reporting = std::move(found->second);
    if (!node.facts) continue;
    for (const GpuFacts& gpu : node.facts->gpus)
      if (!node.reporting || !gpu.index || !node.reporting->gpus.contains(*gpu.index)) ++read.gpus_not_judged;
  }
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

// A fault metric's worst value over the range, only where it was above 0: a GPU with no fault in the range
// (nearly all of a fleet) already has its 0 from the instant query, so the server need not send it again.
std::string worst_fault_query(const std::string& metric, const std::string& range) {
  return "max_over_time(" + metric + "[" + range + "]) > 0";
}

// The queries of a read: every fact metric now; over a range, each fault metric's worst value in it and
// every GPU's utilisation at each step.
std::vector<prometheus::QueryRequest> requests_of(const PrometheusWindow& window) {
  using prometheus::QueryRequest;
  const std::string every_fact =
      "{__name__=~\"" + joined(dcgm_fact_metrics(), "|") + "|" + kUtilization + "\"}";
  std::vector<QueryRequest> requests{QueryRequest::instant(every_fact, window.at_s)};
  if (!window.range_s || !window.at_s) return requests;
  const std::string range = prometheus::duration_text(*window.range_s);
  for (const std::string& metric : dcgm_fault_metrics())
    requests.push_back(QueryRequest::instant(worst_fault_query(metric, range), window.at_s));
  requests.push_back(
      QueryRequest::range(kUtilization, *window.at_s - *window.range_s, *window.at_s, window.step_s));
  return requests;
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
                                              const PrometheusWindow& window, int connections) {
  PrometheusFleet result;
  PrometheusRead& read = result.read;
  read.url = transport.url();
  read.window = window;
  QueryClient client(transport);
  FleetAssembler assembler(read.url, read);
  std::map<std::string, RangeReporting> reporting;

  const std::vector<prometheus::QueryRequest> requests = requests_of(window);
  const std::vector<std::string> fault_metrics = dcgm_fault_metrics();
  bool nothing_now = false;
  std::optional<QueryAnswer> utilization;
  const auto failed = client.ask_each(requests, connections, [&](std::size_t index, QueryAnswer answer) {
    if (index == 0) {
      nothing_now = answer.series.empty();
      if (!nothing_now || window.range_s) assembler.add(std::move(answer), std::nullopt);
    } else if (index <= fault_metrics.size()) {
      assembler.add(std::move(answer), fault_metrics[index - 1]);
    } else {
      utilization = std::move(answer);
    }
  });
  if (failed) return *failed;
  if (nothing_now && !window.range_s) return no_series_error(read.url, window);

  if (utilization) {
    // A fleet silent at the range's end (every exporter gone) is still judged on what the range saw.
    if (nothing_now && read.series == 0 && utilization->series.empty())
      return no_series_error(read.url, window);
    const double start_s = *window.at_s - *window.range_s;
    const UtilizationGrid grid = grid_of(*utilization, start_s, *window.at_s, window.step_s, read);
    utilization.reset();
    read.timeline = timeline_of(grid, read);
    for (const auto& [gpu, latest] : grid.latest)
      if (!assembler.has_gpu(gpu)) assembler.add_utilization_only(latest.labels, latest.time_s, latest.value);
    reporting = reporting_of(grid);
  }
  read.queries = client.queries_sent();
  result.fleet = assembler.fleet();
  if (window.range_s) attach_reporting(std::move(reporting), result.fleet, read);
  if (result.fleet.nodes.empty())
    return InputError{{read.url, 0, 0},
                      "",
                      fmt::format("none of the {} DCGM_FI_* series at {} names a node and a GPU (labels "
                                  "Hostname or instance, and gpu): nothing to validate",
                                  read.series, read.url)};
  return result;
}

}  // namespace gputwin::validate
