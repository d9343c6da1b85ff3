#include "gputwin/design/design.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "gputwin/design/boundary_step.hpp"
#include "gputwin/design/cabling.hpp"
#include "gputwin/design/cooling_plant.hpp"
#include "gputwin/design/fabric_builder.hpp"
#include "gputwin/design/node_groups.hpp"
#include "gputwin/design/power_and_cost.hpp"
#include "gputwin/design/rack_placement.hpp"
#include "gputwin/design/storage_sizing.hpp"

namespace gputwin {
namespace {

std::string numbered(const std::string& prefix, int number, int total) {
  const int width = static_cast<int>(std::to_string(std::max(total, 1)).size());
  char digits[32];
  std::snprintf(digits, sizeof digits, "%0*d", width, number);
  return prefix + "-" + digits;
}

class Designer {
 public:
  Designer(const ClusterSpec& spec, const Catalog& catalog) : spec_(spec), catalog_(catalog) {}

  Cluster design() {
    const std::vector<NodeGroupSpec> groups = spec_.groups();
    cluster_.name = spec_.name;
    cluster_.node_system = spec_.node_system;
    cluster_.rack_system = groups.size() == 1 ? spec_.rack_system : std::string();
    for (const NodeGroupSpec& group : groups) add_group(group, groups.size() > 1);
    for (const auto& request : spec_.management_servers) {
      const System& server = catalog_.get<System>(request.system);
      for (int n = 0; n < request.count; ++n) {
        add_system_device(server, DeviceKind::server, numbered(request.system, n + 1, request.count));
      }
    }
    if (spec_.compute.present) {
      for (std::size_t g = 0; g < groups.size(); ++g) build_compute_fabric(groups[g], groups.size() > 1);
    }
    for (const FabricSpec* fabric : {&spec_.storage, &spec_.inband}) {
      if (fabric->present) cluster_.fabrics.push_back(build(*fabric, spec_));
    }
    place_devices(spec_, catalog_, cluster_, module_power_to_reserve(spec_, catalog_, cluster_, 0));
    route_with_module_power(0);  // the modules' power is in the racks before their PDUs are sized
    add_pdus(spec_, catalog_, cluster_);
    // The out-of-band network reaches every placed device and PDU, so it is built last, rack by rack.
    if (spec_.oob.present) {
      const std::size_t oob = cluster_.fabrics.size();
      cluster_.fabrics.push_back(build(spec_.oob, spec_));
      place_devices(spec_, catalog_, cluster_, module_power_to_reserve(spec_, catalog_, cluster_, oob));
      route_with_module_power(oob);
      const int late_pdus = add_pdus(spec_, catalog_, cluster_);
      if (late_pdus > 0) {
        cluster_.warnings.push_back(
            {"pdus-off-oob", std::to_string(late_pdus) +
                                 " PDUs added for the out-of-band switches' own load are "
                                 "not on the out-of-band network"});
      }
    }
    summarize_power(spec_, catalog_, cluster_);
    plan_liquid_cooling(spec_, catalog_, cluster_);
    warn_about_fabrics();
    build_bom(spec_, catalog_, cluster_);
    return std::move(cluster_);
  }

 private:
  // Cables and modules of the fabrics from index `first` on, each module's power in its host's rack.
  void route_with_module_power(std::size_t first) {
    route_cables(spec_, catalog_, cluster_, first);
    add_module_power(catalog_, cluster_, first);
  }

  // One node group's compute nodes, in order: packed nodes one domain each, or whole rack-scale systems.
  // With several groups the node names carry the group's system ("dgx-h100-01") so they stay unique.
  void add_group(const NodeGroupSpec& group, bool several) {
    const System& system = catalog_.get<System>(group.node_system);
    cluster_.nodes += group.node_count;
    cluster_.gpus += group.node_count * system.accelerators;
    if (group.rack_system.empty()) {
      const std::string prefix = several ? group.system : "node";
      for (int n = 0; n < group.node_count; ++n) {
        add_system_device(system, DeviceKind::node, numbered(prefix, n + 1, group.node_count));
        add_box_domain(system, static_cast<int>(cluster_.devices.size()) - 1);
      }
    } else {
      add_rack_systems(catalog_.get<RackSystem>(group.rack_system), system, group.count);
    }
  }

