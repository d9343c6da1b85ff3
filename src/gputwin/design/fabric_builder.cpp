#include "gputwin/design/fabric_builder.hpp"

#include <cmath>
#include <functional>
#include <string>

namespace gputwin {
namespace {

int ceil_div(long long numerator, long long denominator) {
  return static_cast<int>((numerator + denominator - 1) / denominator);
}

// Leaf downlinks for a ratio of downlinks to uplinks that still fit in `radix` ports.
int downlinks_for(int radix, double oversubscription) {
  return static_cast<int>(std::floor(radix * oversubscription / (1.0 + oversubscription) + 1e-9));
}

int uplinks_for(int downlinks, double oversubscription) {
  return static_cast<int>(std::ceil(downlinks / oversubscription - 1e-9));
}

[[noreturn]] void impossible(const ClusterSpec& cluster, const FabricSpec& spec, const std::string& field,
                             const std::string& message) {
  const std::string path = std::string("fabrics.") + role_name(spec.role) + "." + field;
  const auto found = cluster.locations.find(path);
  throw InputFailure(
      InputError{found != cluster.locations.end() ? found->second : spec.where, path, message});
}

class FabricAssembler {
 public:
  FabricAssembler(const FabricSpec& spec, const ClusterSpec& cluster, const Switch& part,
                  std::vector<Device>& devices)
      : spec_(spec), cluster_(cluster), part_(part), devices_(devices) {
    fabric_.role = spec.role;
    fabric_.topology = spec.topology == FabricTopology::rail_optimized ? "rail_optimized" : "leaf_spine";
    fabric_.switch_part = part.info.id;
    fabric_.link_speed = spec.link_speed;
    fabric_.radix = part.radix_at(spec.link_speed);
    fabric_.leaves_in_node_racks = spec.topology == FabricTopology::leaf_spine && spec.leaves_in_node_racks;
  }

  Fabric rail_optimized(const std::vector<FabricEndpoint>& nodes,
                        const std::vector<FabricEndpoint>& appliances) {
    const int radix = fabric_.radix;
    const int rails = nodes.empty() ? 1 : nodes.front().ports;
    const int su_nodes = spec_.scalable_unit_nodes > 0 ? spec_.scalable_unit_nodes
                                                       : downlinks_for(radix, spec_.oversubscription);
    const int max_downlinks = downlinks_for(radix, spec_.oversubscription);
    const int leaves_per_rail = leaves_per_rail_of_unit(su_nodes, max_downlinks);
    // Node slots of one leaf: a rack's trays with spine-leaf groups; else all its downlinks when a rail needs
    // several leaves (the last one of the rail may be short), so uplinks and spines stay the counts of a
    // full leaf.
    const int leaf_nodes = spec_.spine_leaf_groups ? spec_.rack_nodes
                           : leaves_per_rail == 1  ? su_nodes
                                                   : max_downlinks;
    const int uplinks = uplinks_for(leaf_nodes, spec_.oversubscription);
    if (leaf_nodes + uplinks > radix) {
      impossible(cluster_, spec_, "scalable_unit",
                 "a leaf needs " + std::to_string(su_nodes) + " node ports and " + std::to_string(uplinks) +
                     " uplinks at " + spec_.oversubscription_text + ", but " + part_.info.id + " has " +
                     std::to_string(radix) + " ports");
    }
    int appliance_links = 0;
    for (const auto& appliance : appliances) appliance_links += appliance.ports;
    // Appliances connect where a node would: they take whole node slots (one port per rail).
    const int reserved_slots = ceil_div(appliance_links, rails);
    const int node_count = static_cast<int>(nodes.size());
    // The slots of the last unit's leaves, used by nodes or not: a unit of rack-scale trays may leave ports
    // of its last leaf per rail free (36 trays on 2 x 32 ports). Appliances take free leaf ports first, as
    // the H100 RA's UFM takes a leaf's node port (Table 4); only when none is left do they open a unit.
    const int node_units = ceil_div(node_count, su_nodes);
    const int last_unit_nodes = node_count - (node_units - 1) * su_nodes;
    const bool on_free_ports =
        node_count > 0 && last_unit_nodes + reserved_slots <= leaves_per_rail * leaf_nodes;
    const int units = on_free_ports ? node_units : ceil_div(node_count + reserved_slots, su_nodes);

    fabric_.rails = rails;
    fabric_.nodes_per_scalable_unit = su_nodes;
    fabric_.scalable_units = units;
    fabric_.leaf_downlinks = leaf_nodes;
    fabric_.leaf_uplinks = uplinks;
    fabric_.slots_used = node_count + reserved_slots;
    fabric_.unit_slots = su_nodes;
    fabric_.boundary_slots = (units - 1) * su_nodes;
    fabric_.node_slots = 1;
    fabric_.appliance_slots = reserved_slots;

    // Leaves in unit, rail, part order; part p of a rail serves the unit's node slots
    // [p x leaf_nodes, (p + 1) x leaf_nodes).
    std::vector<int> leaves;
    for (int unit = 0; unit < units; ++unit) {
      for (int rail = 0; rail < rails; ++rail) {
        for (int part = 0; part < leaves_per_rail; ++part) {
          const std::string suffix = leaves_per_rail == 1 ? "" : "-" + std::to_string(part + 1);
          leaves.push_back(add_switch(
              Tier::leaf, "su" + std::to_string(unit + 1) + "-rail" + std::to_string(rail + 1) + suffix,
              unit));
        }
      }
    }
    auto leaf_of = [&](int slot, int rail) {
      const int unit = slot / su_nodes;
      const int part = (slot % su_nodes) / leaf_nodes;
      return leaves[(unit * rails + rail) * leaves_per_rail + part];
    };
    for (int k = 0; k < node_count; ++k) {
      devices_[nodes[k].device].placement_group = k / su_nodes;
      for (int rail = 0; rail < rails; ++rail) connect(nodes[k].device, Tier::endpoint, leaf_of(k, rail), 1);
    }
    // An appliance's slot: past the nodes in the last unit's leaves, or the next slots of the design.
    auto appliance_leaf = [&](int slot, int rail) {
      if (!on_free_ports) return leaf_of(node_count + slot, rail);
      const int unit_slot = last_unit_nodes + slot;
      return leaves[((node_units - 1) * rails + rail) * leaves_per_rail + unit_slot / leaf_nodes];
    };
    int link = 0;
    for (const auto& appliance : appliances) {
      for (int port = 0; port < appliance.ports; ++port, ++link) {
        connect(appliance.device, Tier::endpoint, appliance_leaf(link / rails, link % rails), 1);
      }
    }
    if (spec_.spine_leaf_groups) {
      spine_leaf_groups(leaves, uplinks, leaves_per_rail);
    } else {
      build_upper_tiers(leaves, uplinks, rails * leaves_per_rail);
    }
    return std::move(fabric_);
  }

