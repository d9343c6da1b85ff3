// Spec + catalog -> one immutable Cluster model: nodes, fabrics, racks, cables, power, BOM and costs.
//
//   Result<Cluster> cluster = design_cluster(spec, catalog);
//   if (!cluster.ok()) { std::cerr << cluster.error_text(); return 1; }
//
// A design the facility or the switches cannot hold (a node over the rack power limit, a fabric needing more
// tiers than allowed) is an error located at the spec field that forbids it.
#pragma once

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

[[nodiscard]] Result<Cluster> design_cluster(const ClusterSpec& spec, const Catalog& catalog);

}  // namespace gputwin
