// Designs of several node groups (a spec whose `nodes:` lists groups of different systems): each group has
// its own compute fabric, named after the group in every report.
//
//   for (const Fabric& fabric : cluster.fabrics) row(fabric_name(cluster, fabric));  // "compute:gb200-nvl72"
//   if (fabric_node_system(cluster, fabric) == "dgx-h100") ...   // the fabric of the DGX H100 group
//
// The group a compute fabric serves is read from the nodes it reaches, so the Cluster model needs no field
// for it: a design of one group (or whose only compute fabric reaches every node) names its fabrics by role
// alone.
#pragma once

#include <string>
#include <vector>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

// The catalog system of the compute nodes a fabric's node links reach, when they are all of one type; empty
// when it reaches none or several types.
[[nodiscard]] std::string fabric_node_system(const Cluster& cluster, const Fabric& fabric);

// The compute fabrics of the design (one per node group; one for a design of one group).
[[nodiscard]] int compute_fabric_count(const Cluster& cluster);

// The node group a compute fabric serves alone when the design has several: its nodes' rack-scale system
// ("gb200-nvl72") when their domain is a purchased rack, else their system ("dgx-h100"). Empty for a fabric
// every node reaches and for a design with one compute fabric.
[[nodiscard]] std::string fabric_node_group(const Cluster& cluster, const Fabric& fabric);

// A fabric's name in reports: its role ("compute"), and for one group's compute fabric "compute:<group>".
[[nodiscard]] std::string fabric_name(const Cluster& cluster, const Fabric& fabric);

// The typical power of each compute node type as its devices carry it (the catalog's typical figure, or its
// maximum where there is none), in the order the types were placed.
struct NodeTypeTypicalPower {
  std::string system;
  Power typical;
};
[[nodiscard]] std::vector<NodeTypeTypicalPower> typical_power_by_node_type(const Cluster& cluster);

}  // namespace gputwin
