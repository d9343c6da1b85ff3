#include "gputwin/export/slurm_block_topology.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <set>
#include <sstream>

#include "gputwin/core/hostlist.hpp"

namespace gputwin {
namespace {

std::vector<std::vector<std::string>> racks_of_trays(int racks, int trays) {
  std::vector<std::vector<std::string>> domains(racks);
  for (int r = 0; r < racks; ++r)
    for (int t = 0; t < trays; ++t) domains[r].push_back(fmt::format("gb-{:04}", r * trays + t + 1));
  return domains;
}

// The rules topology.conf(5) and topology.yaml(5) state for topology/block: unique block names, every node in
// one block, each block at least the planning base size, successive BlockSizes a power-of-two multiple of the
// previous.
void expect_valid_blocks(const std::map<std::string, std::vector<std::string>>& blocks,
                         const std::vector<int>& sizes, int nodes) {
  ASSERT_FALSE(sizes.empty());
  std::set<std::string> seen;
  for (const auto& [name, members] : blocks) {
    EXPECT_LE(name.size(), 64u);
    EXPECT_GE(static_cast<int>(members.size()), sizes.front())
        << name << " is smaller than the base block size";
    for (const auto& node : members) EXPECT_TRUE(seen.insert(node).second) << node << " is in two blocks";
  }
  EXPECT_EQ(static_cast<int>(seen.size()), nodes);
  for (std::size_t k = 1; k < sizes.size(); ++k) {
    ASSERT_EQ(sizes[k] % sizes[k - 1], 0) << "BlockSizes " << sizes[k] << " after " << sizes[k - 1];
    const int ratio = sizes[k] / sizes[k - 1];
    EXPECT_TRUE(ratio > 1 && (ratio & (ratio - 1)) == 0) << "ratio " << ratio << " is not a power of two";
  }
  EXPECT_LE(sizes.back(), nodes) << "a block size larger than the cluster can never be allocated";
}

TEST(SlurmBlockTopology, BlockSizesDoubleFromOneDomainWhileTheyFit) {
  EXPECT_EQ(slurm_block_sizes(18, 1), (std::vector<int>{18}));
  EXPECT_EQ(slurm_block_sizes(18, 8), (std::vector<int>{18, 36, 72, 144}));
  EXPECT_EQ(slurm_block_sizes(18, 7), (std::vector<int>{18, 36, 72}));
  EXPECT_TRUE(slurm_block_sizes(0, 4).empty());
}

TEST(SlurmBlockTopology, ConfHasOneBlockPerDomainByTheManualsRules) {
  const auto domains = racks_of_trays(8, 18);
  const std::string text = slurm_block_topology_conf("# header\n", domains);
  std::map<std::string, std::vector<std::string>> blocks;
  std::vector<int> sizes;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("BlockSizes=", 0) == 0) {
      std::istringstream values(line.substr(11));
      for (std::string value; std::getline(values, value, ',');) sizes.push_back(std::stoi(value));
      continue;
    }
    std::istringstream words(line);
    std::string name_word, nodes_word;
    words >> name_word >> nodes_word;
    ASSERT_EQ(name_word.rfind("BlockName=", 0), 0u) << line;
    ASSERT_EQ(nodes_word.rfind("Nodes=", 0), 0u) << line;
    const auto nodes = expand_hostlist(nodes_word.substr(6));
    ASSERT_TRUE(nodes.ok()) << nodes.error_text();
    EXPECT_TRUE(blocks.emplace(name_word.substr(10), nodes.value()).second) << "block named twice: " << line;
  }
  EXPECT_EQ(blocks.size(), 8u);
  EXPECT_EQ(blocks.at("nvl-001"), domains[0]);
  EXPECT_EQ(blocks.at("nvl-008"), domains[7]);
  expect_valid_blocks(blocks, sizes, 8 * 18);
  EXPECT_NE(text.find("Slurm 23.11"), std::string::npos) << "the file must say which Slurm reads it";
}