  // The compute fabric of one node group: every group gets a rail-optimized (or leaf-spine) island of its
  // own, built by the same rules as a design of that group alone, because jobs never span GPU types
  // (docs/plan.md, "Several node groups"). Each island gets the spec's compute appliances (UFM) as the group
  // alone would: islands share no switch, so each is an InfiniBand subnet of its own, and each subnet needs
  // its own subnet manager (docs/plan.md, "Several node groups", cites the sources).
  // Scalable units are numbered on from the islands before, so each keeps its own network racks.
  void build_compute_fabric(const NodeGroupSpec& group, bool several) {
    FabricSpec fabric = spec_.compute;
    fabric.scalable_unit_nodes = group.compute_scalable_unit_nodes;
    fabric.appliances = group.compute_appliances;
    ClusterSpec alone = spec_;
    alone.node_system = group.node_system;
    alone.rack_system = group.rack_system;
    alone.node_count = group.node_count;
    const std::size_t before = cluster_.devices.size();
    int next_unit = 0;
    for (const Device& device : cluster_.devices) next_unit = std::max(next_unit, device.placement_group + 1);
    Fabric built = build(fabric, alone, group.node_system);
    for (std::size_t d = 0; d < cluster_.devices.size(); ++d) {
      Device& device = cluster_.devices[d];
      const bool own_node = device.kind == DeviceKind::node && d < before &&
                            cluster_.node_types[device.node_type].system == group.node_system;
      if ((own_node || d >= before) && device.placement_group >= 0) device.placement_group += next_unit;
      // "compute-leaf-su1-rail1" -> "compute-dgx-h100-leaf-su1-rail1", "compute-ufm-3.1-1" ->
      // "compute-dgx-h100-ufm-3.1-1": switch and appliance names stay unique.
      if (several && d >= before &&
          (device.kind == DeviceKind::network_switch || device.kind == DeviceKind::appliance)) {
        const std::string role = role_name(NetworkRole::compute);
        device.name = role + "-" + group.system + device.name.substr(role.size());
      }
    }
    cluster_.fabrics.push_back(std::move(built));
  }

  void add_system_device(const System& system, DeviceKind kind, std::string name) {
    Device device;
    device.name = std::move(name);
    device.kind = kind;
    device.part = system.info.id;
    device.height = system.rack_units;
    device.power_max = system.power_max;
    device.power_typical = system.power_typical.value_or(system.power_max);
    device.node_type = node_type_for(system);
    cluster_.devices.push_back(device);
  }

  // The index of the node type of `system`, added on first use.
  int node_type_for(const System& system) {
    for (std::size_t t = 0; t < cluster_.node_types.size(); ++t) {
      if (cluster_.node_types[t].system == system.info.id) return static_cast<int>(t);
    }
    cluster_.node_types.push_back({system.info.id, system.accelerator, system.accelerators,
                                   system.scale_up_domain, system.nics, system.cpu, system.cpu_sockets,
                                   system.cpu_cores, system.system_memory});
    return static_cast<int>(cluster_.node_types.size()) - 1;
  }

  // An 8-GPU (or any self-contained) box: one node, one domain of its GPUs.
  void add_box_domain(const System& system, int node) {
    ScaleUpDomain domain;
    domain.gpus = system.accelerators;
    domain.nodes = {node};
    if (const auto* gpu = catalog_.find<Accelerator>(system.accelerator)) {
      if (gpu->scale_up && gpu->scale_up->bandwidth && system.scale_up_domain > 1)
        domain.gpu_bandwidth = *gpu->scale_up->bandwidth / 2.0;  // datasheets give both directions
    }
    cluster_.devices[node].domain = static_cast<int>(cluster_.domains.size());
    cluster_.domains.push_back(domain);
  }

