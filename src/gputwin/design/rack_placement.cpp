#include "gputwin/design/rack_placement.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gputwin {
namespace {

class RackPlacer {
 public:
  RackPlacer(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster,
             const std::vector<Power>& module_reserve)
      : spec_(spec),
        catalog_(catalog),
        cluster_(cluster),
        cooling_(catalog.get<Cooling>(spec.facility.cooling)),
        module_reserve_(module_reserve),
        reserved_in_rack_(cluster.racks.size()) {
    power_limit_ = std::min(spec.facility.rack_power_limit, cooling_.max_rack_power);
    for (std::size_t r = 0; r < cluster.racks.size(); ++r) open_[cluster.racks[r].kind] = static_cast<int>(r);
  }

  void place() {
    std::vector<bool> leaf_of_top_of_rack(cluster_.devices.size(), false);
    for (const auto& fabric : cluster_.fabrics) {
      if (!fabric.leaves_in_node_racks || fabric.tiers < 2) continue;
      for (const int leaf : fabric.switches[static_cast<int>(Tier::leaf)]) leaf_of_top_of_rack[leaf] = true;
    }
    // Node group by node group (the compute node types in the order the spec lists them): a rack holds one
    // group's nodes only.
    for (std::size_t type = 0; type < cluster_.node_types.size(); ++type) {
      place_rack_systems(static_cast<int>(type));
      place_nodes_by_group(static_cast<int>(type));
    }
    place_top_of_rack_leaves(leaf_of_top_of_rack);
    for (std::size_t d = 0; d < cluster_.devices.size(); ++d) {
      if (cluster_.devices[d].rack >= 0) continue;
      const bool network = cluster_.devices[d].kind == DeviceKind::network_switch;
      place_in_open_rack(static_cast<int>(d), network ? RackKind::network : RackKind::management);
    }
    for (std::size_t r = 0; r < cluster_.racks.size(); ++r) {
      cluster_.racks[r].power_limit = power_limit_;
      const int per_row = spec_.facility.layout.racks_per_row;
      cluster_.racks[r].row = per_row > 0 ? static_cast<int>(r) / per_row : 0;
      cluster_.racks[r].slot = per_row > 0 ? static_cast<int>(r) % per_row : static_cast<int>(r);
    }
  }

 private:
  // The room a device's rack keeps for the modules routing will put in its cages (module_power_to_reserve).
  Power reserve_of(int device) const {
    return device < static_cast<int>(module_reserve_.size()) ? module_reserve_[device] : Power{};
  }

  // `modules`: the most any of these nodes' modules add (nodes of one system on the same fabrics alike).
  int nodes_per_rack(const Device& node, Power modules) const {
    const FacilitySpec& facility = spec_.facility;
    const int by_power = static_cast<int>(std::floor(power_limit_ / (node.power_max + modules) + 1e-9));
    if (by_power == 0) throw_over_power_limit(node, modules);
    const int by_space = static_cast<int>(std::floor(facility.rack_units / node.height + 1e-9));
    if (by_space == 0) {
      throw InputFailure({spec_.where("facility.rack_units"), "facility.rack_units",
                          "one " + node.part + " is " + format_rack_units(node.height) + ", taller than a " +
                              format_rack_units(facility.rack_units) + " rack"});
    }
    int most = std::min(by_power, by_space);
    if (facility.max_nodes_per_rack > 0) most = std::min(most, facility.max_nodes_per_rack);
    return most;
  }

  // The packed compute nodes of node type `type`, scalable unit by scalable unit.
  void place_nodes_by_group(int type) {
    std::vector<int> nodes;
    for (std::size_t d = 0; d < cluster_.devices.size(); ++d) {
      const Device& device = cluster_.devices[d];
      if (device.kind == DeviceKind::node && device.rack < 0 && device.node_type == type)
        nodes.push_back(static_cast<int>(d));
    }
    if (nodes.empty()) return;
    Power modules;
    for (const int node : nodes) modules = std::max(modules, reserve_of(node));
    const int per_rack = nodes_per_rack(cluster_.devices[nodes.front()], modules);
    std::map<int, std::vector<int>> switches_by_group;
    for (std::size_t d = 0; d < cluster_.devices.size(); ++d) {
      const Device& device = cluster_.devices[d];
      if (device.kind != DeviceKind::node && device.placement_group >= 0 && device.rack < 0) {
        switches_by_group[device.placement_group].push_back(static_cast<int>(d));
      }
    }
    std::size_t next = 0;
    while (next < nodes.size()) {
      const int group = cluster_.devices[nodes[next]].placement_group;
      int in_rack = per_rack;
      while (next < nodes.size() && cluster_.devices[nodes[next]].placement_group == group) {
        if (in_rack == per_rack) {
          open_rack(RackKind::compute);
          in_rack = 0;
        }
        put(nodes[next++], static_cast<int>(cluster_.racks.size()) - 1);
        ++in_rack;
      }
      if (group < 0) continue;
      const auto found = switches_by_group.find(group);
      if (found == switches_by_group.end()) continue;
      open_.erase(RackKind::network);  // each scalable unit gets its own network rack, next to its nodes
      for (const int device : found->second) place_in_open_rack(device, RackKind::network);
      open_.erase(RackKind::network);
    }
  }

