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
  if (!mig) return SimulatedCluster{whole_pool_of(0), std::nullopt, {}};
  if (mig->count > nodes) {
    throw std::invalid_argument(std::to_string(mig->count) + " MIG-mode nodes, but the cluster has " +
                                std::to_string(nodes));
  }
  return SimulatedCluster{
      whole_pool_of(mig->count), MigPool::on_nodes(mig->set, mig->count, gpus_per_node, mig->layout), {}};
}

std::string profile_set_id(const MigRequest& request, const Accelerator* cluster_gpu) {
  if (!request.profile_set.empty()) return request.profile_set;
  if (cluster_gpu == nullptr) {
    throw std::invalid_argument(
        "--mig-nodes: give the GPUs' MIG profiles with --mig-profile-set (one of data/catalog/mig.yaml's "
        "sets, "
        "e.g. a100-80gb)");
  }
  if (cluster_gpu->mig_profile_set.empty()) {
    throw std::invalid_argument("--mig-nodes: the cluster's GPU (" + cluster_gpu->info.id +
                                ") has no MIG profiles in the catalog; give --mig-profile-set");
  }
  return cluster_gpu->mig_profile_set;
}

// The pool's nodes are the cluster's node devices in order (sim/cluster_pool.cpp), the MIG-mode ones last:
// `all_nodes` is the pool of every node (whole-GPU and MIG-mode), whose placement groups are the leaves.
ReplayTopology topology_of(const Cluster& cluster, const GpuPool& all_nodes, int nodes, int per_node) {
  ReplayTopology topology;
  topology.gpus_per_node = per_node;
  for (std::size_t d = 0; d < cluster.devices.size(); ++d) {
    const Device& device = cluster.devices[d];
    if (device.kind != DeviceKind::node) continue;
    if (static_cast<int>(topology.host_names.size()) == nodes) break;
    const int node = static_cast<int>(topology.host_names.size());
    topology.host_names.push_back(device.name);
    topology.leaf_of_node.push_back(all_nodes.leaf_of(node));
    topology.domain_of_node.push_back(device.domain >= 0 ? device.domain : -1 - node);
  }
  return topology;
}

}  // namespace

std::optional<MigNodes> mig_nodes_of(const MigRequest& request, const Catalog& catalog,
                                     const Accelerator* cluster_gpu) {
  if (request.nodes == 0) {
    if (!request.profile_set.empty() || !request.layout.empty()) {
      throw std::invalid_argument(
          "--mig-profile-set and --mig-layout need --mig-nodes N (how many nodes run in MIG mode)");
    }
    return std::nullopt;
  }
  const std::string id = profile_set_id(request, cluster_gpu);
  const MigProfileSet* set = catalog.find<MigProfileSet>(id);
  if (set == nullptr) {
    std::string known;
    for (const auto& each : catalog.all<MigProfileSet>()) known += (known.empty() ? "" : ", ") + each.info.id;
    throw std::invalid_argument("--mig-profile-set: unknown MIG profile set '" + id + "'; known: " + known);
  }
  MigNodes setup{request.nodes, *set, std::nullopt};
  if (!request.layout.empty()) {
    try {
      setup.layout = parse_mig_layout(request.layout, setup.set);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(std::string("--mig-layout: ") + error.what());
    }
  }
  return setup;
}

int gpus_per_node(const Cluster& cluster, const Catalog& /*catalog*/) {
  const NodeType* type = cluster.sole_node_type();
  if (type == nullptr) {
    throw std::invalid_argument(cluster.nodes == 0
                                    ? "the cluster has no nodes; replay pools need them"
                                    : several_node_types_text(cluster) +
                                          "; replay pools take one (choose it with --node-type NAME)");
  }
  return type->gpus;
}

SimulatedCluster simulated_cluster(const Cluster& cluster, const Catalog& catalog,
                                   const std::optional<MigNodes>& mig) {
  const int per_node = gpus_per_node(cluster, catalog);
  const GpuPool all_nodes = pool_from_cluster(cluster, per_node);
  const int nodes = all_nodes.node_count();
  SimulatedCluster simulated = split_mig_nodes(
      nodes, per_node, mig, [&](int mig_nodes) { return pool_from_cluster(cluster, per_node, mig_nodes); });
  const int mig_nodes = simulated.mig ? simulated.mig->nodes() : 0;
  simulated.topology = topology_of(cluster, all_nodes, simulated.whole.node_count() + mig_nodes, per_node);
  return simulated;
}

SimulatedCluster uniform_simulated_cluster(int nodes, int gpus_per_node, const std::optional<MigNodes>& mig) {
  SimulatedCluster simulated = split_mig_nodes(nodes, gpus_per_node, mig, [&](int mig_nodes) {
    return GpuPool::uniform(nodes - mig_nodes, gpus_per_node);
  });
  const int all = simulated.whole.node_count() + (simulated.mig ? simulated.mig->nodes() : 0);
  simulated.topology.gpus_per_node = gpus_per_node;
  simulated.topology.leaf_of_node.assign(static_cast<std::size_t>(all), 0);
  for (int n = 0; n < all; ++n) simulated.topology.domain_of_node.push_back(n);  // a box is its own domain
  return simulated;
}

}  // namespace gputwin
