#include "gputwin/validate/inventory.hpp"

#include <algorithm>
#include <filesystem>

#include "gputwin/validate/capture_sections.hpp"
#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/nvidia_smi_query_csv.hpp"
#include "gputwin/validate/nvidia_smi_table.hpp"
#include "gputwin/validate/nvidia_smi_xml.hpp"

namespace gputwin::validate {
namespace {

namespace fs = std::filesystem;

Result<NodeFacts> read_text_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFailure& failure) {
    return failure.error();
  }
  if (text.find("nvidia_gpu_exporter GPU capture") != std::string::npos) return read_exporter_capture(path, text);
  return NvidiaSmiTable::parse(text, path);
}

// Empty when the file is of no kind the inventory reads.
std::optional<Result<NodeFacts>> read_node_file(const fs::path& file) {
  const std::string extension = file.extension().string();
  if (extension == ".xml") return NvidiaSmiXml::read_file(file.string());
  if (extension == ".csv") return NvidiaSmiQueryCsv::read_file(file.string());
  if (extension == ".txt") return read_text_file(file.string());
  return std::nullopt;
}

int preference(const fs::path& file) {
  const std::string extension = file.extension().string();
  return extension == ".xml" ? 0 : extension == ".csv" ? 1 : 2;
}

NodeInventory read_node(std::string name, std::vector<fs::path> files) {
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return std::pair(preference(a), a.string()) < std::pair(preference(b), b.string());
  });
  NodeInventory node{std::move(name), {}, {}};
  for (const fs::path& file : files) {
    auto read = read_node_file(file);
    if (!read) continue;
    if (read->ok()) {
      node.facts = std::move(*read).value();
      return node;
    }
    node.errors.insert(node.errors.end(), read->errors().begin(), read->errors().end());
  }
  return node;
}

std::vector<fs::path> regular_files(const fs::path& directory) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(directory))
    if (entry.is_regular_file()) files.push_back(entry.path());
  return files;
}

}  // namespace

Result<Inventory> read_inventory(const std::string& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error))
    return InputError{{directory, 0, 0}, "--measured", "not a directory of per-node captures"};
  Inventory inventory;
  for (const auto& entry : fs::directory_iterator(directory)) {
    if (entry.is_directory()) {
      inventory.nodes.push_back(read_node(entry.path().filename().string(), regular_files(entry.path())));
    } else if (entry.is_regular_file() && read_node_file(entry.path()).has_value()) {
      inventory.nodes.push_back(read_node(entry.path().stem().string(), {entry.path()}));
    }
  }
  std::sort(inventory.nodes.begin(), inventory.nodes.end(),
            [](const NodeInventory& a, const NodeInventory& b) { return a.node < b.node; });
  return inventory;
}

std::vector<std::string> health_notes(const GpuFacts& gpu) {
  std::vector<std::string> notes;
  const auto dbe =
      std::max(gpu.ecc.volatile_uncorrectable.value_or(0), gpu.ecc.aggregate_uncorrectable.value_or(0));
  if (dbe > 0) notes.push_back("DBE " + std::to_string(dbe));
  if (gpu.retired_pages.pending.value_or(false)) notes.emplace_back("page retirement pending");
  if (gpu.row_remapping.pending.value_or(false)) notes.emplace_back("row remap pending");
  if (gpu.row_remapping.failure.value_or(false)) notes.emplace_back("row remap failed");
  const PcieLink& pcie = gpu.pcie;
  if (pcie.generation_current && pcie.generation_max && *pcie.generation_current < *pcie.generation_max)
    notes.push_back("PCIe gen " + std::to_string(*pcie.generation_current) + " of " +
                    std::to_string(*pcie.generation_max));
  if (pcie.width_current && pcie.width_max && *pcie.width_current < *pcie.width_max)
    notes.push_back("x" + std::to_string(*pcie.width_current) + " of x" + std::to_string(*pcie.width_max));
  if (gpu.persistence_mode == false) notes.emplace_back("persistence off");
  if (gpu.active_clock_event_reasons) {
    std::string throttles;
    for (const std::string& reason : *gpu.active_clock_event_reasons)
      if (reason != "gpu_idle") throttles += (throttles.empty() ? "" : ",") + reason;
    if (!throttles.empty()) notes.push_back("throttled (" + throttles + ")");
  }
  return notes;
}

}  // namespace gputwin::validate
