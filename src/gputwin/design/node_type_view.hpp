// The cluster as an analysis of one node type sees it, for designs whose compute nodes are of several types
// (the `--node-type NAME` option of perf, simulate and goodput commands).
//
//   std::optional<Cluster> trays = cluster_of_node_type(cluster, "gb200-nvl72-tray");
//   if (!trays) ... "no compute nodes of that type": print node_counts_text(cluster, DeviceKind::node)
//   perf_hardware(*trays, catalog)   // the trays' GPUs, NICs and NVLink domain; the compute fabric as
//   designed
#pragma once

#include <optional>
#include <string>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

// The compute nodes of catalog system `system`, their scale-up domains and switch trays, and every device
// that is not a compute node (switches, servers, storage, PDUs) as designed; compute nodes of other types and
// their domains are left out, and links to them dropped. The fabrics keep their designed switches, tiers and
// oversubscription: the chosen nodes share them with the rest. Racks keep their place, power and cost
// (a view for the models of one node type, not a smaller design). Empty when no compute node is of `system`.
[[nodiscard]] std::optional<Cluster> cluster_of_node_type(const Cluster& cluster, const std::string& system);

}  // namespace gputwin
