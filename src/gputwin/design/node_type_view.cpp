#include "gputwin/design/node_type_view.hpp"

#include <vector>

#include "gputwin/design/node_groups.hpp"

namespace gputwin {
namespace {

void remap(std::vector<int>& indices, const std::vector<int>& new_index) {
  std::vector<int> kept;
  for (const int index : indices) {
    if (index >= 0 && index < static_cast<int>(new_index.size()) && new_index[index] >= 0)
      kept.push_back(new_index[index]);
  }
  indices = std::move(kept);
}

bool is_compute_node_of(const Cluster& cluster, const Device& device, const std::string& system) {
  const NodeType* type = device.kind == DeviceKind::node ? cluster.node_type_of(device) : nullptr;
  return type != nullptr && type->system == system;
}

}  // namespace

std::optional<Cluster> cluster_of_node_type(const Cluster& cluster, const std::string& system) {
  std::vector<bool> domain_kept(cluster.domains.size(), false);
  bool any = false;
  for (const Device& device : cluster.devices) {
    if (!is_compute_node_of(cluster, device, system)) continue;
    any = true;
    if (device.domain >= 0 && device.domain < static_cast<int>(domain_kept.size()))
      domain_kept[device.domain] = true;
  }
  if (!any) return std::nullopt;

  Cluster view = cluster;
  view.devices.clear();
  view.nodes = 0;
  view.gpus = 0;
  std::vector<int> new_index(cluster.devices.size(), -1);
  for (std::size_t i = 0; i < cluster.devices.size(); ++i) {
    const Device& device = cluster.devices[i];
    const bool other_node = device.kind == DeviceKind::node && !is_compute_node_of(cluster, device, system);
    const bool other_tray = device.kind == DeviceKind::scale_up_switch && device.domain >= 0 &&
                            device.domain < static_cast<int>(domain_kept.size()) &&
                            !domain_kept[device.domain];
    if (other_node || other_tray) continue;
    new_index[i] = static_cast<int>(view.devices.size());
    view.devices.push_back(device);
    if (device.kind == DeviceKind::node) {
      ++view.nodes;
      view.gpus += cluster.node_type_of(device)->gpus;
    }
  }

  std::vector<int> new_domain(cluster.domains.size(), -1);
  view.domains.clear();
  for (std::size_t d = 0; d < cluster.domains.size(); ++d) {
    if (!domain_kept[d]) continue;
    new_domain[d] = static_cast<int>(view.domains.size());
    ScaleUpDomain domain = cluster.domains[d];
    remap(domain.nodes, new_index);
    remap(domain.switches, new_index);
    view.domains.push_back(std::move(domain));
  }
  for (Device& device : view.devices) {
    if (device.domain >= 0) device.domain = new_domain[device.domain];
  }
  for (Rack& rack : view.racks) remap(rack.devices, new_index);
  // The compute fabrics of other node groups (one per group, docs/plan.md "Several node groups") do not
  // reach these nodes: the view keeps only their own.
  std::erase_if(view.fabrics, [&](const Fabric& fabric) {
    if (fabric.role != NetworkRole::compute) return false;
    const std::string reached = fabric_node_system(cluster, fabric);
    return !reached.empty() && reached != system;
  });
  for (Fabric& fabric : view.fabrics) {
    for (auto& tier : fabric.switches) remap(tier, new_index);
    std::vector<LinkBundle> bundles;
    for (LinkBundle bundle : fabric.bundles) {
      if (bundle.device_a < 0 || bundle.device_b < 0) continue;
      bundle.device_a = new_index[bundle.device_a];
      bundle.device_b = new_index[bundle.device_b];
      if (bundle.device_a >= 0 && bundle.device_b >= 0) bundles.push_back(bundle);
    }
    fabric.bundles = std::move(bundles);
  }
  view.node_system = system;
  return view;
}

}  // namespace gputwin
