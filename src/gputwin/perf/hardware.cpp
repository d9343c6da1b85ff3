#include "gputwin/perf/hardware.hpp"

#include <cmath>

namespace gputwin {
namespace {

InputError hardware_error(const std::string& message) {
  InputError error;
  error.message = message;
  return error;
}

// A scale-up domain of more than two SXM/superchip GPUs on NVLink is joined by NVSwitch (HGX/DGX baseboards);
// PCIe cards reach each other only in NVLink-bridged pairs.
bool joined_by_nvswitch(const Accelerator& gpu, int scale_up_domain) {
  if (!gpu.scale_up || scale_up_domain <= 2) return false;
  const bool nvlink = gpu.scale_up->type.find("NVLink") != std::string::npos;
  return nvlink && (gpu.form_factor == "sxm" || gpu.form_factor == "superchip");
}

Result<PerfHardware> hardware_of(const Catalog& catalog, const std::string& system_id, int nodes) {
  const auto* system = catalog.find<System>(system_id);
  if (system == nullptr) return hardware_error("perf: no system '" + system_id + "' in the catalog");
  if (system->accelerator.empty())
    return hardware_error("perf: system '" + system_id + "' has no accelerators");
  PerfHardware hw;
  hw.system_id = system_id;
  hw.accelerator = catalog.get<Accelerator>(system->accelerator);
  hw.architecture = hw.accelerator.architecture;
  hw.nodes = nodes;
  hw.gpus_per_node = system->accelerators;
  hw.scale_up_domain = std::max(1, system->scale_up_domain);
  hw.nvswitch = joined_by_nvswitch(hw.accelerator, hw.scale_up_domain);
  if (hw.accelerator.scale_up && hw.accelerator.scale_up->bandwidth && hw.scale_up_domain > 1) {
    hw.scale_up_bandwidth = *hw.accelerator.scale_up->bandwidth / 2.0;  // datasheets give both directions
  }
  if (hw.accelerator.host_link && hw.accelerator.host_link->bandwidth) {
    hw.host_link_bandwidth = *hw.accelerator.host_link->bandwidth / 2.0;
  }
  const auto compute = system->nics.find(NetworkRole::compute);
  if (compute != system->nics.end()) {
    hw.nics_per_node = compute->second.ports;
    hw.nic_speed = compute->second.speed;
  }
  return checked_domain(std::move(hw));
}

}  // namespace

Result<PerfHardware> checked_domain(PerfHardware hardware) {
  if (hardware.domain_spans_nodes() && hardware.scale_up_domain % std::max(1, hardware.gpus_per_node) != 0) {
    return hardware_error("perf: system '" + hardware.system_id + "': a scale-up domain of " +
                          std::to_string(hardware.scale_up_domain) + " GPUs does not hold whole nodes of " +
                          std::to_string(hardware.gpus_per_node) + " GPUs");
  }
  if (hardware.domain_segment > 0 && (hardware.domain_segment > hardware.gpus_per_domain() ||
                                      hardware.domain_segment % std::max(1, hardware.gpus_per_node) != 0)) {
    return hardware_error("perf: a domain segment of " + std::to_string(hardware.domain_segment) +
                          " GPUs is not whole nodes of " + std::to_string(hardware.gpus_per_node) +
                          " GPUs within the domain of " + std::to_string(hardware.gpus_per_domain()));
  }
  return hardware;
}

namespace {

// The cluster's node type and the scale-up domain its nodes sit in, as the design holds them: a domain that
// spans nodes (an NVL72 rack) gives its GPUs and per-GPU bandwidth; a box's own GPUs are joined as the
// catalog's node type says.
Result<PerfHardware> hardware_of_cluster_nodes(const Cluster& cluster, const Catalog& catalog) {
  const NodeType* type = cluster.sole_node_type();
  if (type == nullptr) {
    return hardware_error(cluster.nodes == 0
                              ? "perf: the cluster has no nodes"
                              : "perf: " + several_node_types_text(cluster) +
                                    "; the performance models take one (choose it with --node-type NAME)");
  }
  auto hw = hardware_of(catalog, type->system, cluster.nodes);
  if (!hw.ok()) return hw;
  PerfHardware value = std::move(hw).value();
  value.gpus_per_node = type->gpus;
  value.nics_per_node = 0;
  value.nic_speed = DataRate{};
  if (const auto compute = type->nics.find(NetworkRole::compute); compute != type->nics.end()) {
    value.nics_per_node = compute->second.ports;
    value.nic_speed = compute->second.speed;
  }
  const ScaleUpDomain* domain = cluster.first_node_domain();
  if (domain != nullptr && domain->nodes.size() > 1) {
    value.scale_up_domain = domain->gpus;
    value.scale_up_bandwidth = domain->gpu_bandwidth;
    value.nvswitch = joined_by_nvswitch(value.accelerator, value.scale_up_domain);
  }
  return checked_domain(std::move(value));
}

}  // namespace

Result<PerfHardware> perf_hardware(const Cluster& cluster, const Catalog& catalog) {
  auto hw = hardware_of_cluster_nodes(cluster, catalog);
  if (!hw.ok()) return hw;
  PerfHardware value = std::move(hw).value();
  if (const Fabric* fabric = cluster.fabric(NetworkRole::compute)) {
    value.fabric_tiers = fabric->tiers;
    value.oversubscription = fabric->blocking_ratio();
  }
  return value;
}

Result<PerfHardware> perf_hardware_of_system(const Catalog& catalog, const std::string& system_id,
                                             int nodes) {
  auto hw = hardware_of(catalog, system_id, nodes);
  if (!hw.ok()) return hw;
  PerfHardware value = std::move(hw).value();
  // Assumed fabric: a non-blocking rail-optimized fat tree of 64-port switches, whose leaves give 32 ports
  // down, so each further tier multiplies the reach by 32 (32 nodes on one tier, 1,024 on two, 32,768 on
  // three).
  constexpr double kNodesPerTierStep = 32;
  value.fabric_tiers =
      nodes <= 1 ? 0
                 : std::max(1, static_cast<int>(std::ceil(std::log(nodes) / std::log(kNodesPerTierStep))));
  value.oversubscription = 1;
  return value;
}

Result<PerfHardware> perf_hardware_of_accelerator(const Catalog& catalog, const std::string& accelerator_id,
                                                  int gpus) {
  const auto* gpu = catalog.find<Accelerator>(accelerator_id);
  if (gpu == nullptr) return hardware_error("perf: no accelerator '" + accelerator_id + "' in the catalog");
  if (gpus < 1) return hardware_error("perf: a node needs at least one GPU");
  PerfHardware hw;
  hw.system_id = accelerator_id + " x" + std::to_string(gpus);
  hw.accelerator = *gpu;
  hw.architecture = gpu->architecture;
  hw.gpus_per_node = gpus;
  // NVLink bridges join PCIe cards in pairs; SXM parts share the baseboard's NVSwitches.
  const bool bridged = gpu->form_factor == "pcie";
  hw.scale_up_domain = gpu->scale_up && (!bridged || gpus <= 2) ? gpus : 1;
  hw.nvswitch = joined_by_nvswitch(*gpu, hw.scale_up_domain);
  if (gpu->scale_up && gpu->scale_up->bandwidth && hw.scale_up_domain > 1) {
    hw.scale_up_bandwidth = *gpu->scale_up->bandwidth / 2.0;  // datasheets give both directions
  }
  if (gpu->host_link && gpu->host_link->bandwidth) hw.host_link_bandwidth = *gpu->host_link->bandwidth / 2.0;
  return hw;
}

}  // namespace gputwin
