// A measured fleet read from a directory: one subdirectory per node (or one file per node, named by its stem)
// holding any of the tool outputs gputwin reads. Each file's kind is found from its content, not its name.
//
//   Result<Fleet> fleet = read_fleet("measured/");
//   for (const FleetNode& node : fleet.value().nodes)     // sorted by name
//     node.facts;        // one fact model from all its outputs (XML > CSV > capture > table > scrape; see
//                        // merge_node_facts), empty when none describes a GPU
//     node.nccl_runs;    // every nccl-tests log or -J JSON, in file-name order
//
// A file no reader understands is listed with kind `unknown` (the checks report it); a file a reader fails on
// keeps its located error in `errors`, so one bad capture never hides the rest of the node or the fleet.
// Nodes are read on several threads; the result does not depend on their number.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

enum class FileKind {
  nvidia_smi_xml,
  nvidia_smi_query_csv,
  nvidia_smi_capture,  // an nvidia_gpu_exporter capture (many nvidia-smi outputs in one file)
  nvidia_smi_table,
  nccl_tests_text,
  nccl_tests_json,
  dcgm_diag,
  prometheus_text,
  prometheus_query,  // a node's series read from a Prometheus server (read_prometheus_fleet), not a file
  unknown,
};
[[nodiscard]] std::string_view file_kind_name(FileKind kind);  // "nvidia-smi-xml", ...

// The kind of a tool output from its first bytes and tell-tale markers (the DOCTYPE or root element, the
// nccl-tests column header, the DCGM root key, ...).
[[nodiscard]] FileKind detect_file_kind(std::string_view text);

struct FleetFile {
  std::string path;
  FileKind kind = FileKind::unknown;
  std::string unknown_reason;  // why no reader took it (binary, empty, no known marker)
};

// Over a range read (validate --prometheus --range), when a node and each of its GPUs had a sample, at the
// steps of the range (DCGM_FI_DEV_GPU_UTIL, the series the utilisation timeline counts). A run of steps
// without a sample is a ReportingGap; the checks judge each against a tolerance (validate/reporting_checks).
struct ReportingGap {
  double from_s = 0;    // the first step with no sample
  double to_s = 0;      // the last step with no sample
  int steps = 0;        // steps with no sample (a GPU's: only those at which its node reported)
  bool to_end = false;  // no sample after it: a node's to the range's end, a GPU's to its node's last sample
};

struct GpuReporting {
  double last_sample_s = 0;
  std::vector<ReportingGap> gaps;  // at steps where its node reported and it did not
};

struct RangeReporting {
  double step_s = 0;
  double end_s = 0;                  // the range's last step
  double fleet_first_sample_s = 0;   // the first step any GPU of the fleet reported: gaps are judged after it
  double last_sample_s = 0;          // the node's last step with a sample (of any of its GPUs)
  std::vector<ReportingGap> gaps;    // steps at which none of its GPUs reported
  std::map<int, GpuReporting> gpus;  // by GPU index; a GPU with no utilisation series is not here
};

struct FleetNode {
  std::string name;
  std::string path;  // the node's directory, or its one file directly in the measured directory
  std::vector<FleetFile>
      files;  // every entry of the node's directory, by path (a nested directory is unknown)
  std::optional<NodeFacts> facts;
  std::vector<NcclTestsRun> nccl_runs;
  std::vector<DcgmDiagReport> diag_reports;
  std::vector<MetricScrape> metric_scrapes;
  InputErrors errors;                       // one per file a reader could not read
  std::optional<RangeReporting> reporting;  // only from a Prometheus range read
};

struct Fleet {
  std::string directory;
  std::vector<FleetNode> nodes;  // by name
};

// An error naming the directory when it does not exist, is no directory or holds no node: no data is never
// a passing fleet.
[[nodiscard]] Result<Fleet> read_fleet(const std::string& directory);
// The node gave something to check: GPU facts, an nccl-tests run, a DCGM diag report or scraped samples.
[[nodiscard]] bool has_readable_capture(const FleetNode& node);
// One node from its files (exposed for tests).
[[nodiscard]] FleetNode read_fleet_node(std::string name, std::vector<std::string> paths);

}  // namespace gputwin::validate