TEST(SlurmBlockTopology, YamlHoldsTheBlocksAsDefaultAndTheTree) {
  const auto domains = racks_of_trays(2, 18);
  const std::vector<TreeSwitch> tree = {{"leaf-1", "gb-[0001-0018]", true, "", 1},
                                        {"leaf-2", "gb-[0019-0036]", true, "", 1},
                                        {"spine", "leaf-[1-2]", false, "", 1}};
  const YAML::Node doc = YAML::Load(slurm_topology_yaml("# header\n", domains, tree));
  ASSERT_TRUE(doc.IsSequence());
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[0]["topology"].as<std::string>(), "nvlink");
  EXPECT_TRUE(doc[0]["cluster_default"].as<bool>());
  std::map<std::string, std::vector<std::string>> blocks;
  for (const auto& block : doc[0]["block"]["blocks"]) {
    const auto nodes = expand_hostlist(block["nodes"].as<std::string>());
    ASSERT_TRUE(nodes.ok()) << nodes.error_text();
    blocks[block["block"].as<std::string>()] = nodes.value();
  }
  expect_valid_blocks(blocks, doc[0]["block"]["block_sizes"].as<std::vector<int>>(), 36);
  EXPECT_EQ(doc[1]["topology"].as<std::string>(), "fabric");
  EXPECT_FALSE(doc[1]["cluster_default"].as<bool>());
  const auto switches = doc[1]["tree"]["switches"];
  ASSERT_EQ(switches.size(), 3u);
  EXPECT_EQ(switches[0]["nodes"].as<std::string>(), "gb-[0001-0018]");
  EXPECT_EQ(switches[2]["children"].as<std::string>(), "leaf-[1-2]");
  EXPECT_FALSE(switches[2]["nodes"]) << "a switch above the leaves names switches, not nodes";
}

TEST(SlurmBlockTopology, YamlWithoutAFabricHasOnlyTheBlocks) {
  const YAML::Node doc = YAML::Load(slurm_topology_yaml("", racks_of_trays(1, 18), {}));
  ASSERT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["block"]["block_sizes"].as<std::vector<int>>(), std::vector<int>{18});
}

// Two groups of different domains: 4 one-node boxes and 2 racks of 18 trays. Each rack-scale group gets a
// block topology whose base block is its own domain; the boxes get none (the tree covers them); the tree is
// the cluster default.
TEST(SlurmBlockTopology, YamlByGroupGivesEachRackScaleGroupItsOwnBlockSizes) {
  std::vector<std::vector<std::string>> boxes;
  for (int n = 1; n <= 4; ++n) boxes.push_back({fmt::format("box-{}", n)});
  const std::vector<BlockGroup> groups = {{"box", boxes}, {"nvl72", racks_of_trays(2, 18)}};
  const std::vector<TreeSwitch> tree = {{"box-leaf", "box-[1-4]", true, "", 1},
                                        {"gb-leaf", "gb-[0001-0036]", true, "", 1}};
  const YAML::Node doc = YAML::Load(slurm_topology_yaml_by_group("# header\n", groups, tree));
  ASSERT_TRUE(doc.IsSequence());
  ASSERT_EQ(doc.size(), 2u);
  EXPECT_EQ(doc[0]["topology"].as<std::string>(), "fabric");
  EXPECT_TRUE(doc[0]["cluster_default"].as<bool>());
  EXPECT_EQ(doc[0]["tree"]["switches"].size(), 2u);
  EXPECT_EQ(doc[1]["topology"].as<std::string>(), "nvlink-nvl72");
  EXPECT_FALSE(doc[1]["cluster_default"].as<bool>());
  const auto sizes = doc[1]["block"]["block_sizes"].as<std::vector<int>>();
  EXPECT_EQ(sizes, (std::vector<int>{18, 36}));
  std::map<std::string, std::vector<std::string>> blocks;
  for (const auto& block : doc[1]["block"]["blocks"]) {
    const auto nodes = expand_hostlist(block["nodes"].as<std::string>());
    ASSERT_TRUE(nodes.ok()) << nodes.error_text();
    blocks[block["block"].as<std::string>()] = nodes.value();
  }
  expect_valid_blocks(blocks, sizes, 36);
  // Without a fabric the first block topology is the default.
  const YAML::Node bare = YAML::Load(slurm_topology_yaml_by_group("", groups, {}));
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_TRUE(bare[0]["cluster_default"].as<bool>());
}

}  // namespace
}  // namespace gputwin