  // Rack-scale systems: a scalable unit is whole racks (checked by the spec), often more trays than one leaf
  // takes, so each rail of a unit gets as many leaves as its trays need; with spine-leaf groups, one leaf per
  // rack (the spec checks that a rack's trays fit one leaf). Packed nodes: one leaf per rail.
  int leaves_per_rail_of_unit(int su_nodes, int max_downlinks) const {
    if (spec_.spine_leaf_groups) return su_nodes / spec_.rack_nodes;
    if (!cluster_.rack_system.empty() && su_nodes > max_downlinks && max_downlinks > 0)
      return ceil_div(su_nodes, max_downlinks);
    return 1;
  }

  Fabric leaf_spine(const std::vector<FabricEndpoint>& nodes, const std::vector<FabricEndpoint>& appliances) {
    const int radix = fabric_.radix;
    const int node_ports = nodes.empty() ? 1 : nodes.front().ports;
    int total_ports = node_ports * static_cast<int>(nodes.size());
    for (const auto& appliance : appliances) total_ports += appliance.ports;
    if (node_ports > radix) {
      impossible(cluster_, spec_, "switch",
                 "a node has " + std::to_string(node_ports) + " ports on this fabric but " + part_.info.id +
                     " has only " + std::to_string(radix));
    }
    const bool single_switch = total_ports <= radix;
    const int downlinks = single_switch ? radix : downlinks_for(radix, spec_.oversubscription);
    const int nodes_per_leaf = downlinks / node_ports;
    if (nodes_per_leaf == 0) {
      impossible(cluster_, spec_, "oversubscription",
                 "a leaf keeps " + std::to_string(downlinks) + " downlinks at " +
                     spec_.oversubscription_text + ", fewer than one node's " + std::to_string(node_ports) +
                     " ports");
    }
    const int used_downlinks = nodes_per_leaf * node_ports;
    const int uplinks = single_switch ? 0 : uplinks_for(used_downlinks, spec_.oversubscription);
    fabric_.leaf_downlinks = used_downlinks;
    fabric_.leaf_uplinks = uplinks;
    fabric_.slots_used = total_ports;
    fabric_.unit_slots = used_downlinks;
    fabric_.node_slots = node_ports;
    for (const auto& endpoint : appliances) {
      if (devices_[endpoint.device].kind == DeviceKind::appliance) fabric_.appliance_slots += endpoint.ports;
    }

    std::vector<int> leaves;
    int free_on_leaf = 0;
    auto leaf_with_room = [&](int ports) {
      if (free_on_leaf < ports) {
        leaves.push_back(add_switch(Tier::leaf, std::to_string(leaves.size() + 1), -1));
        free_on_leaf = used_downlinks;
      }
      free_on_leaf -= ports;
      return leaves.back();
    };
    for (const auto& node : nodes)
      connect(node.device, Tier::endpoint, leaf_with_room(node.ports), node.ports);
    for (const auto& appliance : appliances) {
      for (int port = 0; port < appliance.ports; ++port)
        connect(appliance.device, Tier::endpoint, leaf_with_room(1), 1);
    }
    if (single_switch) {
      fabric_.tiers = leaves.empty() ? 0 : 1;
      return std::move(fabric_);
    }
    build_upper_tiers(leaves, uplinks, 1);
    // Leaf-spine leaves are bought one at a time; the steps are the tiers: what one switch holds, then
    // what a two-tier fabric's radix leaves hold.
    fabric_.boundary_slots = fabric_.tiers == 2 ? radix : radix * used_downlinks;
    return std::move(fabric_);
  }

