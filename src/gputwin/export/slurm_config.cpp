#include "gputwin/export/slurm_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "gputwin/core/hostlist.hpp"
#include "gputwin/design/node_groups.hpp"
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

// The compute nodes by node type, in the order the types first appear: each type's catalog system and the
// compressed host list of its nodes. One entry for today's clusters of one node type.
struct NodeGroup {
  const System* system = nullptr;
  std::string nodes;  // hostlist
};

std::vector<NodeGroup> node_groups(const Cluster& cluster, const Catalog& catalog) {
  std::vector<const NodeType*> types;
  std::vector<std::vector<std::string>> names;
  for (const Device& device : cluster.devices) {
    const NodeType* type = device.kind == DeviceKind::node ? cluster.node_type_of(device) : nullptr;
    if (type == nullptr) continue;
    const auto index = static_cast<std::size_t>(std::find(types.begin(), types.end(), type) - types.begin());
    if (index == types.size()) {
      types.push_back(type);
      names.emplace_back();
    }
    names[index].push_back(device.name);
  }
  std::vector<NodeGroup> groups;
  for (std::size_t t = 0; t < types.size(); ++t)
    groups.push_back({&catalog.get<System>(types[t]->system), compress_hostlist(names[t])});
  return groups;
}

// The node types' systems, "dgx-h100" (or "a+b" when a cluster holds several).
std::string node_systems(const Cluster& cluster) {
  std::string systems;
  for (const NodeType& type : cluster.node_types) {
    const bool of_nodes = std::any_of(cluster.devices.begin(), cluster.devices.end(), [&](const Device& d) {
      return d.kind == DeviceKind::node && cluster.node_type_of(d) == &type;
    });
    if (of_nodes) systems += (systems.empty() ? "" : "+") + type.system;
  }
  return systems;
}

std::string header(const Cluster& cluster, std::string_view what) {
  return fmt::format("# gputwin export slurm: {} of \"{}\" ({} x {}, {} GPUs)\n", what, cluster.name,
                     cluster.nodes, node_systems(cluster), cluster.gpus);
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

std::string slurm_conf(const Cluster& cluster, const std::vector<NodeGroup>& groups, const std::string& nodes,
                       bool topology) {
  std::string text = header(cluster, "nodes, GPUs and partition");
  text +=
      "# Merge into slurm.conf; RealMemory is the catalog's memory: lower it by what the OS keeps, or\n"
      "# slurmd drains a node that registers with less (unless SlurmdParameters=config_overrides).\n";
  if (std::any_of(groups.begin(), groups.end(),
                  [](const NodeGroup& g) { return g.system->accelerators > 0; }))
    text += "GresTypes=gpu\n";
  if (topology) text += "TopologyPlugin=topology/tree\n";
  for (const NodeGroup& group : groups) text += node_line(*group.system, group.nodes);
  text += "PartitionName=gpu Nodes=" + nodes + " Default=YES MaxTime=INFINITE State=UP\n";
  return text;
}

std::string gres_conf(const Cluster& cluster, const std::vector<NodeGroup>& groups) {
  std::string text = header(cluster, "GPUs");
  bool any = false;
  for (const NodeGroup& group : groups) {
    const System& system = *group.system;
    if (system.accelerators == 0) continue;
    any = true;
    const std::string files =
        system.accelerators == 1 ? "/dev/nvidia0" : fmt::format("/dev/nvidia[0-{}]", system.accelerators - 1);
    text += fmt::format("NodeName={} Name=gpu Type={} File={}\n", group.nodes, system.accelerator, files);
  }
  return any ? text : text + "# the nodes have no GPUs\n";
}

// A switch of the written tree: the design switches it stands for and what sits below it.
struct LogicalSwitch {
  std::string name;
  std::vector<int> members;           // design switches (devices)
  std::vector<std::string> children;  // node names (leaf tier) or logical switch names
};

// "compute", or "compute-dgx-h100" for one node group's compute fabric (as its switches are named).
std::string switch_prefix(const Cluster& cluster, const Fabric& fabric) {
  const std::string role = role_name(fabric.role);
  const std::string group = fabric_node_group(cluster, fabric);
  return group.empty() ? role : role + "-" + group;
}

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
                     : fmt::format("{}-{}-group-{}", switch_prefix(cluster, fabric), tier_name(tier), k + 1);
  }
  return groups;
}

// One compute fabric as the switch tree topology/tree needs, leaves first, appended to `tree`.
void append_fabric_tree(const Cluster& cluster, const Fabric* fabric, std::vector<TreeSwitch>& tree) {
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
}

// The compute fabric as a switch tree; with several node groups each group's fabric is a tree of its own
// (Slurm then places no job across them, as no job spans GPU types). Empty when there is no fabric.
std::vector<TreeSwitch> fabric_tree(const Cluster& cluster) {
  std::vector<TreeSwitch> tree;
  for (const Fabric& fabric : cluster.fabrics) {
    if (fabric.role == NetworkRole::compute) append_fabric_tree(cluster, &fabric, tree);
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

// The scale-up domains by node group (a rack-scale system's name, else the node's system), in the order the
// groups first appear.
std::vector<BlockGroup> domains_by_group(const Cluster& cluster) {
  std::vector<BlockGroup> groups;
  for (const ScaleUpDomain& domain : cluster.domains) {
    if (domain.nodes.empty()) continue;
    const NodeType* type = cluster.node_type_of(cluster.devices[domain.nodes.front()]);
    const std::string name = !domain.rack_system.empty() ? domain.rack_system : type ? type->system : "";
    auto group =
        std::find_if(groups.begin(), groups.end(), [&](const BlockGroup& g) { return g.name == name; });
    if (group == groups.end()) group = groups.insert(groups.end(), BlockGroup{name, {}});
    std::vector<std::string> names;
    for (const int node : domain.nodes) names.push_back(cluster.devices[node].name);
    group->domains.push_back(std::move(names));
  }
  return groups;
}

}  // namespace

ExportFiles slurm_config(const Cluster& cluster, const Catalog& catalog) {
  const std::vector<NodeGroup> groups = node_groups(cluster, catalog);
  const std::string nodes = compress_hostlist(node_names(cluster));
  const Fabric* compute = cluster.fabric(NetworkRole::compute);
  const bool topology = compute != nullptr && compute->switches_in(Tier::leaf) > 0;
  const std::vector<TreeSwitch> tree = fabric_tree(cluster);
  ExportFiles files{{{"slurm.conf", slurm_conf(cluster, groups, nodes, topology)},
                     {"gres.conf", gres_conf(cluster, groups)},
                     {"topology.conf", topology_conf(cluster, tree)}}};
  const auto domains = multi_node_domains(cluster);
  const std::vector<BlockGroup> by_group = domains_by_group(cluster);
  if (!domains.empty() && by_group.size() > 1) {
    // Several node groups: topology.conf's topology/block has one BlockSizes for every block, so an 8-GPU
    // box's one-node block and an NVL72's 18-tray block cannot share it; topology.yaml gives each group's
    // blocks a topology of their own.
    files.files.push_back(
        {"topology.yaml",
         slurm_topology_yaml_by_group(
             header(cluster, "the fabric tree and each node group's NVLink blocks (topology.yaml)"), by_group,
             tree)});
  } else if (!domains.empty()) {
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