  // "One system fills a rack": each rack-scale system's trays, switch trays and power shelves go into a rack
  // of their own, whatever its power (the system's own power shelves feed it); its scalable unit's switches
  // follow in a network rack of their own, as for packed nodes.
  // The rack-scale systems whose compute trays are of node type `type`.
  void place_rack_systems(int type) {
    std::string rack_system;
    for (const ScaleUpDomain& domain : cluster_.domains) {
      if (!domain.rack_system.empty() && !domain.nodes.empty() &&
          cluster_.devices[domain.nodes.front()].node_type == type)
        rack_system = domain.rack_system;
    }
    if (rack_system.empty()) return;
    const RackSystem& system = catalog_.get<RackSystem>(rack_system);
    auto of_type = [&](int domain) {
      const ScaleUpDomain& held = cluster_.domains[domain];
      return held.rack_system == rack_system && cluster_.devices[held.nodes.front()].node_type == type;
    };
    std::map<int, std::vector<int>> by_domain;  // domain -> its devices, in order
    std::map<int, int> group_of_domain;
    std::vector<std::vector<int>> shelves(cluster_.domains.size());
    int domain_of_shelves = -1;
    for (std::size_t d = 0; d < cluster_.devices.size(); ++d) {
      const Device& device = cluster_.devices[d];
      if (device.rack >= 0) continue;  // placed on an earlier pass
      if (device.domain >= 0) {
        domain_of_shelves = device.domain;
        if (!of_type(device.domain)) continue;
        by_domain[device.domain].push_back(static_cast<int>(d));
        if (device.kind == DeviceKind::node) group_of_domain.emplace(device.domain, device.placement_group);
      } else if (device.kind == DeviceKind::power_shelf && domain_of_shelves >= 0) {
        shelves[domain_of_shelves].push_back(static_cast<int>(d));
      }
    }
    if (by_domain.empty()) return;
    Power modules;  // the most one system's trays' modules add
    for (const auto& [domain, devices] : by_domain) {
      Power of_domain;
      for (const int device : devices) of_domain += reserve_of(device);
      modules = std::max(modules, of_domain);
    }
    if (system.power_max + modules > power_limit_) {
      Device whole;
      whole.part = system.info.id;
      whole.power_max = system.power_max;
      throw_over_power_limit(whole, modules);
    }
    std::map<int, std::vector<int>> switches_by_group;
    for (std::size_t d = 0; d < cluster_.devices.size(); ++d) {
      const Device& device = cluster_.devices[d];
      if (device.kind == DeviceKind::network_switch && device.placement_group >= 0 && device.rack < 0)
        switches_by_group[device.placement_group].push_back(static_cast<int>(d));
    }
    for (auto it = by_domain.begin(); it != by_domain.end(); ++it) {
      open_rack(RackKind::compute);
      const int rack = static_cast<int>(cluster_.racks.size()) - 1;
      cluster_.racks[rack].system = system.info.id;
      for (const int device : it->second) put(device, rack);
      for (const int device : shelves[it->first]) put(device, rack);
      cluster_.racks[rack].used += system.other_rack_units;
      // The system's published rack figure governs, not the sum of its parts' estimates.
      cluster_.racks[rack].power_max = system.power_max;
      cluster_.racks[rack].power_typical = system.power_typical.value_or(system.power_max);
      const int group = group_of_domain[it->first];
      const auto next = std::next(it);
      const bool last_of_group = next == by_domain.end() || group_of_domain[next->first] != group;
      if (group < 0 || !last_of_group) continue;
      const auto found = switches_by_group.find(group);
      if (found == switches_by_group.end()) continue;
      open_.erase(RackKind::network);
      for (const int device : found->second) place_in_open_rack(device, RackKind::network);
      open_.erase(RackKind::network);
    }
  }

