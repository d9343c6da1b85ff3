// The GPUs of a designed cluster as a replay pool: one pool node per server, grouped by the compute-fabric
// switch that joins them in one hop (a scalable unit's leaves for rail-optimized fabrics, the top-of-rack leaf
// otherwise), so gang placement keeps jobs topologically close.
//
//   GpuPool pool = pool_from_cluster(cluster, 8);
//   GpuPool whole = pool_from_cluster(cluster, 8, 4);   // the last 4 nodes left out (e.g. run in MIG mode)
#pragma once

#include "gputwin/design/cluster.hpp"
#include "gputwin/sim/gpu_pool.hpp"

namespace gputwin {

[[nodiscard]] GpuPool pool_from_cluster(const Cluster& cluster, int gpus_per_node, int last_nodes_left_out = 0);

}  // namespace gputwin
