// Slurm configuration for a designed cluster: what `gputwin export slurm` writes.
//
//   ExportFiles files = slurm_config(cluster, catalog);
//   files.text("slurm.conf")     // GresTypes, TopologyPlugin, NodeName and PartitionName lines (merge into
//   slurm.conf) files.text("gres.conf")      // each node's GPUs as device files files.text("topology.conf")
//   // the compute fabric's switch tree (topology/tree)
//
// Nodes carry the catalog system's sockets, cores, threads and memory (RealMemory in MiB) and
// Gres=gpu:<accelerator id>:<GPUs>. topology/tree can only describe a tree, and the fabric is not one: a node
// of a rail-optimized fabric reaches one leaf per rail, and every spine reaches every leaf below it. So
// switches of a tier that reach exactly the same nodes (a scalable unit's rail leaves, a pod's spines) are
// written as one logical switch, named "<fabric>-<tier>-group-<k>", with a comment listing the switches it
// stands for; a switch alone in its group keeps its own name. Appliances are not Slurm nodes and are left
// out.
#pragma once

#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/export/export_files.hpp"

namespace gputwin {

// slurm.conf, gres.conf and topology.conf, in that order; when a scale-up domain spans several nodes (an
// NVL72 rack of 18 trays), also topology-block.conf (topology/block, Slurm 23.11+) and topology.yaml
// (Slurm 25.05+), see slurm_block_topology.hpp.
[[nodiscard]] ExportFiles slurm_config(const Cluster& cluster, const Catalog& catalog);

}  // namespace gputwin
