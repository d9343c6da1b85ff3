#include "gputwin/validate/fleet.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <thread>

#include "gputwin/core/input_file.hpp"
#include "gputwin/prometheus/exposition_text.hpp"
#include "gputwin/validate/capture_sections.hpp"
#include "gputwin/validate/dcgm_diag.hpp"
#include "gputwin/validate/dcgm_exporter_facts.hpp"
#include "gputwin/validate/nccl_tests_json.hpp"
#include "gputwin/validate/nccl_tests_text.hpp"
#include "gputwin/validate/node_facts_merge.hpp"
#include "gputwin/validate/nvidia_smi_query_csv.hpp"
#include "gputwin/validate/nvidia_smi_table.hpp"
#include "gputwin/validate/nvidia_smi_xml.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

namespace fs = std::filesystem;

bool contains(std::string_view text, std::string_view marker) {
  return text.find(marker) != std::string_view::npos;
}

std::string_view first_line_of(std::string_view text) {
  const auto end = text.find('\n');
  return trim(text.substr(0, end));
}

// A --query-gpu header names nvidia-smi's query fields ("name, pci.bus_id, power.draw [W]").
bool looks_like_query_csv(std::string_view text) {
  const std::string_view header = first_line_of(text);
  if (!contains(header, ",")) return false;
  for (std::string_view field : {"pci.bus_id", "driver_version", "power.draw", "temperature.gpu", "uuid",
                                 "clocks.sm", "memory.total", "persistence_mode"})
    if (contains(header, field)) return true;
  return false;
}

// A sample line "DCGM_FI_DEV_GPU_TEMP{gpu="0"} 40" (dcgm-exporter's counters CSV names the same fields,
// followed by a comma: not a scrape).
bool has_dcgm_sample(std::string_view text) {
  for (std::size_t at = text.find("DCGM_FI_"); at != std::string_view::npos;
       at = text.find("DCGM_FI_", at + 1)) {
    if (at > 0 && text[at - 1] != '\n') continue;
    std::size_t end = at;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
      ++end;
    if (end < text.size() && text[end] == '{') end = text.find('}', end);
    if (end == std::string_view::npos) return false;
    if (end < text.size() && text[end] == '}') ++end;
    const std::size_t value = text.find_first_not_of(" \t", end);
    if (value > end && value < text.size() &&
        std::string_view("0123456789+-.NnIi").find(text[value]) != std::string_view::npos)
      return true;
  }
  return false;
}

bool looks_like_prometheus(std::string_view text) {
  return contains(text, "\n# TYPE ") || text.starts_with("# TYPE ") || contains(text, "\n# HELP ") ||
         text.starts_with("# HELP ") || has_dcgm_sample(text);
}

bool is_binary(std::string_view text) {
  return contains(text.substr(0, 4096), std::string_view("\0", 1));
}

// Which output describes a node best: the XML has every fact, the table the fewest nvidia-smi facts, a
// dcgm-exporter scrape adds health counters (XID, NVLink) but no versions beyond the driver.
int facts_preference(FileKind kind) {
  switch (kind) {
    case FileKind::nvidia_smi_xml:
      return 0;
    case FileKind::nvidia_smi_query_csv:
      return 1;
    case FileKind::nvidia_smi_capture:
      return 2;
    case FileKind::nvidia_smi_table:
      return 3;
    case FileKind::prometheus_text:
      return 4;
    default:
      return 5;
  }
}

Result<NodeFacts> read_facts(FileKind kind, const std::string& path, std::string_view text) {
  switch (kind) {
    case FileKind::nvidia_smi_xml:
      return NvidiaSmiXml::parse(text, path);
    case FileKind::nvidia_smi_query_csv:
      return NvidiaSmiQueryCsv::parse(text, path);
    case FileKind::nvidia_smi_capture:
      return read_exporter_capture(path, text);
    default:
      return NvidiaSmiTable::parse(text, path);
  }
}

template <class T>
void keep(Result<T> read, std::vector<T>& into, InputErrors& errors) {
  if (read.ok())
    into.push_back(std::move(read).value());
  else
    errors.insert(errors.end(), read.errors().begin(), read.errors().end());
}