  void place_top_of_rack_leaves(const std::vector<bool>& is_top_of_rack_leaf) {
    for (const auto& fabric : cluster_.fabrics) {
      std::map<int, std::map<int, int>> links_by_rack;  // leaf -> rack -> links to endpoints in that rack
      for (const auto& bundle : fabric.bundles) {
        if (bundle.tier_b == Tier::leaf && is_top_of_rack_leaf[bundle.device_b]) {
          const int rack = cluster_.devices[bundle.device_a].rack;
          if (rack >= 0) links_by_rack[bundle.device_b][rack] += bundle.links;
        }
      }
      for (const auto& [leaf, counts] : links_by_rack) {
        if (cluster_.devices[leaf].rack >= 0) continue;
        // The rack with the most of the leaf's endpoints first (then the lowest index): shortest cables.
        std::vector<std::pair<int, int>> racks;
        for (const auto& [rack, links] : counts) racks.emplace_back(-links, rack);
        std::sort(racks.begin(), racks.end());
        for (const auto& [negative_links, rack] : racks) {
          if (fits(rack, leaf)) {
            put(leaf, rack);
            break;
          }
        }
      }
    }
  }

  // Within the rack's space and, with the modules routing will add to it and to the device, its power limit.
  bool fits(int rack_index, int device_index) const {
    const Rack& rack = cluster_.racks[rack_index];
    const Device& device = cluster_.devices[device_index];
    return rack.used + device.height <= spec_.facility.rack_units &&
           rack.power_max + reserved_in_rack_[rack_index] + device.power_max + reserve_of(device_index) <=
               power_limit_;
  }

  [[noreturn]] void throw_over_power_limit(const Device& device, Power modules) const {
    const bool cooling_bound = cooling_.max_rack_power < spec_.facility.rack_power_limit;
    const std::string field = cooling_bound ? "facility.cooling" : "facility.rack_power_limit";
    const std::string limit = cooling_bound ? "what " + cooling_.info.id + " cooling removes per rack (" +
                                                  format_power(cooling_.max_rack_power) + ")"
                                            : "the rack power limit of " + format_power(power_limit_);
    throw InputFailure(
        {spec_.where(field), field,
         "one " + device.part + " draws up to " + format_power(device.power_max) +
             (modules > Power{} ? " and the modules in its cages up to " + format_power(modules) : "") +
             ", more than " + limit});
  }

  void open_rack(RackKind kind) {
    Rack rack;
    rack.kind = kind;
    rack.name = std::string(rack_kind_name(kind)) + "-" + std::to_string(cluster_.racks_of(kind) + 1);
    cluster_.racks.push_back(rack);
    reserved_in_rack_.push_back(Power{});
    open_[kind] = static_cast<int>(cluster_.racks.size()) - 1;
  }

  void place_in_open_rack(int device, RackKind kind) {
    const Device& part = cluster_.devices[device];
    auto found = open_.find(kind);
    if (found == open_.end() || !fits(found->second, device)) {
      open_rack(kind);
      if (!fits(open_[kind], device)) {
        if (part.power_max + reserve_of(device) > power_limit_)
          throw_over_power_limit(part, reserve_of(device));
        throw InputFailure({spec_.where("facility.rack_units"), "facility.rack_units",
                            part.name + " (" + part.part + ", " + format_rack_units(part.height) +
                                ") is taller than a " + format_rack_units(spec_.facility.rack_units) +
                                " rack"});
      }
    }
    put(device, open_[kind]);
  }

  void put(int device, int rack) {
    Device& placed = cluster_.devices[device];
    Rack& target = cluster_.racks[rack];
    placed.rack = rack;
    placed.rack_unit = static_cast<int>(std::lround(in_rack_units(target.used))) + 1;
    target.devices.push_back(device);
    target.used += placed.height;
    target.power_max += placed.power_max;
    target.power_typical += placed.power_typical;
    reserved_in_rack_[rack] += reserve_of(device);
  }

  const ClusterSpec& spec_;
  const Catalog& catalog_;
  Cluster& cluster_;
  const Cooling& cooling_;
  const std::vector<Power>& module_reserve_;
  std::vector<Power> reserved_in_rack_;  // by rack: the reserves of the devices placed in it on this call
  Power power_limit_;
  std::map<RackKind, int> open_;
};

}  // namespace

void place_devices(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster,
                   const std::vector<Power>& module_reserve) {
  RackPlacer(spec, catalog, cluster, module_reserve).place();
}

}  // namespace gputwin
