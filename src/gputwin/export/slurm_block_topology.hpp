// Scale-up domains (NVLink domains of rack-scale systems such as the GB200 NVL72) as Slurm's block topology,
// beside the switch tree of slurm_config.hpp.
//
//   std::vector<std::vector<std::string>> domains = {{"gpu-001", ..., "gpu-018"}, {"gpu-019", ...}};
//   std::vector<int> sizes = slurm_block_sizes(18, 4);             // 18, 36, 72
//   std::string conf = slurm_block_topology_conf(header, domains); // topology.conf for topology/block
//   std::string yaml = slurm_topology_yaml(domains, tree_text);    // topology.yaml: block (default) and tree
//
// Which Slurm reads which form (docs/export.md): topology/block in topology.conf needs Slurm 23.11 or later;
// topology.yaml, which holds several topologies at once, needs Slurm 25.05 or later. Debian 12's Slurm
// (22.05) reads neither, so the real-Slurm test keeps the tree; the block forms are checked against the rules
// the topology.conf(5) and topology.yaml(5) manuals state (slurm_block_topology_test.cpp).
#pragma once

#include <string>
#include <vector>

namespace gputwin {

// BlockSizes: the planning base size (the nodes of the smallest domain), then that size doubled while the
// doubled block still fits in the cluster's domains (the manuals require each size to be the previous one
// times a power of two; doubling up to the domain count is the rule NVIDIA's Topograph uses when it infers
// them).
[[nodiscard]] std::vector<int> slurm_block_sizes(int base_nodes, int domains);

// topology.conf for topology/block: one BlockName line per domain (in the design's order, so that contiguous
// blocks, which Slurm pairs into larger blocks, are neighbouring racks), then BlockSizes.
[[nodiscard]] std::string slurm_block_topology_conf(const std::string& header,
                                                    const std::vector<std::vector<std::string>>& domains);

// topology.yaml with the block topology "nvlink" as the cluster default and, when `tree_switches` is not
// empty, the compute fabric's tree as topology "fabric". `tree_switches` are (switch name, Nodes= or
// Switches= hostlist, is_leaf) as topology.conf's tree writes them.
struct TreeSwitch {
  std::string name;
  std::string children;    // hostlist
  bool leaf = true;        // children are nodes (leaf) or switches
  std::string stands_for;  // the design switches a logical switch stands for (hostlist); empty for one switch
  int switches = 1;
};
[[nodiscard]] std::string slurm_topology_yaml(const std::string& header,
                                              const std::vector<std::vector<std::string>>& domains,
                                              const std::vector<TreeSwitch>& tree_switches);

// The scale-up domains of one node group (a rack-scale system, or a packed system): its name and the node
// names of each of its domains.
struct BlockGroup {
  std::string name;  // "gb200-nvl72"
  std::vector<std::vector<std::string>> domains;
};

// topology.yaml for a design of several node groups: the compute fabric's tree (one tree per group's island)
// as the cluster default "fabric", then one block topology "nvlink-<group>" per group whose domains span
// several nodes, each with block_sizes from its own domain (NVL72: 18 trays). topology.conf's topology/block
// form has one BlockSizes line for the whole file, so it cannot hold groups whose base blocks differ
// (topology.conf(5), topology/block); topology.yaml's block_sizes belong to each topology, which a partition
// picks with Topology= (topology.yaml(5), slurm.conf(5) PartitionName Topology, Slurm 25.05 or later).
[[nodiscard]] std::string slurm_topology_yaml_by_group(const std::string& header,
                                                       const std::vector<BlockGroup>& groups,
                                                       const std::vector<TreeSwitch>& tree_switches);

}  // namespace gputwin