  // Each rack-scale system: its compute trays (the nodes), NVLink switch trays and power shelves, one domain.
  void add_rack_systems(const RackSystem& rack, const System& tray, int racks) {
    for (int r = 0; r < racks; ++r) {
      const std::string prefix = numbered(rack.info.id, r + 1, racks);
      ScaleUpDomain domain;
      domain.gpus = tray.accelerators * rack.compute_trays;
      domain.gpu_bandwidth = rack.scale_up_bandwidth;
      domain.rack_system = rack.info.id;
      const int index = static_cast<int>(cluster_.domains.size());
      for (int t = 0; t < rack.compute_trays; ++t) {
        add_system_device(tray, DeviceKind::node, numbered(prefix + "-tray", t + 1, rack.compute_trays));
        cluster_.devices.back().domain = index;
        domain.nodes.push_back(static_cast<int>(cluster_.devices.size()) - 1);
      }
      for (int t = 0; t < rack.switch_trays.count; ++t) {
        Device device;
        device.name = numbered(prefix + "-nvswitch", t + 1, rack.switch_trays.count);
        device.kind = DeviceKind::scale_up_switch;
        device.part = rack.info.id;
        device.height = rack.switch_trays.rack_units;
        device.power_max = rack.switch_trays.power_max;
        device.power_typical = rack.switch_trays.power_max;
        device.domain = index;
        cluster_.devices.push_back(device);
        domain.switches.push_back(static_cast<int>(cluster_.devices.size()) - 1);
      }
      for (int s = 0; s < rack.power_shelves.count; ++s) {
        Device device;
        device.name = numbered(prefix + "-power-shelf", s + 1, rack.power_shelves.count);
        device.kind = DeviceKind::power_shelf;
        device.part = rack.info.id;
        device.height = rack.power_shelves.rack_units;
        cluster_.devices.push_back(device);
      }
      cluster_.domains.push_back(domain);
    }
  }

  void add_appliances(const FabricSpec& fabric) {
    for (const auto& request : fabric.appliances) {
      const Appliance& appliance = catalog_.get<Appliance>(request.appliance);
      for (int n = 0; n < request.count; ++n) {
        Device device;
        device.name =
            numbered(std::string(role_name(fabric.role)) + "-" + request.appliance, n + 1, request.count);
        device.kind = DeviceKind::appliance;
        device.part = appliance.info.id;
        device.height = appliance.rack_units;
        device.power_max = appliance.power_max;
        device.power_typical = appliance.power_max;
        cluster_.devices.push_back(device);
      }
    }
  }

  // Ports a device has on a fabric of `role`; switches and devices without a listed NIC have one management
  // port.
  int ports_on(const Device& device, NetworkRole role) const {
    const Nics* nics = nullptr;
    if (const auto* system = catalog_.find<System>(device.part)) nics = &system->nics;
    if (const auto* appliance = catalog_.find<Appliance>(device.part)) nics = &appliance->nics;
    if (nics != nullptr) {
      const auto found = nics->find(role);
      if (found != nics->end()) return found->second.ports;
    }
    return role == NetworkRole::oob ? 1 : 0;
  }

