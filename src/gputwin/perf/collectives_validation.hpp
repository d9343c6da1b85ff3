// Published nccl-tests bus bandwidths and the model's prediction for each, for the validation tests and
// table.
//
//   auto points = load_published_collectives(bundled_data_dir() + "/reference/collectives-published.yaml");
//   for (const auto& point : points.value()) {
//     Result<ValidationRow> row = validate_collective_point(catalog, model, point);
//     row.value().predicted_busbw_gbps, row.value().error_percent()   // signed, vs the nearest end of the
//     range
//   }
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"

namespace gputwin {

struct PublishedCollectivePoint {
  std::string name;
  std::string source;
  bool multi_node = false;
  std::string system;       // a catalog system (multi-node), or
  std::string accelerator;  // a catalog accelerator on one baseboard of `gpus`
  int gpus = 1;
  int nodes = 1;
  int nics_per_node = 0;  // overrides, for systems the catalog lacks
  double nic_gbps = 0;    // Gb/s
  int gpus_per_process = 1;  // nccl-tests' -g: GPUs one process (host thread) drives, as the run's header says
  CollectiveOp op = CollectiveOp::all_reduce;
  std::optional<CollectiveAlgorithm> algorithm;  // forced, as the measurement did
  double bytes = 0;
  double busbw_min_gbps = 0;
  double busbw_max_gbps = 0;
  // A small message is checked on its time rather than its bus bandwidth (0.00 GB/s at 8 B): the time
  // nccl-tests printed, in microseconds; empty for bandwidth points.
  std::optional<double> time_us;
  std::string known_gap;    // why the model misses this point, when it does and we know it; empty otherwise
  int scale_up_domain = 0;  // GPUs of one NVLink domain spanning nodes (NVL72 trays: 72); 0 = the node
  // "fit": a source the model's constants were read from; "evaluation": held out, never used to set anything.
  std::string set = "fit";
  std::string confidence;  // how the figure was read, for evaluation points ("read", "summary", ...)
};

struct ValidationRow {
  PublishedCollectivePoint point;
  CollectiveEstimate estimate;  // one operation alone
  // What nccl-tests would print (its loop of back-to-back operations, perf/nccl_tests_loop.hpp): what the
  // published figure is compared with.
  double predicted_busbw_gbps = 0;
  double predicted_time_us = 0;
  bool pipelined = false;  // the loop's operations overlap (broadcast, reduce): printed time < one operation
  // The published figure against one operation alone, as before the loop was modelled (for the tables).
  [[nodiscard]] double one_operation_error_percent() const;
  // Signed error against the published range: 0 inside it, else relative to its nearest end. A time point's
  // error is that of the rate it implies (published time / predicted time - 1), so that for both kinds a
  // positive error means the model is too fast.
  [[nodiscard]] double error_percent() const;

 private:
  [[nodiscard]] double error_percent(double busbw_gbps, double time_us) const;
};

class YamlField;

// Reads the fields that say where and what a published point ran (system or accelerator, gpus, nodes,
// nics_per_node with nic_gbps, gpus_per_process, op) into `point`, failing at the field that is wrong. Shared by the published
// points and the full nccl-tests sweeps (validate/collective_sweeps).
void read_collective_setting(const YamlField& field, PublishedCollectivePoint& point);

[[nodiscard]] Result<std::vector<PublishedCollectivePoint>> load_published_collectives(
    const std::string& path);
[[nodiscard]] Result<ValidationRow> validate_collective_point(const Catalog& catalog,
                                                              const CollectiveModel& model,
                                                              const PublishedCollectivePoint& point);

}  // namespace gputwin
