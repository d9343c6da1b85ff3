#include "gputwin/export/slurm_config.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <sstream>

#include "gputwin/core/hostlist.hpp"
#include "gputwin/design/design_test_support.hpp"

namespace gputwin {
namespace {

using testing::bundled_catalog;
using testing::plan_file;

struct TopologySwitch {
  std::vector<std::string> nodes;
  std::vector<std::string> switches;
};

// topology.conf as Slurm reads it: SwitchName=X Nodes=hostlist | Switches=hostlist, '#' comments.
std::map<std::string, TopologySwitch> read_topology(const std::string& text) {
  std::map<std::string, TopologySwitch> switches;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name_word, children_word;
    words >> name_word >> children_word;
    EXPECT_EQ(name_word.rfind("SwitchName=", 0), 0u) << line;
    const std::string name = name_word.substr(name_word.find('=') + 1);
    EXPECT_FALSE(switches.contains(name)) << "switch written twice: " << name;
    const auto equals = children_word.find('=');
    const auto children = expand_hostlist(children_word.substr(equals + 1));
    EXPECT_TRUE(children.ok()) << children.error_text();
    if (!children.ok()) continue;
    (children_word.rfind("Nodes=", 0) == 0 ? switches[name].nodes : switches[name].switches) =
        children.value();
  }
  return switches;
}

// The tree Slurm needs: every node under exactly one switch, children defined, one root.
void expect_a_tree(const Cluster& cluster, const std::map<std::string, TopologySwitch>& tree,
                   int expected_roots = 1) {
  std::map<std::string, int> leaf_of_node;
  std::map<std::string, int> parents;
  for (const auto& [name, entry] : tree) {
    for (const auto& node : entry.nodes) ++leaf_of_node[node];
    for (const auto& child : entry.switches) {
      EXPECT_TRUE(tree.contains(child)) << name << " names an undefined switch " << child;
      ++parents[child];
    }
  }
  EXPECT_EQ(static_cast<int>(leaf_of_node.size()), cluster.nodes);
  for (const auto& [node, count] : leaf_of_node)
    EXPECT_EQ(count, 1) << node << " is under " << count << " leaves";
  int roots = 0;
  for (const auto& [name, entry] : tree) roots += parents.contains(name) ? 0 : 1;
  EXPECT_EQ(roots, expected_roots);
}

TEST(SlurmConfig, SuperPodNodesGpusAndScalableUnitsAsLeaves) {
  const Cluster cluster = plan_file("examples/dgx-h100-superpod-4su.yaml");
  const ExportFiles files = slurm_config(cluster, bundled_catalog());
  // DGX H100: 2 x 56 cores, 2 threads each, 2 TB (1,907,348 MiB), 8 H100.
  EXPECT_NE(files.text("slurm.conf")
                .find("NodeName=node-[001-127] CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 "
                      "ThreadsPerCore=2 RealMemory=1907348 Gres=gpu:h100-sxm:8 State=UNKNOWN\n"),
            std::string::npos)
      << files.text("slurm.conf");
  EXPECT_NE(files.text("slurm.conf").find("PartitionName=gpu Nodes=node-[001-127] Default=YES"),
            std::string::npos);
  EXPECT_NE(files.text("slurm.conf").find("TopologyPlugin=topology/tree\n"), std::string::npos);
  EXPECT_NE(
      files.text("gres.conf").find("NodeName=node-[001-127] Name=gpu Type=h100-sxm File=/dev/nvidia[0-7]\n"),
      std::string::npos)
      << files.text("gres.conf");
  const auto tree = read_topology(files.text("topology.conf"));
  expect_a_tree(cluster, tree);
  // Four SUs (the 8 rail leaves of each reach the same 32 nodes; the 4th has 31) under one spine group.
  ASSERT_EQ(tree.size(), 5u) << files.text("topology.conf");
  EXPECT_EQ(tree.at("compute-leaf-group-1").nodes.size(), 32u);
  EXPECT_EQ(tree.at("compute-leaf-group-4").nodes.size(), 31u);
  EXPECT_EQ(tree.at("compute-spine-group-1").switches.size(), 4u);
  EXPECT_NE(
      files.text("topology.conf").find("# compute-leaf-group-2 = compute-leaf-su2-rail[1-8] (8 switches)"),
      std::string::npos);
}

TEST(SlurmConfig, ThreeTierFabricIsStillOneTree) {
  const Cluster cluster = plan_file("examples/h100-100k-three-tier.yaml");
  const auto tree = read_topology(slurm_config(cluster, bundled_catalog()).text("topology.conf"));
  expect_a_tree(cluster, tree);
  int cores = 0;
  for (const auto& [name, entry] : tree) cores += name.find("-core") != std::string::npos ? 1 : 0;
  EXPECT_GE(cores, 1);
}

TEST(SlurmConfig, LeafSpineLeavesKeepTheirNamesAndSpinesBecomeOne) {
  // 16 DGX H100 x 8 ports on 64-port leaves at 1:1: 4 nodes per leaf, 4 leaves, every spine above all of
  // them.
  const Cluster cluster = testing::plan_text(R"(name: leaf-spine
nodes: {system: dgx-h100, count: 16}
fabrics:
  compute: {topology: leaf_spine, switch: qm9700, link_speed: 400 Gb/s}
facility: {rack_power_limit: 42 kW, pdu: px3-5878i2r, cooling: air-standard}
)");
  const auto tree = read_topology(slurm_config(cluster, bundled_catalog()).text("topology.conf"));
  expect_a_tree(cluster, tree);
  ASSERT_TRUE(tree.contains("compute-leaf-1"));
  EXPECT_EQ(tree.at("compute-leaf-1").nodes,
            (std::vector<std::string>{"node-01", "node-02", "node-03", "node-04"}));
  EXPECT_EQ(tree.at("compute-spine-group-1").switches.size(), 4u);
}

TEST(SlurmConfig, Nvl72RacksAreBlocksBesideTheTree) {
  const Cluster cluster = plan_file("examples/gb200-nvl72-superpod-1su.yaml");
  const ExportFiles files = slurm_config(cluster, bundled_catalog());
  expect_a_tree(cluster, read_topology(files.text("topology.conf")));
  // One block per NVL72 rack, each the 18 trays of one domain of the design, in the design's order.
  std::vector<std::vector<std::string>> blocks;
  std::istringstream lines(files.text("topology-block.conf"));
  std::string sizes;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("BlockName=", 0) == 0) {
      const auto nodes = expand_hostlist(line.substr(line.find("Nodes=") + 6));
      ASSERT_TRUE(nodes.ok()) << nodes.error_text();
      blocks.push_back(nodes.value());
    }
    if (line.rfind("BlockSizes=", 0) == 0) sizes = line.substr(11);
  }
  ASSERT_EQ(blocks.size(), cluster.domains.size());
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    ASSERT_EQ(blocks[k].size(), 18u);
    EXPECT_EQ(blocks[k].front(), cluster.devices[cluster.domains[k].nodes.front()].name);
  }
  EXPECT_EQ(sizes, "18,36,72,144") << "eight racks: base 18 trays, doubled while the blocks exist";
  EXPECT_NE(files.text("topology.yaml").find("topology: nvlink"), std::string::npos);
}