struct FactsCandidate {
  int preference = 0;
  NodeFacts facts;
};
using FactsCandidates = std::vector<FactsCandidate>;

void keep_scrape(Result<MetricScrape> read, FleetNode& node, FactsCandidates& candidates) {
  if (!read.ok()) {
    node.errors.insert(node.errors.end(), read.errors().begin(), read.errors().end());
    return;
  }
  NodeFacts facts = facts_from_dcgm_scrape(read.value());
  if (!facts.gpus.empty())
    candidates.push_back({facts_preference(FileKind::prometheus_text), std::move(facts)});
  node.metric_scrapes.push_back(std::move(read).value());
}

// Every output's facts, richest first (file names order ties), merged into the node's one fact model.
std::optional<NodeFacts> merged_facts(FactsCandidates candidates) {
  if (candidates.empty()) return std::nullopt;
  std::stable_sort(
      candidates.begin(), candidates.end(),
      [](const FactsCandidate& a, const FactsCandidate& b) { return a.preference < b.preference; });
  std::vector<NodeFacts> sources;
  for (FactsCandidate& candidate : candidates) sources.push_back(std::move(candidate.facts));
  return merge_node_facts(std::move(sources));
}

void read_file_into(FleetNode& node, FleetFile& file, FactsCandidates& candidates) {
  std::error_code error;
  if (fs::is_directory(file.path, error)) {
    file.unknown_reason = "a directory: a node's files are read one level below the measured directory";
    return;
  }
  std::string text;
  try {
    text = read_input_file(file.path);
  } catch (const InputFailure& failure) {
    node.errors.push_back(failure.error());
    return;
  }
  file.kind = detect_file_kind(text);
  switch (file.kind) {
    case FileKind::nccl_tests_text:
      keep(NcclTestsText::parse(text, file.path), node.nccl_runs, node.errors);
      return;
    case FileKind::nccl_tests_json:
      keep(NcclTestsJson::parse(text, file.path), node.nccl_runs, node.errors);
      return;
    case FileKind::dcgm_diag:
      keep(DcgmDiag::parse(text, file.path), node.diag_reports, node.errors);
      return;
    case FileKind::prometheus_text:
      keep_scrape(prometheus::ExpositionText::parse(text, file.path), node, candidates);
      return;
    case FileKind::unknown:
      file.unknown_reason = text.empty() ? "empty file"
                            : is_binary(text)
                                ? "binary content"
                                : "no marker of nvidia-smi, nccl-tests, dcgmi diag or a /metrics scrape";
      return;
    default:
      break;
  }
  auto facts = read_facts(file.kind, file.path, text);
  if (!facts.ok()) {
    node.errors.insert(node.errors.end(), facts.errors().begin(), facts.errors().end());
    return;
  }
  candidates.push_back({facts_preference(file.kind), std::move(facts).value()});
}

// Everything under a node, so that a nested directory is reported rather than silently passed over.
std::vector<std::string> node_entries(const fs::path& directory) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(directory)) files.push_back(entry.path().string());
  return files;
}

struct NodeInput {
  std::string name;
  std::string path;
  std::vector<std::string> paths;
};

std::vector<NodeInput> node_inputs(const std::string& directory) {
  std::vector<NodeInput> inputs;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (entry.is_directory())
      inputs.push_back({entry.path().filename().string(), entry.path().string(), node_entries(entry.path())});
    else if (entry.is_regular_file())
      inputs.push_back({entry.path().stem().string(), entry.path().string(), {entry.path().string()}});
  }
  std::sort(inputs.begin(), inputs.end(),
            [](const NodeInput& a, const NodeInput& b) { return a.name < b.name; });
  return inputs;
}

