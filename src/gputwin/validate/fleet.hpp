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

struct FleetNode {
  std::string name;
  std::string path;  // the node's directory, or its one file directly in the measured directory
  std::vector<FleetFile>
      files;  // every entry of the node's directory, by path (a nested directory is unknown)
  std::optional<NodeFacts> facts;
  std::vector<NcclTestsRun> nccl_runs;
  std::vector<DcgmDiagReport> diag_reports;
  std::vector<MetricScrape> metric_scrapes;
  InputErrors errors;  // one per file a reader could not read
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
