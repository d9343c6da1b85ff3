// A measured fleet read from a Prometheus server that scrapes dcgm-exporter, instead of from a directory of
// files: the same per-GPU facts (facts_from_dcgm_scrape), so the same checks, outliers and design comparison
// run on it. Over a time range it also gives GPU utilisation and occupancy by interval.
//
//   auto transport = prometheus::make_http_transport("http://127.0.0.1:9090", {}).value();
//   PrometheusWindow window{.at_s = 1795694400, .range_s = 86400, .step_s = 300};
//   Result<PrometheusFleet> read = read_prometheus_fleet(*transport, window);
//   evaluate_checks(read.value().fleet, checks, options);
//   read.value().read.timeline;   // one point per 5 min: GPUs reporting, busy GPUs, mean utilisation
//   read.value().fleet.nodes[0].reporting;   // the node's and its GPUs' last sample and gaps in the range
//
// Queries are batched, never one per GPU: one instant query for every metric the facts read (a regex over
// __name__), and over a range one max_over_time(...) > 0 query per fault metric (the worst value seen in the
// range is the fact, as when a node's outputs are merged; a GPU whose worst was 0 keeps the 0 of the instant
// query, so only GPUs with a fault come back) and one range query of DCGM_FI_DEV_GPU_UTIL. Series are
// grouped into nodes by dcgm-exporter's Hostname label, else by the scrape target's `instance` without its
// port; into GPUs by the `gpu` label. A series without them is skipped and counted by reason; NaN samples are
// counted and read as no value. No DCGM_FI_* series at all is an error naming the URL.
//
// Over a range, a node or GPU is in the fleet when any query saw it in the range (so a fault logged before a
// GPU fell off the bus is kept), and the utilisation range query says at which steps each reported: every
// node gets a RangeReporting (its last sample and the runs of steps without one, and the same per GPU), which
// the checks judge (node or GPU stopped reporting, or missing for part of the range). Several series of one
// GPU (labels that change over the range, such as a Kubernetes pod's) are one GPU: at a step where more than
// one has a sample, the first in the answer's order is used.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/prometheus/transport.hpp"
#include "gputwin/validate/fleet.hpp"

namespace gputwin::validate {

struct PrometheusWindow {
  std::optional<double> at_s;     // Unix seconds: the instant read, or a range's end; empty: the server's now
  std::optional<double> range_s;  // read the range (at_s - range_s, at_s]; needs at_s
  double step_s = 300;            // the timeline's interval
};

// One interval of the timeline: the GPUs reporting a utilisation sample at `time_s`, those above 0 %
// (occupied) and the mean utilisation over the reporting GPUs.
struct UtilizationPoint {
  double time_s = 0;
  int gpus = 0;
  int busy_gpus = 0;
  double mean_utilization_percent = 0;
};

struct PrometheusRead {
  std::string url;
  PrometheusWindow window;
  int queries = 0;
  int series = 0;                             // series read over all queries
  int nan_samples = 0;                        // samples whose value was NaN (read as no value)
  std::map<std::string, int> skipped_series;  // why -> how many series
  std::vector<UtilizationPoint> timeline;     // empty without a range
  // Over a range: GPUs of the fleet with no DCGM_FI_DEV_GPU_UTIL series in it (a MIG-enabled GPU exports
  // none), whose reporting is therefore not judged.
  int gpus_not_judged = 0;
};

struct PrometheusFleet {
  Fleet fleet;  // directory: the URL; one node per host, its one "file" kind prometheus-query
  PrometheusRead read;
};

// Queries in flight at once by default (`validate --connections`): a gputwin choice, so that the server
// answers one query while gputwin reads another, without loading the server with many at once.
inline constexpr int kDefaultQueryConnections = 3;

// The queries are independent and go out over up to `connections` at once; the facts are built from the
// answers in the queries' order, so the result does not depend on which came first.
[[nodiscard]] Result<PrometheusFleet> read_prometheus_fleet(prometheus::Transport& transport,
                                                            const PrometheusWindow& window,
                                                            int connections = kDefaultQueryConnections);

// The node a series belongs to: its Hostname label, else its instance without the port; empty when neither.
[[nodiscard]] std::string host_of(const prometheus::Labels& labels);

}  // namespace gputwin::validate