TEST(SlurmConfig, EightGpuBoxesGetNoBlockTopology) {
  const ExportFiles files = slurm_config(plan_file("examples/dgx-h100-superpod-1su.yaml"), bundled_catalog());
  for (const ExportFile& file : files.files) EXPECT_NE(file.name, "topology-block.conf");
  EXPECT_EQ(files.files.size(), 3u);
}

// Two node groups (16 DGX H100 + 2 GB200 NVL72): a NodeName and gres line per type, and each group's compute
// fabric a tree of its own (no job spans GPU types), every node under one leaf.
TEST(SlurmConfig, NodeGroupsGetALinePerTypeAndATreeEach) {
  const Cluster cluster = plan_file("examples/mixed-h100-gb200.yaml");
  const ExportFiles files = slurm_config(cluster, bundled_catalog());
  const std::string conf = files.text("slurm.conf");
  EXPECT_NE(conf.find("NodeName=dgx-h100-[01-16] "), std::string::npos) << conf;
  EXPECT_NE(conf.find("Gres=gpu:h100-sxm:8 "), std::string::npos) << conf;
  EXPECT_NE(conf.find("NodeName=gb200-nvl72-1-tray-[01-18],gb200-nvl72-2-tray-[01-18] "), std::string::npos)
      << conf;
  const std::string gres = files.text("gres.conf");
  EXPECT_NE(gres.find("NodeName=dgx-h100-[01-16] Name=gpu Type=h100-sxm File=/dev/nvidia[0-7]\n"),
            std::string::npos)
      << gres;
  const auto tree = read_topology(files.text("topology.conf"));
  expect_a_tree(cluster, tree, 2);
  for (const auto& [name, entry] : tree) {
    std::set<std::string> prefixes;
    for (const auto& node : entry.nodes) prefixes.insert(node.substr(0, node.find('-', 5)));
    EXPECT_LE(prefixes.size(), 1u) << name << " mixes node groups";
    EXPECT_TRUE(name.rfind("compute-dgx-h100-", 0) == 0 || name.rfind("compute-gb200-nvl72-", 0) == 0)
        << name;
  }
  // topology.conf's block form has one BlockSizes for every block: not written for boxes beside NVL72 racks.
  for (const ExportFile& file : files.files) EXPECT_NE(file.name, "topology-block.conf");
  // topology.yaml: the tree as the default, and the NVL72 group's blocks at its own base size (18 trays).
  const YAML::Node doc = YAML::Load(files.text("topology.yaml"));
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[0]["topology"].as<std::string>(), "fabric");
  EXPECT_TRUE(doc[0]["cluster_default"].as<bool>());
  EXPECT_EQ(doc[1]["topology"].as<std::string>(), "nvlink-gb200-nvl72");
  const int trays = bundled_catalog().get<RackSystem>("gb200-nvl72").compute_trays;
  EXPECT_EQ(doc[1]["block"]["block_sizes"].as<std::vector<int>>(), (std::vector<int>{trays, 2 * trays}));
  EXPECT_EQ(doc[1]["block"]["blocks"].size(), 2u);
}

}  // namespace
}  // namespace gputwin
