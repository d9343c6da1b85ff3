#include "gputwin/sim/cluster_pool.hpp"

#include <algorithm>
#include <map>

namespace gputwin {

GpuPool pool_from_cluster(const Cluster& cluster, int gpus_per_node, int last_nodes_left_out) {
  std::map<int, int> leaf_of_device;  // node device -> first compute leaf it reaches
  if (const Fabric* compute = cluster.fabric(NetworkRole::compute)) {
    for (const auto& bundle : compute->bundles) {
      if (bundle.tier_a == Tier::endpoint) leaf_of_device.try_emplace(bundle.device_a, bundle.device_b);
    }
  }
  std::vector<int> capacity;
  std::vector<int> group;
  std::map<int, int> group_ids;  // placement group or leaf -> dense id
  for (std::size_t d = 0; d < cluster.devices.size(); ++d) {
    const Device& device = cluster.devices[d];
    if (device.kind != DeviceKind::node) continue;
    const auto leaf = leaf_of_device.find(static_cast<int>(d));
    // Rail-optimized nodes of a scalable unit are one hop apart on every rail: the unit is the group.
    const int key = device.placement_group >= 0 ? -1 - device.placement_group
                                                : (leaf != leaf_of_device.end() ? leaf->second : 0);
    group.push_back(group_ids.try_emplace(key, static_cast<int>(group_ids.size())).first->second);
    capacity.push_back(gpus_per_node);
  }
  const auto left_out = static_cast<std::size_t>(std::max(0, last_nodes_left_out));
  const std::size_t kept = capacity.size() - std::min(capacity.size(), left_out);
  capacity.resize(kept);
  group.resize(kept);
  return GpuPool(std::move(capacity), std::move(group));
}

}  // namespace gputwin