 private:
  int add_switch(Tier tier, const std::string& suffix, int group) {
    Device device;
    device.name = std::string(role_name(spec_.role)) + "-" + tier_name(tier) + "-" + suffix;
    device.kind = DeviceKind::network_switch;
    device.part = part_.info.id;
    device.height = part_.rack_units;
    device.power_max = part_.power_max;
    device.power_typical = part_.power_typical.value_or(part_.power_max);
    device.placement_group = group;
    devices_.push_back(device);
    const int index = static_cast<int>(devices_.size()) - 1;
    fabric_.switches[static_cast<int>(tier)].push_back(index);
    fabric_.ports_total += fabric_.radix;
    return index;
  }

  void connect(int lower, Tier lower_tier, int upper, int links) {
    LinkBundle bundle;
    bundle.device_a = lower;
    bundle.device_b = upper;
    bundle.tier_a = lower_tier;
    bundle.tier_b = static_cast<Tier>(static_cast<int>(lower_tier) + 1);
    bundle.links = links;
    fabric_.bundles.push_back(bundle);
    fabric_.ports_used += links * (lower_tier == Tier::endpoint ? 1 : 2);
  }

  void build_upper_tiers(const std::vector<int>& leaves, int uplinks, int unit_leaves) {
    if (spec_.max_tiers < 2) {
      impossible(cluster_, spec_, "max_tiers",
                 std::to_string(leaves.size()) + " leaves need a spine tier, but max_tiers is 1");
    }
    const int radix = fabric_.radix;
    const int leaf_count = static_cast<int>(leaves.size());
    if (leaf_count <= radix) {
      two_tiers(leaves, uplinks);
      return;
    }
    if (spec_.max_tiers < 3) {
      impossible(cluster_, spec_, "max_tiers",
                 std::to_string(leaf_count) + " leaves exceed the " + std::to_string(radix) +
                     " a two-tier fabric of " + part_.info.id + " can join; allow max_tiers: 3");
    }
    three_tiers(leaves, uplinks, unit_leaves);
  }

  void two_tiers(const std::vector<int>& leaves, int uplinks) {
    const int leaf_count = static_cast<int>(leaves.size());
    const int spines =
        smallest_divisor_at_least(uplinks, ceil_div(1LL * leaf_count * uplinks, fabric_.radix));
    fabric_.tiers = 2;
    fabric_.pods = 1;
    const int links = uplinks / spines;
    for (int s = 0; s < spines; ++s) {
      const int spine = add_switch(Tier::spine, std::to_string(s + 1), -1);
      for (const int leaf : leaves) connect(leaf, Tier::leaf, spine, links);
    }
  }

  // Pods of whole scalable units (`unit_leaves` leaves each), as many as a spine's down ports take at one
  // link per leaf.
  void three_tiers(const std::vector<int>& leaves, int uplinks, int unit_leaves) {
    const int pod_leaves = (fabric_.radix / 2 / unit_leaves) * unit_leaves;
    if (pod_leaves == 0) {
      impossible(cluster_, spec_, "switch",
                 "a spine of " + part_.info.id + " cannot hold one scalable unit's " +
                     std::to_string(unit_leaves) + " leaves");
    }
    join_pods(leaves, uplinks, pod_leaves, "pods", [](int pod) { return "pod" + std::to_string(pod + 1); });
  }

