#include "gputwin/sim/simulated_cluster.hpp"

#include <stdexcept>
#include <string>

#include "gputwin/sim/cluster_pool.hpp"

namespace gputwin {
namespace {

// Splits the last mig->count nodes off `whole_pool_of(nodes left in whole-GPU mode)` into a MIG pool.
template <class WholePool>
SimulatedCluster split_mig_nodes(int nodes, int gpus_per_node, const std::optional<MigNodes>& mig,
                                 WholePool whole_pool_of) {
  if (!mig) return SimulatedCluster{whole_pool_of(0), std::nullopt};
  if (mig->count > nodes) {
    throw std::invalid_argument(std::to_string(mig->count) + " MIG-mode nodes, but the cluster has " +
                                std::to_string(nodes));
  }
  const int mig_gpus = mig->count * gpus_per_node;
  MigPool mig_pool = mig->layout ? MigPool(mig->set, mig_gpus, *mig->layout) : MigPool(mig->set, mig_gpus);
  return SimulatedCluster{whole_pool_of(mig->count), std::move(mig_pool)};
}

}  // namespace

int gpus_per_node(const Cluster& cluster, const Catalog& catalog) {
  return catalog.get<System>(cluster.node_system).accelerators;
}

SimulatedCluster simulated_cluster(const Cluster& cluster, const Catalog& catalog,
                                   const std::optional<MigNodes>& mig) {
  const int per_node = gpus_per_node(cluster, catalog);
  const int nodes = pool_from_cluster(cluster, per_node).node_count();
  return split_mig_nodes(nodes, per_node, mig,
                         [&](int mig_nodes) { return pool_from_cluster(cluster, per_node, mig_nodes); });
}

SimulatedCluster uniform_simulated_cluster(int nodes, int gpus_per_node, const std::optional<MigNodes>& mig) {
  return split_mig_nodes(nodes, gpus_per_node, mig,
                         [&](int mig_nodes) { return GpuPool::uniform(nodes - mig_nodes, gpus_per_node); });
}

}  // namespace gputwin
