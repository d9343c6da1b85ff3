#include "gputwin/design/node_groups.hpp"

#include <algorithm>

namespace gputwin {
namespace {

// The first compute node a fabric's endpoint links reach; -1 when none.
int first_node_on(const Cluster& cluster, const Fabric& fabric) {
  for (const LinkBundle& bundle : fabric.bundles) {
    if (bundle.tier_a == Tier::endpoint && cluster.devices[bundle.device_a].kind == DeviceKind::node)
      return bundle.device_a;
  }
  return -1;
}

}  // namespace

std::string fabric_node_system(const Cluster& cluster, const Fabric& fabric) {
  std::string system;
  for (const LinkBundle& bundle : fabric.bundles) {
    const Device& device = cluster.devices[bundle.device_a];
    if (bundle.tier_a != Tier::endpoint || device.kind != DeviceKind::node) continue;
    const NodeType* type = cluster.node_type_of(device);
    if (type == nullptr) continue;
    if (!system.empty() && system != type->system) return "";
    system = type->system;
  }
  return system;
}

int compute_fabric_count(const Cluster& cluster) {
  return static_cast<int>(std::count_if(cluster.fabrics.begin(), cluster.fabrics.end(),
                                        [](const Fabric& f) { return f.role == NetworkRole::compute; }));
}

std::string fabric_node_group(const Cluster& cluster, const Fabric& fabric) {
  if (fabric.role != NetworkRole::compute || compute_fabric_count(cluster) < 2) return "";
  const std::string system = fabric_node_system(cluster, fabric);
  if (system.empty()) return "";
  const ScaleUpDomain* domain = cluster.domain_of(cluster.devices[first_node_on(cluster, fabric)]);
  return domain != nullptr && !domain->rack_system.empty() ? domain->rack_system : system;
}

std::string fabric_name(const Cluster& cluster, const Fabric& fabric) {
  const std::string role = role_name(fabric.role);
  const std::string group = fabric_node_group(cluster, fabric);
  return group.empty() ? role : role + ":" + group;
}

std::vector<NodeTypeTypicalPower> typical_power_by_node_type(const Cluster& cluster) {
  std::vector<NodeTypeTypicalPower> typicals;
  for (const Device& device : cluster.devices) {
    if (device.kind != DeviceKind::node) continue;
    const NodeType* type = cluster.node_type_of(device);
    if (type == nullptr) continue;
    const bool seen = std::any_of(typicals.begin(), typicals.end(),
                                  [&](const NodeTypeTypicalPower& t) { return t.system == type->system; });
    if (!seen) typicals.push_back({type->system, device.power_typical});
  }
  return typicals;
}

}  // namespace gputwin