  // NVIDIA's spine-leaf groups (DGX SuperPOD with DGX GB200): each rail of each scalable unit is a pod of its
  // own, its leaves (one per rack) cabled only to its own spines, and spine j of every group joined to core
  // group j. Cross-rail traffic therefore crosses the core, so there are always three tiers.
  void spine_leaf_groups(const std::vector<int>& leaves, int uplinks, int group_leaves) {
    if (spec_.max_tiers < 3) {
      impossible(cluster_, spec_, "max_tiers",
                 "spine-leaf groups join their rails through core groups, a third tier; allow max_tiers: 3");
    }
    const int rails = fabric_.rails;
    join_pods(leaves, uplinks, group_leaves, "spine-leaf groups", [rails](int group) {
      return "su" + std::to_string(group / rails + 1) + "-rail" + std::to_string(group % rails + 1);
    });
  }

  // Three tiers over consecutive pods of `pod_leaves` leaves: every leaf of a pod cabled to every spine of
  // its pod, spine j of every pod to every core of plane j.
  void join_pods(const std::vector<int>& leaves, int uplinks, int pod_leaves, const std::string& pods_noun,
                 const std::function<std::string(int)>& pod_name) {
    const int radix = fabric_.radix;
    const int spine_down = radix / 2;  // spines stay non-blocking: half their ports down, half up
    const int spine_up = radix - spine_down;
    const int leaf_count = static_cast<int>(leaves.size());
    const int pods = ceil_div(leaf_count, pod_leaves);
    const int pod_spines =
        smallest_divisor_at_least(uplinks, ceil_div(1LL * pod_leaves * uplinks, spine_down));
    // Only spine-leaf groups can be this large (a unit's racks); pods of whole units fit a spine's ports.
    if (pod_spines == 0) {
      impossible(cluster_, spec_, "scalable_unit",
                 "one of the " + pods_noun + " has " + std::to_string(pod_leaves) + " leaves of " +
                     std::to_string(uplinks) + " uplinks each, more than spines of " + part_.info.id + " (" +
                     std::to_string(radix) +
                     " ports, half of them down) can take with every leaf on every spine");
    }
    const int plane_cores = smallest_divisor_at_least(spine_up, ceil_div(1LL * pods * spine_up, radix));
    if (plane_cores == 0) {
      impossible(cluster_, spec_, "switch",
                 std::to_string(leaf_count) + " leaves need " + std::to_string(pods) + " " + pods_noun +
                     ", more than a core of " + part_.info.id + " (" + std::to_string(radix) +
                     " ports) can join in three tiers");
    }
    fabric_.tiers = 3;
    fabric_.pods = pods;
    std::vector<int> cores;
    for (int plane = 0; plane < pod_spines; ++plane) {
      for (int c = 0; c < plane_cores; ++c) {
        cores.push_back(
            add_switch(Tier::core, "plane" + std::to_string(plane + 1) + "-" + std::to_string(c + 1), -1));
      }
    }
    for (int pod = 0; pod < pods; ++pod) {
      for (int plane = 0; plane < pod_spines; ++plane) {
        const int spine = add_switch(Tier::spine, pod_name(pod) + "-" + std::to_string(plane + 1), -1);
        const int first = pod * pod_leaves;
        const int last = std::min(leaf_count, first + pod_leaves);
        for (int leaf = first; leaf < last; ++leaf)
          connect(leaves[leaf], Tier::leaf, spine, uplinks / pod_spines);
        for (int c = 0; c < plane_cores; ++c) {
          connect(spine, Tier::spine, cores[plane * plane_cores + c], spine_up / plane_cores);
        }
      }
    }
  }

  const FabricSpec& spec_;
  const ClusterSpec& cluster_;
  const Switch& part_;
  std::vector<Device>& devices_;
  Fabric fabric_;
};

}  // namespace

int smallest_divisor_at_least(int n, int at_least) {
  for (int d = std::max(1, at_least); d <= n; ++d) {
    if (n % d == 0) return d;
  }
  return 0;
}

Fabric build_fabric(const FabricSpec& spec, const ClusterSpec& cluster, const Switch& part,
                    const std::vector<FabricEndpoint>& nodes, const std::vector<FabricEndpoint>& appliances,
                    std::vector<Device>& devices) {
  FabricAssembler assembler(spec, cluster, part, devices);
  return spec.topology == FabricTopology::rail_optimized ? assembler.rail_optimized(nodes, appliances)
                                                         : assembler.leaf_spine(nodes, appliances);
}

}  // namespace gputwin
