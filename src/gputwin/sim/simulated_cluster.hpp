// The cluster a replay runs on, assembled in one place from a designed cluster (or from a plain node count):
// the whole-GPU nodes as a GpuPool and, when some nodes run in MIG mode, their GPUs as a MigPool. `simulate
// replay` and `sweep` both build their clusters here, so failures and power caps have one place to attach.
//
//   SimulatedCluster cluster = simulated_cluster(designed, catalog, MigNodes{4, set, layout});
//   replay(jobs, std::move(cluster.whole), std::move(cluster.mig), policy, options);
//   SimulatedCluster plain = uniform_simulated_cluster(/*nodes=*/16, /*gpus_per_node=*/8);
#pragma once

#include <optional>
#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/catalog/mig_rules.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/sim/gpu_pool.hpp"
#include "gputwin/sim/mig_pool.hpp"
#include "gputwin/sim/replay_models.hpp"

namespace gputwin {

// The last `count` nodes run in MIG mode, their GPUs split by `set`'s rules.
struct MigNodes {
  int count = 0;
  MigProfileSet set;
  std::optional<MigLayout> layout;  // empty: instances are created on demand
};

// What the MIG options ask for: `nodes` MIG-mode nodes, their GPUs' profile set (empty: the cluster GPU's)
// and a fixed layout (empty: instances created on demand).
struct MigRequest {
  int nodes = 0;
  std::string profile_set;
  std::string layout;
};

// The MIG-mode nodes a request describes; empty when it asks for none. `cluster_gpu` is the designed
// cluster's accelerator (its profile set is the default), nullptr for a plain node count. Throws
// std::invalid_argument naming the option that is wrong (--mig-profile-set, --mig-layout, ...).
[[nodiscard]] std::optional<MigNodes> mig_nodes_of(const MigRequest& request, const Catalog& catalog,
                                                   const Accelerator* cluster_gpu);

struct SimulatedCluster {
  GpuPool whole;               // nodes in whole-GPU mode
  std::optional<MigPool> mig;  // GPUs of the MIG-mode nodes
  // Every node's leaf, scale-up domain and host name: the whole-GPU nodes, then the MIG-mode ones (the
  // numbering ReplayEngine's node events use).
  ReplayTopology topology;
};

// GPUs per node of a designed cluster: its one node type's GPUs (std::invalid_argument when it holds
// several).
[[nodiscard]] int gpus_per_node(const Cluster& cluster, const Catalog& catalog);

// One pool node per server, grouped by the compute-fabric switch that joins them (sim/cluster_pool.hpp).
// Throws std::invalid_argument when `mig` asks for more MIG-mode nodes than the cluster has.
[[nodiscard]] SimulatedCluster simulated_cluster(const Cluster& cluster, const Catalog& catalog,
                                                 const std::optional<MigNodes>& mig = std::nullopt);
[[nodiscard]] SimulatedCluster uniform_simulated_cluster(int nodes, int gpus_per_node,
                                                         const std::optional<MigNodes>& mig = std::nullopt);

}  // namespace gputwin
