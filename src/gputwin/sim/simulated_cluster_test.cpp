#include "gputwin/sim/simulated_cluster.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::plan_file;

MigNodes a100_mig_nodes(int count) {
  return {count, bundled_catalog().get<MigProfileSet>("a100-80gb"), std::nullopt};
}

TEST(SimulatedCluster, OnePoolNodePerServerOfTheDesign) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const SimulatedCluster simulated = simulated_cluster(cluster, bundled_catalog());
  EXPECT_EQ(gpus_per_node(cluster, bundled_catalog()), 8);
  EXPECT_EQ(simulated.whole.node_count(), cluster.nodes);
  EXPECT_FALSE(simulated.mig.has_value());
}

TEST(SimulatedCluster, TheLastNodesRunInMigMode) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-1su.yaml");
  const SimulatedCluster simulated = simulated_cluster(cluster, bundled_catalog(), a100_mig_nodes(4));
  EXPECT_EQ(simulated.whole.node_count(), cluster.nodes - 4);
  ASSERT_TRUE(simulated.mig.has_value());
  EXPECT_EQ(simulated.mig->gpus(), 4 * 8);

  const SimulatedCluster uniform = uniform_simulated_cluster(10, 4, a100_mig_nodes(3));
  EXPECT_EQ(uniform.whole.node_count(), 7);
  EXPECT_EQ(uniform.mig->gpus(), 12);
}

TEST(SimulatedCluster, MoreMigNodesThanTheClusterHasIsRefused) {
  try {
    (void)uniform_simulated_cluster(2, 8, a100_mig_nodes(3));
    FAIL() << "3 MIG-mode nodes on a 2-node cluster were accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "3 MIG-mode nodes, but the cluster has 2");
  }
}

}  // namespace
}  // namespace gputwin
