// The measured fleet against the design (`gputwin validate --cluster`): node count and names, and per node
// the GPU model, GPU count and GPU memory, and per GPU its PCIe link against the designed GPU's host link.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "gputwin/validate/finding_collector.hpp"

namespace gputwin::validate {
namespace {

// The number a node name ends in: "node01" -> 1, "node-017" -> 17; empty when it ends in none.
std::optional<long> trailing_number(const std::string& name) {
  std::size_t start = name.size();
  while (start > 0 && std::isdigit(static_cast<unsigned char>(name[start - 1]))) --start;
  constexpr std::size_t kLongestNumber = 9;
  if (start == name.size() || name.size() - start > kLongestNumber) return std::nullopt;
  return std::stol(name.substr(start));
}

// The designed node a measured node stands for: the same name, else the designed name ending in the same
// number (measured directories are named by hand: node01 for the design's node-001).
std::optional<std::string> designed_name_of(const std::string& measured, const DesignedFleet& design) {
  for (const std::string& name : design.node_names)
    if (name == measured) return name;
  const auto number = trailing_number(measured);
  if (!number) return std::nullopt;
  for (const std::string& name : design.node_names)
    if (trailing_number(name) == number) return name;
  return std::nullopt;
}

std::string listed(const std::vector<std::string>& names) {
  constexpr std::size_t kNamed = 10;
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < kNamed; ++i) text += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > kNamed) text += fmt::format(" and {} more", names.size() - kNamed);
  return text;
}

SourceLocation node_location(const FleetNode& node) {
  return {node.path.empty() ? node.name : node.path, 0, 0};
}

void check_node_count(const Fleet& fleet, const DesignedFleet& design, Findings& out) {
  if (design.node_names.empty()) return;
  const std::string designed = std::to_string(design.node_names.size());
  std::set<std::string> measured;
  for (const FleetNode& node : fleet.nodes) {
    if (const auto name = designed_name_of(node.name, design)) {
      measured.insert(*name);
      continue;
    }
    out.add(
        "nodes-not-in-design", node.name, std::nullopt, node_location(node),
        {{"designed", designed}, {"first", design.node_names.front()}, {"last", design.node_names.back()}});
  }
  std::vector<std::string> missing;
  for (const std::string& name : design.node_names)
    if (!measured.contains(name)) missing.push_back(name);
  if (!missing.empty())
    out.add("nodes-missing", "-", std::nullopt, {design.spec, 0, 0},
            {{"count", std::to_string(missing.size())}, {"designed", designed}, {"names", listed(missing)}});
}

// "8 x Tesla T4", "7 x NVIDIA H100 80GB HBM3, 1 x NVIDIA H200".
std::string models_text(const std::vector<std::string>& models) {
  std::map<std::string, int> counts;
  for (const std::string& model : models) ++counts[model];
  std::string text;
  for (const auto& [model, count] : counts)
    text += fmt::format("{}{} x {}", text.empty() ? "" : ", ", count, model);
  return text;
}

// Where the node's GPU models were read: its first GPU's record, else the nccl-tests run naming its devices.
SourceLocation models_location(const FleetNode& node) {
  if (node.facts && !node.facts->gpus.empty()) {
    const GpuFacts& gpu = node.facts->gpus.front();
    return {gpu.source.empty() ? node.facts->source : gpu.source, gpu.line, 0};
  }
  for (const NcclTestsRun& run : node.nccl_runs)
    if (!run.devices.empty()) return {run.source, 0, 0};
  return node_location(node);
}

void check_gpu_model(const FleetNode& node, const DesignedFleet& design, Findings& out) {
  if (!gpu_model_differs(node, design)) return;
  out.add("gpu-model-mismatch", node.name, std::nullopt, models_location(node),
          {{"measured", models_text(reported_gpu_models(node))},
           {"expected", design.reported_names.front()},
           {"accelerator", design.accelerator_name}});
}

void check_gpu_count(const FleetNode& node, const DesignedFleet& design, Findings& out) {
  if (!node.facts || node.facts->gpus.empty() || design.gpus_per_node <= 0) return;
  const int measured = static_cast<int>(node.facts->gpus.size());
  if (measured == design.gpus_per_node) return;
  out.add("gpu-count-mismatch", node.name, std::nullopt, {node.facts->source, 0, 0},
          {{"measured", std::to_string(measured)}, {"expected", std::to_string(design.gpus_per_node)}});
}

