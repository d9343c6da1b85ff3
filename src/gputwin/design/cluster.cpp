#include "gputwin/design/cluster.hpp"

#include <algorithm>

namespace gputwin {

const char* device_kind_name(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::node:
      return "node";
    case DeviceKind::network_switch:
      return "switch";
    case DeviceKind::appliance:
      return "appliance";
    case DeviceKind::server:
      return "server";
    case DeviceKind::pdu:
      return "pdu";
    case DeviceKind::scale_up_switch:
      return "scale_up_switch";
    case DeviceKind::power_shelf:
      return "power_shelf";
  }
  return "?";
}

const char* rack_kind_name(RackKind kind) {
  switch (kind) {
    case RackKind::compute:
      return "compute";
    case RackKind::network:
      return "network";
    case RackKind::management:
      return "management";
  }
  return "?";
}

const char* tier_name(Tier tier) {
  switch (tier) {
    case Tier::endpoint:
      return "node";
    case Tier::leaf:
      return "leaf";
    case Tier::spine:
      return "spine";
    case Tier::core:
      return "core";
  }
  return "?";
}

int Fabric::links_between(Tier lower, Tier upper) const {
  int total = 0;
  for (const auto& bundle : bundles) {
    if (bundle.tier_a == lower && bundle.tier_b == upper) total += bundle.links;
  }
  return total;
}

int Fabric::transceivers_at(const std::string& end) const {
  const auto found = transceivers.find(end);
  if (found == transceivers.end()) return 0;
  int total = 0;
  for (const auto& [part, count] : found->second) total += count;
  return total;
}

const Fabric* Cluster::fabric(NetworkRole role) const {
  const auto found =
      std::find_if(fabrics.begin(), fabrics.end(), [&](const Fabric& f) { return f.role == role; });
  return found == fabrics.end() ? nullptr : &*found;
}

int Cluster::racks_of(RackKind kind) const {
  return static_cast<int>(
      std::count_if(racks.begin(), racks.end(), [&](const Rack& r) { return r.kind == kind; }));
}

}  // namespace gputwin

namespace gputwin {

const NodeType* Cluster::node_type_of(const Device& device) const {
  if (device.node_type < 0 || device.node_type >= static_cast<int>(node_types.size())) return nullptr;
  return &node_types[device.node_type];
}

const ScaleUpDomain* Cluster::domain_of(const Device& device) const {
  if (device.domain < 0 || device.domain >= static_cast<int>(domains.size())) return nullptr;
  return &domains[device.domain];
}

const NodeType* Cluster::sole_node_type() const {
  const NodeType* sole = nullptr;
  for (const Device& device : devices) {
    if (device.kind != DeviceKind::node) continue;
    const NodeType* type = node_type_of(device);
    if (type == nullptr || (sole != nullptr && type != sole)) return nullptr;
    sole = type;
  }
  return sole;
}

std::vector<NodeTypeCount> Cluster::node_type_counts() const {
  std::vector<NodeTypeCount> counts;
  for (const DeviceKind kind : {DeviceKind::node, DeviceKind::server}) {
    for (const Device& device : devices) {
      const NodeType* type = device.kind == kind ? node_type_of(device) : nullptr;
      if (type == nullptr) continue;
      auto same = [&](const NodeTypeCount& c) { return c.type == type && c.kind == kind; };
      if (auto found = std::find_if(counts.begin(), counts.end(), same); found != counts.end())
        ++found->count;
      else
        counts.push_back({type, kind, 1});
    }
  }
  return counts;
}

std::string node_counts_text(const Cluster& cluster, DeviceKind kind) {
  std::string text;
  for (const NodeTypeCount& count : cluster.node_type_counts()) {
    if (count.kind != kind) continue;
    text += (text.empty() ? "" : " + ") + std::to_string(count.count) + " x " + count.type->system;
  }
  return text;
}

std::string several_node_types_text(const Cluster& cluster) {
  return "the cluster holds nodes of several types (" + node_counts_text(cluster, DeviceKind::node) + ")";
}

const ScaleUpDomain* Cluster::first_node_domain() const {
  for (const Device& device : devices) {
    if (device.kind == DeviceKind::node) return domain_of(device);
  }
  return nullptr;
}

}  // namespace gputwin
