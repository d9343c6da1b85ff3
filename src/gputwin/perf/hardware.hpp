// What the performance models need to know of a cluster: the accelerator, how GPUs are joined inside a node
// (scale-up: NVLink / NVSwitch or PCIe) and between nodes (NICs on the compute fabric, its tiers and
// blocking). A scale-up domain may span several nodes (GB200/GB300 NVL72: 18 trays of 4 GPUs in one 72-GPU
// NVLink domain); the collective and parallelism models then place groups by domain, not by node.
//
//   Result<PerfHardware> hw = perf_hardware(cluster, catalog);           // from a designed cluster
//   Result<PerfHardware> hw = perf_hardware_of_system(catalog, "dgx-h100", 32);  // a system and a node count
//   double peak = in_teraflops(*hw.value().accelerator.dense_compute.at("bf16"));
//
// Every figure comes from the catalog (datasheets) or the design; the performance models read only this.
#pragma once

#include <algorithm>
#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/design/cluster.hpp"

namespace gputwin {

struct PerfHardware {
  std::string system_id;    // the node's catalog id, e.g. "dgx-h100"
  Accelerator accelerator;  // the GPU's datasheet figures
  std::string
      architecture;  // "volta" | "ampere" | "hopper" | "blackwell" (selects NCCL tuning rows); "" unknown
  int nodes = 1;
  int gpus_per_node = 1;
  int scale_up_domain = 1;  // GPUs joined by the scale-up fabric (NVLink/NVSwitch); 1 = none (PCIe only);
                            // more than gpus_per_node (a whole multiple of it) when the domain spans nodes
  bool nvswitch = false;  // all GPUs of the domain reach each other at full bandwidth (and NVLS is possible)
  DataRate scale_up_bandwidth;   // per GPU, ONE direction (a datasheet's bidirectional figure / 2); 0 = none
  DataRate host_link_bandwidth;  // per GPU, one direction (PCIe)
  int nics_per_node = 0;         // compute-fabric NIC ports per node
  DataRate nic_speed;            // line rate of one compute NIC port, one direction
  int fabric_tiers = 0;          // switch tiers of the compute fabric (0 = single node, no fabric)
  double oversubscription = 1;   // leaf downlinks : uplinks of the compute fabric (1 = non-blocking)

  [[nodiscard]] int gpus() const { return nodes * gpus_per_node; }
  // The NVLink domain spans several nodes (multi-node NVLink, "MNNVL").
  [[nodiscard]] bool domain_spans_nodes() const { return scale_up_domain > gpus_per_node; }
  // The GPUs NCCL treats as one node: the scale-up domain when it spans nodes (NCCL fuses the topologies of
  // the ranks of one NVLink clique into one), else the node.
  [[nodiscard]] int gpus_per_domain() const { return domain_spans_nodes() ? scale_up_domain : gpus_per_node; }
  [[nodiscard]] int nodes_per_domain() const {
    return std::max(1, gpus_per_domain() / std::max(1, gpus_per_node));
  }
  // GPUs of each domain that a job's consecutive ranks fill (Slurm's block topology with --segment, in GPUs):
  // a setting, not a fact. 0 = the whole domain. Training places its groups in these segments.
  int domain_segment = 0;
  [[nodiscard]] int placement_domain() const {
    return domain_segment > 0 ? std::min(domain_segment, gpus_per_domain()) : gpus_per_domain();
  }
};

// A scale-up domain larger than a node must hold whole nodes: an error naming both figures otherwise.
[[nodiscard]] Result<PerfHardware> checked_domain(PerfHardware hardware);

// From a designed cluster (its node system and compute fabric).
[[nodiscard]] Result<PerfHardware> perf_hardware(const Cluster& cluster, const Catalog& catalog);
// From a catalog system and a node count, for sizing before a cluster is designed (a non-blocking fabric with
// as many tiers as a fat tree of the system's NIC speed needs is assumed and stated).
[[nodiscard]] Result<PerfHardware> perf_hardware_of_system(const Catalog& catalog,
                                                           const std::string& system_id, int nodes);
// One node of `gpus` catalog accelerators on their own scale-up fabric (an HGX baseboard for SXM parts, an
// NVLink-bridged pair for PCIe cards), no NICs: for single-node comparisons with systems the catalog lacks.
[[nodiscard]] Result<PerfHardware> perf_hardware_of_accelerator(const Catalog& catalog,
                                                                const std::string& accelerator_id, int gpus);

}  // namespace gputwin
