#include "gputwin/export/slurm_block_topology.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gputwin/core/hostlist.hpp"

namespace gputwin {
namespace {

std::string block_name(std::size_t index) {
  return fmt::format("nvl-{:03}", index + 1);
}

int smallest_domain(const std::vector<std::vector<std::string>>& domains) {
  std::size_t smallest = domains.empty() ? 0 : domains.front().size();
  for (const auto& domain : domains) smallest = std::min(smallest, domain.size());
  return static_cast<int>(smallest);
}

std::string joined(const std::vector<int>& values, std::string_view separator) {
  std::string text;
  for (const int value : values) text += (text.empty() ? "" : std::string(separator)) + std::to_string(value);
  return text;
}

std::string tree_yaml(const std::vector<TreeSwitch>& tree_switches) {
  std::string text;
  for (const TreeSwitch& entry : tree_switches) {
    text += fmt::format("      - switch: {}\n        {}: \"{}\"\n", entry.name,
                        entry.leaf ? "nodes" : "children", entry.children);
  }
  return text;
}

}  // namespace

std::vector<int> slurm_block_sizes(int base_nodes, int domains) {
  std::vector<int> sizes;
  if (base_nodes <= 0 || domains <= 0) return sizes;
  for (int blocks = 1; blocks <= domains; blocks *= 2) sizes.push_back(base_nodes * blocks);
  return sizes;
}

std::string slurm_block_topology_conf(const std::string& header,
                                      const std::vector<std::vector<std::string>>& domains) {
  std::string text = header;
  text +=
      "# For Slurm 23.11 or later: set TopologyPlugin=topology/block in slurm.conf and install this file as\n"
      "# topology.conf. One block per scale-up (NVLink) domain; neighbouring blocks are neighbouring "
      "racks.\n";
  for (std::size_t k = 0; k < domains.size(); ++k)
    text += fmt::format("BlockName={} Nodes={}\n", block_name(k), compress_hostlist(domains[k]));
  const auto sizes = slurm_block_sizes(smallest_domain(domains), static_cast<int>(domains.size()));
  if (!sizes.empty()) text += "BlockSizes=" + joined(sizes, ",") + "\n";
  return text;
}

std::string slurm_topology_yaml(const std::string& header,
                                const std::vector<std::vector<std::string>>& domains,
                                const std::vector<TreeSwitch>& tree_switches) {
  std::string text = header;
  text +=
      "# For Slurm 25.05 or later (topology.yaml replaces topology.conf when present). The NVLink blocks are "
      "the\n"
      "# cluster default; a partition can choose the fabric tree with Topology=fabric.\n";
  text += "- topology: nvlink\n  cluster_default: true\n  block:\n    block_sizes:\n";
  for (const int size : slurm_block_sizes(smallest_domain(domains), static_cast<int>(domains.size())))
    text += fmt::format("      - {}\n", size);
  text += "    blocks:\n";
  for (std::size_t k = 0; k < domains.size(); ++k)
    text += fmt::format("      - block: {}\n        nodes: \"{}\"\n", block_name(k),
                        compress_hostlist(domains[k]));
  if (tree_switches.empty()) return text;
  text += "- topology: fabric\n  cluster_default: false\n  tree:\n    switches:\n";
  return text + tree_yaml(tree_switches);
}

std::string slurm_topology_yaml_by_group(const std::string& header, const std::vector<BlockGroup>& groups,
                                         const std::vector<TreeSwitch>& tree_switches) {
  std::string text = header;
  text +=
      "# For Slurm 25.05 or later (topology.yaml replaces topology.conf when present). Node groups of "
      "different\n"
      "# scale-up domains: the fabric tree is the cluster default; each rack-scale group's NVLink domains "
      "are a\n"
      "# block topology of their own with their own block sizes, for that group's partition "
      "(Topology=NAME).\n"
      "# topology/block in topology.conf is not written: its one BlockSizes line holds for every block.\n";
  bool first = true;
  if (!tree_switches.empty()) {
    text +=
        "- topology: fabric\n  cluster_default: true\n  tree:\n    switches:\n" + tree_yaml(tree_switches);
    first = false;
  }
  for (const BlockGroup& group : groups) {
    bool spans = false;
    for (const auto& domain : group.domains) spans = spans || domain.size() > 1;
    if (!spans) continue;  // one-node domains (8-GPU boxes): the tree says all there is
    text += fmt::format("- topology: nvlink-{}\n  cluster_default: {}\n  block:\n    block_sizes:\n",
                        group.name, first ? "true" : "false");
    first = false;
    for (const int size :
         slurm_block_sizes(smallest_domain(group.domains), static_cast<int>(group.domains.size())))
      text += fmt::format("      - {}\n", size);
    text += "    blocks:\n";
    for (std::size_t k = 0; k < group.domains.size(); ++k)
      text += fmt::format("      - block: {}-{:03}\n        nodes: \"{}\"\n", group.name, k + 1,
                          compress_hostlist(group.domains[k]));
  }
  return text;
}

}  // namespace gputwin