  // `node_system` non-empty: only the compute nodes of that system join (one group's compute fabric).
  Fabric build(const FabricSpec& fabric, const ClusterSpec& spec, const std::string& node_system = {}) {
    const std::size_t first_appliance = cluster_.devices.size();
    add_appliances(fabric);
    std::vector<FabricEndpoint> nodes;
    std::vector<FabricEndpoint> others;
    for (std::size_t d = 0; d < cluster_.devices.size(); ++d) {
      const Device& device = cluster_.devices[d];
      const int ports = ports_on(device, fabric.role);
      if (ports == 0) continue;
      const bool own_appliance = d >= first_appliance;
      const bool joins = device.kind == DeviceKind::node || own_appliance ||
                         fabric.role == NetworkRole::oob ||
                         (device.kind == DeviceKind::server && fabric.role == NetworkRole::inband);
      if (!joins) continue;
      if (!node_system.empty() && device.kind == DeviceKind::node &&
          cluster_.node_types[device.node_type].system != node_system)
        continue;
      const bool by_rack = fabric.role == NetworkRole::oob;  // one port per device, filled rack by rack
      (device.kind == DeviceKind::node && !by_rack ? nodes : others).push_back({static_cast<int>(d), ports});
    }
    if (fabric.role == NetworkRole::oob) {
      std::stable_sort(others.begin(), others.end(), [&](const FabricEndpoint& a, const FabricEndpoint& b) {
        const Device& x = cluster_.devices[a.device];
        const Device& y = cluster_.devices[b.device];
        return std::tie(x.rack, x.rack_unit) < std::tie(y.rack, y.rack_unit);
      });
    }
    return build_fabric(fabric, spec, catalog_.get<Switch>(fabric.switch_id), nodes, others,
                        cluster_.devices);
  }

  void warn_about_fabrics() {
    for (const auto& fabric : cluster_.fabrics) {
      const std::string name = fabric_name(cluster_, fabric);
      if (fabric.blocking_ratio() > 1.0 + 1e-9) {
        cluster_.warnings.push_back(
            {"blocking-fabric", "the " + name + " fabric's leaves have " +
                                    std::to_string(fabric.leaf_downlinks) + " downlinks for " +
                                    std::to_string(fabric.leaf_uplinks) + " uplinks (" +
                                    format_number(fabric.blocking_ratio(), 2) + ":1 blocking)"});
      }
      const int unused = fabric.ports_total - fabric.ports_used;
      if (unused > 0) {
        cluster_.warnings.push_back({"unused-ports", std::to_string(unused) + " of " +
                                                         std::to_string(fabric.ports_total) + " " + name +
                                                         " switch ports are unused"});
      }
    }
  }

  const ClusterSpec& spec_;
  const Catalog& catalog_;
  Cluster cluster_;
};

}  // namespace

Result<Cluster> design_cluster(const ClusterSpec& spec, const Catalog& catalog) {
  if (spec.node_count == 0 && spec.workload) {
    return InputError{spec.where("nodes.workload"), "nodes.workload",
                      "the node count is not sized for the workload yet (fit_workload does that)"};
  }
  if (spec.storage_system.present && spec.storage_system.checkpoint_from_workload &&
      !spec.storage_system.checkpoint_size) {
    return InputError{spec.where("storage.checkpoint.size"), "storage.checkpoint.size",
                      "the checkpoint is not sized for the workload yet (fit_workload does that)"};
  }
  try {
    // The storage appliances are sized first, then designed like any appliance on the storage fabric: placed
    // in racks, cabled to its leaves, powered and in the BOM.
    StorageSummary storage;
    ClusterSpec with_storage = spec;
    if (spec.storage_system.present) {
      storage = size_storage(spec.storage_system, catalog, spec.node_count);
      with_storage.storage.appliances.push_back({storage.appliance, storage.appliances});
    }
    Cluster cluster = Designer(with_storage, catalog).design();
    cluster.storage = std::move(storage);
    warn_about_storage(catalog, cluster);
    // Each compute fabric is stepped on its own (a packed group's nodes, or any group's appliances); the
    // trays of a rack-scale design are bought a rack at a time, so only its appliances are moved.
    warn_about_boundary_steps(with_storage, cluster,
                              [&](const ClusterSpec& variant) -> std::optional<Cluster> {
                                try {
                                  return Designer(variant, catalog).design();
                                } catch (const InputFailure&) {
                                  return std::nullopt;  // a variant that cannot be built is no alternative
                                }
                              });
    return cluster;
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

}  // namespace gputwin