// One finding per node, at its first GPU whose memory differs (a wrong part is the same on every GPU).
void check_gpu_memory(const FleetNode& node, const DesignedFleet& design, Findings& out) {
  if (!node.facts || design.gpu_memory.base() <= 0 || gpu_model_differs(node, design)) return;
  const CheckRule& rule = out.rule("gpu-memory-mismatch");
  const double tolerance = rule.fraction_parameters.at("tolerance");
  const double expected = in_gigabytes(design.gpu_memory);
  for (const GpuFacts& gpu : node.facts->gpus) {
    if (!gpu.memory_total) continue;
    const double measured = in_gigabytes(*gpu.memory_total);
    if (std::abs(measured / expected - 1) <= tolerance) continue;
    out.add(rule.id, node.name, gpu.index,
            {gpu.source.empty() ? node.facts->source : gpu.source, gpu.line, 0},
            {{"measured", fmt::format("{:.1f}", measured)},
             {"expected", fmt::format("{:g}", expected)},
             {"accelerator", design.accelerator_name},
             {"tolerance", fmt::format("{:g} %", 100 * tolerance)}});
    return;
  }
}

// The design's host link as one-way GB/s; empty, with a design-not-compared finding saying why, when the
// catalog gives no PCIe link the data knows.
std::optional<double> designed_link_rate(const DesignedFleet& design, Findings& out) {
  const auto shape = parse_pcie_link(design.host_link);
  const auto rate = shape ? pcie_link_gigabytes_per_second(design.pcie_lane_rates, *shape) : std::nullopt;
  if (rate) return rate;
  const std::string reason =
      design.host_link.empty()
          ? "the catalog gives no host link for " + design.accelerator
          : "the catalog's host link of " + design.accelerator + ", '" + design.host_link +
                "', is no PCIe generation and width that data/validate/pcie-links.yaml knows";
  out.add("design-not-compared", "-", std::nullopt, {design.spec, 0, 0},
          {{"what", "PCIe links"}, {"reason", reason}});
  return std::nullopt;
}

// Each GPU's most capable link (its maximum generation and width, what the GPU and its slot allow) against
// the design's; the current link is judged against the maximum by the pcie-*-below-max rules.
void check_pcie_links(const FleetNode& node, const DesignedFleet& design, double designed_rate,
                      Findings& out) {
  if (!node.facts || gpu_model_differs(node, design)) return;
  for (const GpuFacts& gpu : node.facts->gpus) {
    if (!gpu.pcie.generation_max || !gpu.pcie.width_max) continue;
    const PcieLinkShape shape{*gpu.pcie.generation_max, *gpu.pcie.width_max};
    const auto measured = pcie_link_gigabytes_per_second(design.pcie_lane_rates, shape);
    // A generation beyond the data's (newer than the design's, since the design's is known) is not slower.
    constexpr double kRounding = 1e-9;
    if (!measured || *measured >= designed_rate * (1 - kRounding)) continue;
    out.add("pcie-link-below-design", node.name, gpu.index,
            {gpu.source.empty() ? node.facts->source : gpu.source, gpu.line, 0},
            {{"generation", std::to_string(shape.generation)},
             {"width", std::to_string(shape.lanes)},
             {"measured", fmt::format("{:.1f}", *measured)},
             {"expected_link", design.host_link},
             {"expected", fmt::format("{:.1f}", designed_rate)},
             {"accelerator", design.accelerator_name}});
  }
}

}  // namespace

std::vector<std::string> reported_gpu_models(const FleetNode& node) {
  std::vector<std::string> models;
  if (node.facts)
    for (const GpuFacts& gpu : node.facts->gpus)
      if (!gpu.model.empty()) models.push_back(gpu.model);
  if (!models.empty()) return models;
  for (const NcclTestsRun& run : node.nccl_runs)
    if (!run.devices.empty()) return run.devices;
  return models;
}

bool gpu_model_differs(const FleetNode& node, const DesignedFleet& design) {
  if (design.reported_names.empty()) return false;
  for (const std::string& model : reported_gpu_models(node))
    if (std::find(design.reported_names.begin(), design.reported_names.end(), model) ==
        design.reported_names.end())
      return true;
  return false;
}

void check_against_design(const Fleet& fleet, const DesignedFleet& design, Findings& out) {
  check_node_count(fleet, design, out);
  if (design.reported_names.empty())
    out.add("design-not-compared", "-", std::nullopt, {design.spec, 0, 0},
            {{"what", "GPU models"},
             {"reason",
              "data/validate/gpu-names.yaml lists no product name for the designed " + design.accelerator}});
  // Without a designed GPU in the catalog there is nothing to compare a link with (its model is not
  // compared either).
  const auto designed_rate = design.accelerator_name.empty() ? std::nullopt : designed_link_rate(design, out);
  for (const FleetNode& node : fleet.nodes) {
    check_gpu_model(node, design, out);
    check_gpu_count(node, design, out);
    check_gpu_memory(node, design, out);
    if (designed_rate) check_pcie_links(node, design, *designed_rate, out);
  }
}

}  // namespace gputwin::validate