// Reading is I/O and parsing per node, independent across nodes: a few threads take nodes by index and write
// each into its own slot, so the order (and the output) is the same for any thread count.
std::vector<FleetNode> read_nodes(std::vector<NodeInput> inputs) {
  std::vector<FleetNode> nodes(inputs.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < inputs.size(); i = next++) {
      nodes[i] = read_fleet_node(std::move(inputs[i].name), std::move(inputs[i].paths));
      nodes[i].path = std::move(inputs[i].path);
    }
  };
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1U, 8U);
  std::vector<std::jthread> pool;
  for (unsigned t = 1; t < threads && t < inputs.size(); ++t) pool.emplace_back(work);
  work();
  return nodes;
}

}  // namespace

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::nvidia_smi_xml:
      return "nvidia-smi-xml";
    case FileKind::nvidia_smi_query_csv:
      return "nvidia-smi-query-csv";
    case FileKind::nvidia_smi_capture:
      return "nvidia-smi-capture";
    case FileKind::nvidia_smi_table:
      return "nvidia-smi-table";
    case FileKind::nccl_tests_text:
      return "nccl-tests-text";
    case FileKind::nccl_tests_json:
      return "nccl-tests-json";
    case FileKind::dcgm_diag:
      return "dcgm-diag-json";
    case FileKind::prometheus_text:
      return "prometheus-text";
    case FileKind::prometheus_query:
      return "prometheus-query";
    case FileKind::unknown:
      return "unknown";
  }
  return "unknown";
}

FileKind detect_file_kind(std::string_view text) {
  if (is_binary(text)) return FileKind::unknown;
  const std::string_view start = trim(text.substr(0, 256));
  if (contains(text.substr(0, 4096), "<nvidia_smi_log")) return FileKind::nvidia_smi_xml;
  if (contains(text.substr(0, 4096), "nvidia_gpu_exporter GPU capture")) return FileKind::nvidia_smi_capture;
  // Every JSON output read here is an object; '[' may start a text line ("[1,0]<stdout>:" from Open MPI).
  if (start.starts_with("{")) {
    // A JSON schema names the keys of the output it describes; it is no output.
    if (contains(text, "\"$schema\"")) return FileKind::unknown;
    if (contains(text, "\"DCGM GPU Diagnostic\"") || contains(text, "\"DCGM Diagnostic\""))
      return FileKind::dcgm_diag;
    if (contains(text, "\"results\"") && contains(text, "\"bus_bw\"")) return FileKind::nccl_tests_json;
    return FileKind::unknown;
  }
  if (contains(text, "busbw") && contains(text, "algbw")) return FileKind::nccl_tests_text;
  if (contains(text, "NVIDIA-SMI") && contains(text, "Driver Version")) return FileKind::nvidia_smi_table;
  if (looks_like_query_csv(text)) return FileKind::nvidia_smi_query_csv;
  if (looks_like_prometheus(text)) return FileKind::prometheus_text;
  return FileKind::unknown;
}

FleetNode read_fleet_node(std::string name, std::vector<std::string> paths) {
  std::sort(paths.begin(), paths.end());
  FleetNode node;
  node.name = std::move(name);
  FactsCandidates candidates;
  for (std::string& path : paths) {
    node.files.push_back({std::move(path), FileKind::unknown, ""});
    read_file_into(node, node.files.back(), candidates);
  }
  node.facts = merged_facts(std::move(candidates));
  return node;
}

Result<Fleet> read_fleet(const std::string& directory) {
  const auto problem = [&](const std::string& message) -> Result<Fleet> {
    return InputError{{directory, 0, 0}, "--measured", message};
  };
  std::error_code error;
  if (!fs::exists(directory, error)) return problem("does not exist");
  if (!fs::is_directory(directory, error))
    return problem("is not a directory (expected a directory of per-node outputs)");
  auto inputs = node_inputs(directory);
  if (inputs.empty()) return problem("holds no node outputs: nothing to validate");
  Fleet fleet;
  fleet.directory = directory;
  fleet.nodes = read_nodes(std::move(inputs));
  return fleet;
}

bool has_readable_capture(const FleetNode& node) {
  return node.facts.has_value() || !node.nccl_runs.empty() || !node.diag_reports.empty() ||
         std::any_of(node.metric_scrapes.begin(), node.metric_scrapes.end(),
                     [](const MetricScrape& scrape) { return !scrape.samples.empty(); });
}

}  // namespace gputwin::validate
