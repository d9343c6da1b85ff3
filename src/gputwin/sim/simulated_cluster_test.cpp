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

std::string mig_error(const MigRequest& request, const Accelerator* gpu) {
  try {
    (void)mig_nodes_of(request, bundled_catalog(), gpu);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "accepted";
}

TEST(MigRequest, TheClustersGpuGivesTheDefaultProfilesAndALayoutIsChecked) {
  const Catalog& catalog = bundled_catalog();
  const Accelerator& a100 = catalog.get<Accelerator>("a100-80gb-sxm");
  EXPECT_FALSE(mig_nodes_of({}, catalog, &a100).has_value());
  const auto nodes = mig_nodes_of({3, "", "3g.40gb+2g.20gb+1g.10gb+1g.10gb"}, catalog, &a100);
  ASSERT_TRUE(nodes.has_value());
  EXPECT_EQ(nodes->count, 3);
  EXPECT_EQ(nodes->set.info.id, a100.mig_profile_set);
  ASSERT_TRUE(nodes->layout.has_value());
  EXPECT_EQ(nodes->layout->instances.size(), 4u);
}

TEST(MigRequest, WhatIsWrongIsNamedByItsOption) {
  const Catalog& catalog = bundled_catalog();
  EXPECT_EQ(mig_error({0, "a100-80gb", ""}, nullptr),
            "--mig-profile-set and --mig-layout need --mig-nodes N (how many nodes run in MIG mode)");
  EXPECT_NE(mig_error({2, "", ""}, nullptr).find("give the GPUs' MIG profiles with --mig-profile-set"),
            std::string::npos);
  EXPECT_EQ(
      mig_error({2, "", ""}, &catalog.get<Accelerator>("l40s")),
      "--mig-nodes: the cluster's GPU (l40s) has no MIG profiles in the catalog; give --mig-profile-set");
  EXPECT_EQ(mig_error({2, "h900", ""}, nullptr)
                .rfind("--mig-profile-set: unknown MIG profile set 'h900'; known: ", 0),
            0u);
  EXPECT_EQ(mig_error({2, "a100-80gb", "7g.80gb+1g.10gb"}, nullptr).rfind("--mig-layout: ", 0), 0u);
}

}  // namespace
}  // namespace gputwin
