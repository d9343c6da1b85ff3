#include "gputwin/export/slurm_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "gputwin/core/hostlist.hpp"
#include "gputwin/export/slurm_block_topology.hpp"

namespace gputwin {
namespace {

constexpr double kBytesPerMebibyte = 1024.0 * 1024.0;

std::vector<std::string> node_names(const Cluster& cluster) {
  std::vector<std::string> names;
  for (const Device& device : cluster.devices)
    if (device.kind == DeviceKind::node) names.push_back(device.name);
  return names;
}

std::string header(const Cluster& cluster, std::string_view what) {
  return fmt::format("# gputwin export slurm: {} of \"{}\" ({} x {}, {} GPUs)\n", what, cluster.name,
                     cluster.nodes, cluster.node_system, cluster.gpus);
}

std::string node_line(const System& system, const std::string& nodes) {
  std::string line = "NodeName=" + nodes;
  const int threads = std::max(1, system.cpu_threads_per_core);
  if (system.cpu_cores > 0) line += fmt::format(" CPUs={}", system.cpu_cores * threads);
  if (system.cpu_sockets > 0 && system.cpu_cores > 0) {
    line += fmt::format(" Boards=1 SocketsPerBoard={} CoresPerSocket={} ThreadsPerCore={}",
                        system.cpu_sockets, system.cpu_cores / system.cpu_sockets, threads);
  }
  if (system.system_memory) {
    line += fmt::format(" RealMemory={:.0f}", std::floor(system.system_memory->base() / kBytesPerMebibyte));
  }
  if (system.accelerators > 0)
    line += fmt::format(" Gres=gpu:{}:{}", system.accelerator, system.accelerators);
  return line + " State=UNKNOWN\n";
}

std::string slurm_conf(const Cluster& cluster, const System& system, const std::string& nodes,
                       bool topology) {
  std::string text = header(cluster, "nodes, GPUs and partition");
  text +=
      "# Merge into slurm.conf; RealMemory is the catalog's memory: lower it by what the OS keeps, or\n"
      "# slurmd drains a node that registers with less (unless SlurmdParameters=config_overrides).\n";
  if (system.accelerators > 0) text += "GresTypes=gpu\n";
  if (topology) text += "TopologyPlugin=topology/tree\n";
  text += node_line(system, nodes);
  text += "PartitionName=gpu Nodes=" + nodes + " Default=YES MaxTime=INFINITE State=UP\n";
  return text;
}

std::string gres_conf(const Cluster& cluster, const System& system, const std::string& nodes) {
  std::string text = header(cluster, "GPUs");
  if (system.accelerators == 0) return text + "# the nodes have no GPUs\n";
  const std::string files =
      system.accelerators == 1 ? "/dev/nvidia0" : fmt::format("/dev/nvidia[0-{}]", system.accelerators - 1);
  return text + fmt::format("NodeName={} Name=gpu Type={} File={}\n", nodes, system.accelerator, files);
}

// A switch of the written tree: the design switches it stands for and what sits below it.
struct LogicalSwitch {
  std::string name;
  std::vector<int> members;           // design switches (devices)
  std::vector<std::string> children;  // node names (leaf tier) or logical switch names
};

// Groups the switches of one tier by the set of children they reach (in order of first appearance).
std::vector<LogicalSwitch> group_tier(const Cluster& cluster, const Fabric& fabric, Tier tier,
                                      const std::map<int, std::vector<std::string>>& children_of) {
  std::vector<LogicalSwitch> groups;
  std::map<std::vector<std::string>, std::size_t> group_of;
  for (const int device : fabric.switches[static_cast<int>(tier)]) {
    const auto found = children_of.find(device);
    if (found == children_of.end() || found->second.empty()) continue;
    const auto [at, added] = group_of.emplace(found->second, groups.size());
    if (added) groups.push_back({"", {}, found->second});
    groups[at->second].members.push_back(device);
  }
  for (std::size_t k = 0; k < groups.size(); ++k) {
    LogicalSwitch& group = groups[k];
    group.name = group.members.size() == 1
                     ? cluster.devices[group.members.front()].name
                     : fmt::format("{}-{}-group-{}", role_name(fabric.role), tier_name(tier), k + 1);
  }
  return groups;
}

// The compute fabric as the switch tree topology/tree needs, leaves first; empty when there is no fabric.
std::vector<TreeSwitch> fabric_tree(const Cluster& cluster) {
  std::vector<TreeSwitch> tree;
  const Fabric* fabric = cluster.fabric(NetworkRole::compute);
  if (fabric == nullptr) return tree;
  // Lower neighbours of every switch, from the link bundles (device_a is the lower end).
  std::map<int, std::set<int>> below;
  for (const LinkBundle& bundle : fabric->bundles) below[bundle.device_b].insert(bundle.device_a);
  std::map<int, std::vector<std::string>> children;  // switch device -> child names at the level below
  std::map<int, std::size_t> written_as;             // switch device -> its logical switch (index in `tree`)
  for (const Tier tier : {Tier::leaf, Tier::spine, Tier::core}) {
    children.clear();
    for (const int device : fabric->switches[static_cast<int>(tier)]) {
      // In design order: nodes by device index, logical switches as written.
      std::set<std::size_t> nodes;
      std::set<std::size_t> switches;
      for (const int lower : below[device]) {
        if (tier == Tier::leaf && cluster.devices[lower].kind == DeviceKind::node) nodes.insert(lower);
        if (tier != Tier::leaf && written_as.contains(lower)) switches.insert(written_as[lower]);
      }
      auto& names = children[device];
      for (const std::size_t node : nodes) names.push_back(cluster.devices[node].name);
      for (const std::size_t index : switches) names.push_back(tree[index].name);
    }
    for (const LogicalSwitch& group : group_tier(cluster, *fabric, tier, children)) {
      TreeSwitch entry{group.name, compress_hostlist(group.children), tier == Tier::leaf, "", 1};
      if (group.members.size() > 1) {
        std::vector<std::string> members;
        for (const int device : group.members) members.push_back(cluster.devices[device].name);
        entry.stands_for = compress_hostlist(members);
        entry.switches = static_cast<int>(group.members.size());
      }
      for (const int device : group.members) written_as[device] = tree.size();
      tree.push_back(std::move(entry));
    }
  }
  return tree;
}

std::string topology_conf(const Cluster& cluster, const std::vector<TreeSwitch>& tree) {
  std::string text = header(cluster, "compute fabric as a switch tree (topology/tree)");
  if (cluster.fabric(NetworkRole::compute) == nullptr) return text + "# no compute fabric\n";
  text +=
      "# Switches of a tier that reach the same nodes are one logical switch (topology/tree needs a tree).\n";
  for (const TreeSwitch& entry : tree) {
    if (!entry.stands_for.empty())
      text += fmt::format("# {} = {} ({} switches)\n", entry.name, entry.stands_for, entry.switches);
    text +=
        fmt::format("SwitchName={} {}={}\n", entry.name, entry.leaf ? "Nodes" : "Switches", entry.children);
  }
  return text;
}

// The node names of each scale-up domain that spans more than one node; empty when every domain is one node
// (an 8-GPU box), where a block topology says nothing the tree does not.
std::vector<std::vector<std::string>> multi_node_domains(const Cluster& cluster) {
  std::vector<std::vector<std::string>> domains;
  bool spans = false;
  for (const ScaleUpDomain& domain : cluster.domains) {
    std::vector<std::string> names;
    for (const int node : domain.nodes) names.push_back(cluster.devices[node].name);
    spans = spans || names.size() > 1;
    if (!names.empty()) domains.push_back(std::move(names));
  }
  return spans ? domains : std::vector<std::vector<std::string>>{};
}

}  // namespace

ExportFiles slurm_config(const Cluster& cluster, const Catalog& catalog) {
  const System& system = catalog.get<System>(cluster.node_system);
  const std::string nodes = compress_hostlist(node_names(cluster));
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  const bool topology = compute != nullptr && compute->switches_in(Tier::leaf) > 0;
  const std::vector<TreeSwitch> tree = fabric_tree(cluster);
  ExportFiles files{{{"slurm.conf", slurm_conf(cluster, system, nodes, topology)},
                     {"gres.conf", gres_conf(cluster, system, nodes)},
                     {"topology.conf", topology_conf(cluster, tree)}}};
  const auto domains = multi_node_domains(cluster);
  if (!domains.empty()) {
    files.files.push_back(
        {"topology-block.conf",
         slurm_block_topology_conf(header(cluster, "NVLink domains as blocks (topology/block)"), domains)});
    files.files.push_back(
        {"topology.yaml",
         slurm_topology_yaml(header(cluster, "NVLink blocks and the fabric tree (topology.yaml)"), domains,
                             tree)});
  }
  return files;
}

}  // namespace gputwin
