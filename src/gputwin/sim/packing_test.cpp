// Tests of the FGD packing experiment: each placement policy's score on tiny hand-built clusters (expected nodes
// worked out by hand from docs/research/fgd-semantics.md §5), the fit rules, typical pods and node
// fragmentation, run_packing's invariants and determinism, the openb reader's bad input, and the validation
// against the paper's published results on the real trace (skipped when ../shared is absent).
#include "gputwin/sim/packing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "gputwin/report/packing_report.hpp"
#include "gputwin/sim/fragmentation.hpp"
#include "gputwin/sim/placement_policy.hpp"
#include "gputwin/sim/share_cluster.hpp"
#include "gputwin/trace/openb.hpp"

namespace gputwin {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// Helpers.

constexpr std::int64_t kLargeMemory = 786432;

NodeSpec node(const std::string& name, std::int64_t cpu_milli, int gpus, const std::string& model,
              std::int64_t memory_mib = kLargeMemory) {
  return NodeSpec{name, cpu_milli, memory_mib, gpus, model};
}

PodSpec pod(std::int64_t cpu_milli, int num_gpu, int gpu_milli, std::vector<std::string> models = {},
            std::int64_t memory_mib = 0, const std::string& name = "pod") {
  PodSpec spec;
  spec.name = name;
  spec.cpu_milli = cpu_milli;
  spec.memory_mib = memory_mib;
  spec.num_gpu = num_gpu;
  spec.gpu_milli = num_gpu == 0 ? 0 : gpu_milli;
  spec.gpu_models = std::move(models);
  return spec;
}

PodSpec cpu_only(std::int64_t cpu_milli) { return pod(cpu_milli, 0, 0); }

const PackingParameters& reference_parameters() {
  static const PackingParameters parameters = [] {
    const auto loaded = load_packing_parameters(std::string(GPUTWIN_SOURCE_DIR) + "/data/reference/fgd-simulator.yaml");
    if (!loaded.ok()) throw std::runtime_error("fgd-simulator.yaml: " + loaded.error_text());
    return loaded.value();
  }();
  return parameters;
}

// Puts a pod on given GPUs of a node, to build a cluster state by hand.
void put(ShareCluster& cluster, int node_index, const PodSpec& spec, std::vector<int> gpus) {
  cluster.place(spec, PodPlacement{node_index, std::move(gpus)});
}

std::optional<PodPlacement> place_with(const std::string& policy_name, const ShareCluster& cluster,
                                       const PodSpec& spec, const TypicalPods& typical = {},
                                       std::uint64_t seed = 1) {
  auto policy = make_placement_policy(policy_name, reference_parameters(), typical);
  Random random(seed);
  return policy->place(cluster, spec, random);
}

int chosen_node(const std::string& policy_name, const ShareCluster& cluster, const PodSpec& spec,
                const TypicalPods& typical = {}) {
  const auto where = place_with(policy_name, cluster, spec, typical);
  return where ? where->node : -1;
}

TypicalPod typical(std::int64_t cpu_milli, int num_gpu, int gpu_milli, double probability,
                   std::vector<std::string> models = {}) {
  TypicalPod shape;
  shape.cpu_milli = cpu_milli;
  shape.num_gpu = num_gpu;
  shape.gpu_milli = num_gpu == 0 ? 0 : gpu_milli;
  shape.gpu_models = std::move(models);
  shape.count = 1;
  shape.probability = probability;
  return shape;
}

// Equal element by element; NaN equals NaN (a bucket no pod reached).
bool same_curve(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (std::isnan(a[k]) != std::isnan(b[k])) return false;
    if (!std::isnan(a[k]) && std::memcmp(&a[k], &b[k], sizeof(double)) != 0) return false;
  }
  return true;
}

bool same_curves(const PackingResult& a, const PackingResult& b) {
  return same_curve(a.allocation_percent_by_arrived_percent, b.allocation_percent_by_arrived_percent) &&
         same_curve(a.fragmentation_percent_by_arrived_percent, b.fragmentation_percent_by_arrived_percent) &&
         same_curve(a.fragmentation_ratio_by_arrived_percent, b.fragmentation_ratio_by_arrived_percent);
}

// ---------------------------------------------------------------------------------------------------------------
// Fit rules (§4): CPU and memory, the GPU model, one GPU with enough milli for a share, fully free GPUs otherwise.

TEST(ShareClusterFit, GpuModelMustBeOneThePodAllows) {
  const ShareCluster cluster({node("v", 96000, 4, "V100M32"), node("t", 96000, 2, "T4"), node("c", 96000, 0, "")});
  const PodSpec v100 = pod(1000, 1, 500, {"V100M32"});
  EXPECT_TRUE(cluster.fits(0, v100));
  EXPECT_FALSE(cluster.fits(1, v100));
  EXPECT_FALSE(cluster.fits(2, v100));  // no GPUs, no model
  const PodSpec t4_or_a10 = pod(1000, 1, 1000, {"A10", "T4"});
  EXPECT_FALSE(cluster.fits(0, t4_or_a10));
  EXPECT_TRUE(cluster.fits(1, t4_or_a10));
  const PodSpec any = pod(1000, 1, 500);
  EXPECT_TRUE(cluster.fits(0, any));
  EXPECT_TRUE(cluster.fits(1, any));
  EXPECT_FALSE(cluster.fits(2, any));  // a GPU pod never fits a node without GPUs
  // CPU-only pods need only CPU and memory: they fit everywhere, the GPU-less node included.
  EXPECT_TRUE(cluster.fits(0, cpu_only(1000)));
  EXPECT_TRUE(cluster.fits(2, cpu_only(1000)));
}

TEST(ShareClusterFit, MultiGpuPodsNeedFullyFreeGpus) {
  ShareCluster cluster({node("n", 96000, 4, "G2")});
  put(cluster, 0, pod(0, 1, 100), {0});
  put(cluster, 0, pod(0, 1, 100), {1});  // left: 900, 900, 1000, 1000
  EXPECT_EQ(cluster.node(0).fully_free_gpus(), 2);
  EXPECT_EQ(cluster.node(0).gpu_milli_left(), 3800);
  EXPECT_EQ(cluster.gpu_milli_used(), 200);
  EXPECT_TRUE(cluster.fits(0, pod(0, 2, 1000)));
  EXPECT_FALSE(cluster.fits(0, pod(0, 3, 1000)));  // 3800 milli left, but only two whole GPUs
  EXPECT_TRUE(cluster.fits(0, pod(0, 1, 1000)));
  // Whole GPUs go to the lowest-index free ones; a share to the fullest GPU that fits, lowest index on a tie.
  EXPECT_EQ(cluster.best_fit_gpus(0, pod(0, 2, 1000)), (std::vector<int>{2, 3}));
  EXPECT_EQ(cluster.best_fit_gpus(0, pod(0, 1, 800)), (std::vector<int>{0}));
  EXPECT_TRUE(cluster.best_fit_gpus(0, cpu_only(1000)).empty());
}

TEST(ShareClusterFit, ShareNeedsOneGpuWithEnoughMilliNotTheSum) {
  ShareCluster cluster({node("n", 96000, 2, "T4")});
  put(cluster, 0, pod(0, 1, 600), {0});
  put(cluster, 0, pod(0, 1, 600), {1});  // left: 400, 400 (800 in all)
  EXPECT_FALSE(cluster.fits(0, pod(0, 1, 500)));
  EXPECT_TRUE(cluster.fits(0, pod(0, 1, 400)));
  EXPECT_FALSE(cluster.fits(0, pod(0, 1, 1000)));  // a whole 1-GPU pod needs a fully free GPU
}

TEST(ShareClusterFit, CpuAndMemoryMustFit) {
  const ShareCluster cluster({node("n", 8000, 2, "T4", 1000)});
  EXPECT_TRUE(cluster.fits(0, pod(8000, 1, 500, {}, 1000)));  // exactly full is fine
  EXPECT_FALSE(cluster.fits(0, pod(8001, 1, 500, {}, 1000)));
  EXPECT_FALSE(cluster.fits(0, pod(8000, 1, 500, {}, 1001)));
  EXPECT_FALSE(cluster.fits(0, pod(8001, 0, 0)));  // CPU-only pods too
  PodSpec memory_hog = cpu_only(1);
  memory_hog.memory_mib = 1001;
  EXPECT_FALSE(cluster.fits(0, memory_hog));
}

// ---------------------------------------------------------------------------------------------------------------
// Policy scores (§5). Node models double as labels, so a pod's gpu_models picks which nodes compete.

// DotProd: score = trunc(100 x (1 - dot / 2)), dot = (pod cpu / 128000)(cpu left / 128000) + (pod GPU milli / 8000)
// (GPU milli left / 8000). Pod: 64000 milli-CPU, one whole GPU -> vector (0.5, 0.125).
TEST(PlacementScores, DotProductPrefersTheSmallestDotProduct) {
  const ShareCluster cluster({
      node("a", 128000, 8, "A"),  // dot 0.5 + 0.125 = 0.625          -> trunc(68.75) = 68
      node("b", 128000, 2, "B"),  // dot 0.5 + 0.125 x 0.25 = 0.53125  -> trunc(73.44) = 73
      node("c", 64000, 8, "C"),   // dot 0.25 + 0.125 = 0.375          -> trunc(81.25) = 81
      node("d", 32000, 8, "D"),   // would be 0.125 + 0.125 -> 87, but 32000 < 64000 CPU: infeasible
  });
  EXPECT_EQ(chosen_node("dotprod", cluster, pod(64000, 1, 1000)), 2);
  EXPECT_EQ(chosen_node("dotprod", cluster, pod(64000, 1, 1000, {"A", "B"})), 1);
  EXPECT_EQ(chosen_node("dotprod", cluster, pod(64000, 1, 1000, {"D"})), -1);
}

TEST(PlacementScores, EqualScoresGoToTheSmallestRank) {
  ShareCluster cluster({node("a", 96000, 8, "G2"), node("b", 96000, 8, "G2"), node("c", 96000, 8, "G2")});
  for (const auto& name : {"dotprod", "clustering", "packing", "bestfit", "fgd"}) {
    EXPECT_EQ(chosen_node(name, cluster, pod(4000, 1, 500)), 0) << name;
  }
  cluster.set_ranks({2, 0, 1});
  for (const auto& name : {"dotprod", "clustering", "packing", "bestfit", "fgd"}) {
    EXPECT_EQ(chosen_node(name, cluster, pod(4000, 1, 500)), 1) << name;
  }
}

// GpuClustering: b = (25 x (8000 - GPU milli left)) / 8000 in integers; b + 75 when the node holds only this kind,
// b + 50 when this kind among others, b + 25 when it holds no GPU pod, b otherwise. Incoming: a 500-milli share.
TEST(PlacementScores, GpuClusteringGroupsPodsOfTheSameKind) {
  ShareCluster cluster({
      node("empty", 96000, 8, "A"),  // no GPU pod:              0 + 25 = 25
      node("whole", 96000, 8, "B"),  // a 1-GPU pod only:        25 x 1000 / 8000 = 3 -> 3
      node("share", 96000, 8, "C"),  // a 300-milli share only:  25 x 300 / 8000 = 0 -> 75
      node("mixed", 96000, 8, "D"),  // share and 1-GPU:         25 x 1300 / 8000 = 4 -> 54
      node("fuller", 96000, 8, "C"),  // four 900-milli shares:  25 x 3600 / 8000 = 11 -> 86
      node("small", 96000, 2, "E"),  // empty 2-GPU node:        25 x 6000 / 8000 = 18 -> 43 (scale fixed at 8 GPUs)
  });
  put(cluster, 1, pod(1000, 1, 1000), {0});
  put(cluster, 2, pod(1000, 1, 300), {0});
  put(cluster, 3, pod(1000, 1, 300), {0});
  put(cluster, 3, pod(1000, 1, 1000), {1});
  for (int gpu = 0; gpu < 4; ++gpu) put(cluster, 4, pod(1000, 1, 900), {gpu});
  const auto share = [](std::vector<std::string> models) { return pod(1000, 1, 500, std::move(models)); };
  EXPECT_EQ(chosen_node("clustering", cluster, share({})), 4);               // 86
  EXPECT_EQ(chosen_node("clustering", cluster, share({"A", "B", "D"})), 3);  // 54 > 25 > 3
  EXPECT_EQ(chosen_node("clustering", cluster, share({"A", "B"})), 0);       // 25 > 3
  EXPECT_EQ(chosen_node("clustering", cluster, share({"A", "E"})), 5);       // 43 > 25
  // A 1-GPU pod: "whole" holds only its kind (3 + 75 = 78), "mixed" holds it among others (4 + 50 = 54).
  EXPECT_EQ(chosen_node("clustering", cluster, pod(1000, 1, 1000, {"B", "D"})), 1);
  EXPECT_EQ(chosen_node("clustering", cluster, pod(1000, 1, 1000, {"C", "D"})), 3);
}

TEST(PlacementScores, GpuClusteringSendsCpuOnlyPodsToTheSmallestRank) {
  ShareCluster cluster({node("a", 96000, 8, "G2"), node("b", 96000, 8, "G2"), node("c", 96000, 8, "G2")});
  put(cluster, 0, pod(1000, 1, 500), {0});  // a share pod on node 0 would attract GPU pods, not CPU-only ones
  cluster.set_ranks({1, 2, 0});
  const auto where = place_with("clustering", cluster, cpu_only(4000));
  ASSERT_TRUE(where);
  EXPECT_EQ(where->node, 2);
  EXPECT_TRUE(where->gpus.empty());
  put(cluster, 2, cpu_only(4000), {});
  EXPECT_EQ(cluster.node(2).affinity, 0u);  // CPU-only pods add no GPU kind
  // ... and the pile-up: the next CPU-only pods go to the same node while it has CPU.
  EXPECT_EQ(chosen_node("clustering", cluster, cpu_only(92000)), 2);
  EXPECT_EQ(chosen_node("clustering", cluster, cpu_only(92001)), 0);  // too big for node 2: the next rank
}

// GpuPacking, for a 500-milli share (GPUs taken in ascending order of milli left, first num_gpu that fit):
//   all GPUs free (case 3):              max(33 - f, f)
//   the chosen GPUs include k free ones: max(50 - k, 33)     (case 2)
//   only partly used GPUs (case 1):      max(100 - sum(left x 100 / 1000) / 10, 50)
TEST(PlacementScores, GpuPackingFillsPartlyUsedGpusThenNodesThenSmallEmptyNodes) {
  ShareCluster cluster({
      node("a", 96000, 8, "A"),  // case 3, f = 8: max(25, 8) = 25
      node("b", 96000, 2, "B"),  // case 3, f = 2: 31
      node("c", 96000, 1, "C"),  // case 3, f = 1: 32
      node("d", 96000, 8, "D"),  // GPU 0 has 100 left (too little): the next fitting GPU is free, k = 1: 49
      node("e", 96000, 8, "E"),  // GPU 2 has 600 left: case 1: 100 - 60 / 10 = 94
      node("f", 96000, 8, "F"),  // GPU 1 has 900 left: case 1: 100 - 90 / 10 = 91
  });
  put(cluster, 3, pod(1000, 1, 900), {0});
  put(cluster, 4, pod(1000, 1, 400), {2});
  put(cluster, 5, pod(1000, 1, 100), {1});
  const auto share = [](std::vector<std::string> models) { return pod(1000, 1, 500, std::move(models)); };
  const auto all = place_with("packing", cluster, share({}));
  ASSERT_TRUE(all);
  EXPECT_EQ(all->node, 4);
  EXPECT_EQ(all->gpus, (std::vector<int>{2}));
  EXPECT_EQ(chosen_node("packing", cluster, share({"D", "F"})), 5);       // 91 > 49
  EXPECT_EQ(chosen_node("packing", cluster, share({"A", "D"})), 3);       // 49 > 25
  EXPECT_EQ(chosen_node("packing", cluster, share({"A", "B", "C"})), 2);  // 32 > 31 > 25
  EXPECT_EQ(chosen_node("packing", cluster, share({"A", "B"})), 1);       // 31 > 25
  // A 2-GPU pod: node d gives k = 2 free GPUs: max(48, 33) = 48 > 25 for the empty 8-GPU node.
  EXPECT_EQ(chosen_node("packing", cluster, pod(1000, 2, 1000, {"A", "D"})), 3);
  // CPU-only pods score 0 everywhere: the smallest rank.
  cluster.set_ranks({5, 4, 3, 2, 1, 0});
  EXPECT_EQ(chosen_node("packing", cluster, cpu_only(1000)), 5);
}

// BestFit: s = 0.5 (cpu left - cpu) / 128000 + 0.5 (GPU milli left - pod milli) / 8000; raw = trunc(100 (1 - s)).
// Pod: 16000 milli-CPU, one whole GPU.
TEST(PlacementScores, BestFitPrefersTheTightestNode) {
  ShareCluster cluster({
      node("a", 128000, 8, "A"),  // s = 0.4375 + 0.4375 = 0.875 -> 12
      node("b", 32000, 8, "B"),   // s = 0.0625 + 0.4375 = 0.5   -> 50
      node("c", 128000, 2, "C"),  // s = 0.4375 + 0.0625 = 0.5   -> 50
      node("d", 16000, 1, "D"),   // s = 0                       -> 100
  });
  EXPECT_EQ(chosen_node("bestfit", cluster, pod(16000, 1, 1000)), 3);
  EXPECT_EQ(chosen_node("bestfit", cluster, pod(16000, 1, 1000, {"A", "B"})), 1);
  EXPECT_EQ(chosen_node("bestfit", cluster, pod(16000, 1, 1000, {"A", "B", "C"})), 1);  // tie b, c: rank 1 < 2
  cluster.set_ranks({0, 3, 2, 1});
  EXPECT_EQ(chosen_node("bestfit", cluster, pod(16000, 1, 1000, {"A", "B", "C"})), 2);  // now c has the smaller rank
}

// FGD, one typical pod (a 500-milli share, probability 1) on a 2-GPU node with 1000 and 600 left. The share on
// GPU 0 leaves (500, 600): nothing below 500, F = 0, score trunc(100 sigmoid(0)) = 50. On GPU 1 it leaves (1000, 100):
// F = 100, trunc(100 sigmoid(-0.1)) = 47. FGD takes GPU 0; best fit would take the fuller GPU 1.
TEST(PlacementScores, FgdTakesTheGpuThatLeavesLessFragmentation) {
  const TypicalPods shares{typical(1000, 1, 500, 1.0)};
  ShareCluster cluster({node("n", 96000, 2, "G2")});
  put(cluster, 0, pod(1000, 1, 400), {1});
  EXPECT_DOUBLE_EQ(node_fragmentation(shares, 95000, {500, 600}, "G2"), 0);
  EXPECT_DOUBLE_EQ(node_fragmentation(shares, 95000, {1000, 100}, "G2"), 100);
  const auto fgd = place_with("fgd", cluster, pod(1000, 1, 500), shares);
  ASSERT_TRUE(fgd);
  EXPECT_EQ(fgd->gpus, (std::vector<int>{0}));
  const auto best_fit = place_with("bestfit", cluster, pod(1000, 1, 500), shares);
  ASSERT_TRUE(best_fit);
  EXPECT_EQ(best_fit->gpus, (std::vector<int>{1}));
}

// FGD node choice. Typical pods: a 500-milli share and a whole GPU, probability 0.5 each. Incoming: a 500 share.
//   node 0 (1000, 1000): F 0 -> after (500, 1000): the whole-GPU type strands 500 -> F 250; sigmoid(-0.25) -> 43.
//   node 1 (600, 1000):  F = 0.5 x 600 = 300 -> after (100, 1000): F = 0.5 x 100 + 0.5 x 100 = 100; sigmoid(0.2)
//                        -> 54 (on GPU 1 instead: (600, 500), no whole GPU left, F = 550 -> 43).
TEST(PlacementScores, FgdChoosesTheNodeWhoseFragmentationDropsMost) {
  const TypicalPods mix{typical(1000, 1, 500, 0.5), typical(1000, 1, 1000, 0.5)};
  ShareCluster cluster({node("a", 96000, 2, "G2"), node("b", 96000, 2, "G2")});
  put(cluster, 1, pod(1000, 1, 400), {0});
  EXPECT_DOUBLE_EQ(node_fragmentation(mix, 95000, {600, 1000}, "G2"), 300);
  EXPECT_DOUBLE_EQ(node_fragmentation(mix, 94000, {100, 1000}, "G2"), 100);
  EXPECT_DOUBLE_EQ(node_fragmentation(mix, 94000, {600, 500}, "G2"), 550);
  EXPECT_DOUBLE_EQ(node_fragmentation(mix, 95000, {500, 1000}, "G2"), 250);
  const auto where = place_with("fgd", cluster, pod(1000, 1, 500), mix);
  ASSERT_TRUE(where);
  EXPECT_EQ(where->node, 1);
  EXPECT_EQ(where->gpus, (std::vector<int>{0}));
}

// FGD counts CPU too: a typical whole-GPU pod needs 8000 milli-CPU. A CPU-only pod of 2000 on a node with 9000 left
// would strand all 4000 free GPU milli (sigmoid(-4) -> 1); on a node with plenty of CPU nothing changes (50).
TEST(PlacementScores, FgdKeepsCpuForTypicalGpuPods) {
  const TypicalPods whole{typical(8000, 1, 1000, 1.0)};
  const ShareCluster cluster({node("tight", 9000, 4, "G2"), node("roomy", 96000, 4, "G2")});
  EXPECT_DOUBLE_EQ(node_fragmentation(whole, 7000, {1000, 1000, 1000, 1000}, "G2"), 4000);
  EXPECT_EQ(chosen_node("fgd", cluster, cpu_only(2000), whole), 1);
}

TEST(PlacementScores, RandomPicksOnlyFeasibleNodes) {
  ShareCluster cluster({
      node("cpu-short", 1000, 8, "G2"),
      node("wrong-model", 96000, 8, "T4"),
      node("gpu-short", 96000, 1, "G2"),
      node("ok-2", 96000, 2, "G2"),
      node("ok-1", 96000, 1, "G2"),
  });
  put(cluster, 2, pod(0, 1, 600), {0});  // 400 left
  const PodSpec spec = pod(2000, 1, 500, {"G2"});
  std::map<int, int> picked;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const auto where = place_with("random", cluster, spec, {}, seed);
    ASSERT_TRUE(where);
    ++picked[where->node];
    ASSERT_EQ(where->gpus.size(), 1u);
    EXPECT_GE(cluster.node(where->node).gpu_left[where->gpus[0]], 500);
  }
  EXPECT_EQ(picked.size(), 2u);  // both feasible nodes, nothing else
  EXPECT_GT(picked[3], 0);
  EXPECT_GT(picked[4], 0);
  EXPECT_FALSE(place_with("random", cluster, pod(200000, 1, 500)));
}

TEST(PlacementScores, EveryPolicyFailsWhenNoNodeFits) {
  const ShareCluster cluster({node("a", 96000, 2, "G2")});
  for (const auto& name : placement_policy_names()) {
    EXPECT_FALSE(place_with(name, cluster, pod(1000, 4, 1000))) << name;
    EXPECT_FALSE(place_with(name, cluster, pod(1000, 1, 500, {"T4"}))) << name;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Typical pods and node fragmentation (§5.6).

std::vector<PodSpec> repeated(const PodSpec& spec, int count) { return std::vector<PodSpec>(count, spec); }

std::vector<PodSpec> concat(std::initializer_list<std::vector<PodSpec>> parts) {
  std::vector<PodSpec> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

TEST(TypicalPods, MostPopularFirstUntilTheyCover95Percent) {
  const auto pods = concat({repeated(pod(2000, 1, 1000), 30), repeated(pod(1000, 1, 500), 50),
                            repeated(cpu_only(4000), 15), repeated(pod(8000, 2, 1000), 3),
                            repeated(pod(500, 1, 200, {"T4"}), 2)});
  // 50 + 30 = 80 < 95; + 15 = 95 reaches 95 % of 100 and is included; the rest is cut.
  const auto shapes = typical_pods(pods, 95, true);
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes[0].count, 50);
  EXPECT_EQ(shapes[0].gpu_milli, 500);
  EXPECT_EQ(shapes[1].count, 30);
  EXPECT_EQ(shapes[2].count, 15);
  EXPECT_EQ(shapes[2].num_gpu, 0);
  EXPECT_DOUBLE_EQ(shapes[0].probability, 50.0 / 95);
  EXPECT_DOUBLE_EQ(shapes[1].probability, 30.0 / 95);
  EXPECT_DOUBLE_EQ(shapes[2].probability, 15.0 / 95);

  // Without CPU-only pods 85 pods count: 50, 80 < 80.75, then 83 crosses and is included.
  const auto gpu_only = typical_pods(pods, 95, false);
  ASSERT_EQ(gpu_only.size(), 3u);
  EXPECT_EQ(gpu_only[2].num_gpu, 2);
  EXPECT_DOUBLE_EQ(gpu_only[2].probability, 3.0 / 83);

  // A shape that crosses 95 % is included: 50, 30, 14 -> 94 < 95 -> the 6-pod shape too.
  const auto crossing = typical_pods(concat({repeated(pod(1000, 1, 500), 50), repeated(pod(2000, 1, 1000), 30),
                                             repeated(cpu_only(4000), 14), repeated(pod(8000, 2, 1000), 6)}),
                                     95, true);
  EXPECT_EQ(crossing.size(), 4u);
}

TEST(TypicalPods, EqualCountsOrderByLargerCpuThenMilliThenGpusThenModels) {
  const auto pods = concat({repeated(pod(2000, 1, 500), 5), repeated(cpu_only(4000), 5), repeated(pod(2000, 1, 800), 5),
                            repeated(pod(2000, 2, 1000), 5), repeated(pod(2000, 1, 1000), 5),
                            repeated(pod(2000, 1, 1000, {"V100M32"}), 5), repeated(pod(100, 1, 100), 6)});
  const auto shapes = typical_pods(pods, 100, true);
  ASSERT_EQ(shapes.size(), 7u);
  EXPECT_EQ(shapes[0].count, 6);  // the most common first, however small
  EXPECT_EQ(shapes[1].cpu_milli, 4000);
  EXPECT_EQ(shapes[2].num_gpu, 2);
  EXPECT_EQ(shapes[3].gpu_models, (std::vector<std::string>{"V100M32"}));
  EXPECT_EQ(shapes[4].gpu_milli, 1000);
  EXPECT_TRUE(shapes[4].gpu_models.empty());
  EXPECT_EQ(shapes[5].gpu_milli, 800);
  EXPECT_EQ(shapes[6].gpu_milli, 500);
}

// Typical pods: a 500 share with 4000 CPU (p 0.5), a whole GPU of model V100M32 with 8000 CPU (p 0.3), CPU-only
// (p 0.2). A node with GPU milli left (1000, 300, 600, 0), 1900 in all:
//   share type: fits (1000 and 600 >= 500), CPU ok: only the 300 is stranded -> 0.5 x 300  = 150
//   whole type on a T4 node: no access -> all 1900                           -> 0.3 x 1900 = 570
//   CPU-only type: all free GPU milli                                         -> 0.2 x 1900 = 380
TEST(NodeFragmentation, HandExample) {
  const TypicalPods shapes{typical(4000, 1, 500, 0.5), typical(8000, 1, 1000, 0.3, {"V100M32"}), typical(2000, 0, 0, 0.2)};
  const std::vector<int> left{1000, 300, 600, 0};
  EXPECT_DOUBLE_EQ(node_fragmentation(shapes, 6000, left, "T4"), 150 + 570 + 380);
  // On a V100M32 node with 6000 CPU the whole type is CPU-short: still all 1900.
  EXPECT_DOUBLE_EQ(node_fragmentation(shapes, 6000, left, "V100M32"), 150 + 570 + 380);
  // With 9000 CPU it fits on the free GPU: the 300 + 600 + 0 on smaller GPUs are stranded -> 0.3 x 900 = 270.
  EXPECT_DOUBLE_EQ(node_fragmentation(shapes, 9000, left, "V100M32"), 150 + 270 + 380);
  // With 3000 CPU the share type is CPU-short too: 0.5 x 1900 = 950.
  EXPECT_DOUBLE_EQ(node_fragmentation(shapes, 3000, left, "V100M32"), 950 + 570 + 380);
  // A 2-GPU type needs two GPUs with 1000 left: one is not enough, so all is fragment.
  EXPECT_DOUBLE_EQ(node_fragmentation({typical(0, 2, 1000, 1.0)}, 96000, left, "G2"), 1900);
  EXPECT_DOUBLE_EQ(node_fragmentation({typical(0, 2, 1000, 1.0)}, 96000, {1000, 1000, 300}, "G2"), 300);
  EXPECT_DOUBLE_EQ(node_fragmentation(shapes, 96000, {0, 0}, "G2"), 0);  // a full node has nothing to strand
}

// ---------------------------------------------------------------------------------------------------------------
// run_packing on a small synthetic cluster.

// 50 nodes, 320 GPUs; pods of at most 4 GPUs, so each arrival moves demand by at most 1.25 % of capacity and every
// bucket of the curve gets samples.
std::vector<NodeSpec> synthetic_nodes() {
  std::vector<NodeSpec> nodes;
  for (int n = 0; n < 30; ++n) nodes.push_back(node("g2-" + std::to_string(n), 96000, 8, "G2"));
  for (int n = 0; n < 20; ++n) nodes.push_back(node("t4-" + std::to_string(n), 64000, 4, "T4", 262144));
  return nodes;
}

std::vector<PodSpec> synthetic_pods() {
  Random random(7);
  std::vector<PodSpec> pods;
  for (int p = 0; p < 300; ++p) {
    const auto kind = random.below(100);
    const std::int64_t cpu = 1000 * static_cast<std::int64_t>(1 + random.below(16));
    const std::int64_t memory = 1024 * static_cast<std::int64_t>(1 + random.below(32));
    std::vector<std::string> models;
    if (random.below(10) == 0) models = {random.below(2) == 0 ? "T4" : "G2"};
    PodSpec spec;
    if (kind < 40) {
      spec = pod(cpu, 1, static_cast<int>(100 * (1 + random.below(9))), models, memory);
    } else if (kind < 70) {
      spec = pod(cpu, 1, 1000, models, memory);
    } else if (kind < 80) {
      spec = pod(cpu, 2, 1000, models, memory);
    } else if (kind < 85) {
      spec = pod(cpu, 4, 1000, models, memory);
    } else {
      spec = pod(cpu, 0, 0, {}, memory);
    }
    spec.name = "pod-" + std::to_string(1000 + p);
    pods.push_back(spec);
  }
  return pods;
}

TEST(RunPacking, InvariantsOnASyntheticCluster) {
  const auto nodes = synthetic_nodes();
  const auto pods = synthetic_pods();
  const auto& parameters = reference_parameters();
  for (const auto& policy : placement_policy_names()) {
    SCOPED_TRACE(policy);
    const PackingResult result = run_packing(nodes, pods, parameters, policy, 42, parameters.inflate);
    EXPECT_EQ(result.policy, policy);
    EXPECT_EQ(result.nodes, 50);
    EXPECT_EQ(result.gpus, 320);
    EXPECT_EQ(result.pods_original, 300);
    EXPECT_GT(result.pods_arrived, result.pods_original);  // inflated: the originals ask for less than 130 %
    EXPECT_EQ(result.pods_placed + result.pods_failed, result.pods_arrived);
    EXPECT_GT(result.pods_failed, 0);  // 130 % of capacity cannot all fit
    EXPECT_LE(result.gpu_pods_failed, result.pods_failed);
    EXPECT_GT(result.final_allocation_percent, 50);
    EXPECT_LE(result.final_allocation_percent, 100);

    const auto& allocation = result.allocation_percent_by_arrived_percent;
    const auto& fragmentation = result.fragmentation_percent_by_arrived_percent;
    const auto& ratio = result.fragmentation_ratio_by_arrived_percent;
    ASSERT_EQ(allocation.size(), 131u);
    ASSERT_EQ(fragmentation.size(), 131u);
    ASSERT_EQ(ratio.size(), 131u);
    EXPECT_FALSE(std::isnan(allocation.back())) << "arrived demand never reached 130 % of capacity";
    double previous = 0;
    for (int k = 0; k < 131; ++k) {
      SCOPED_TRACE("arrived " + std::to_string(k) + " %");
      ASSERT_FALSE(std::isnan(allocation[k]));
      EXPECT_GE(allocation[k], previous);  // nothing leaves: allocation only grows
      previous = allocation[k];
      EXPECT_LE(allocation[k], 100.0);
      // Allocated <= arrived for every sample; bucket k holds samples with arrived < k + 0.5, or up to k + 1.5 when
      // it borrows from its neighbours.
      EXPECT_LE(allocation[k], k + 1.5);
      EXPECT_GE(fragmentation[k], 0.0);
      EXPECT_LE(fragmentation[k], 100.0 - allocation[k] + 0.02);  // fragment <= idle (2-dp rounding)
      EXPECT_GE(ratio[k], 0.0);
      EXPECT_LE(ratio[k], 100.0 + 1e-9);
    }
  }
}

TEST(RunPacking, SameSeedSameCurvesDifferentSeedDifferentRun) {
  const auto nodes = synthetic_nodes();
  const auto pods = synthetic_pods();
  const auto& parameters = reference_parameters();
  for (const auto& policy : placement_policy_names()) {
    SCOPED_TRACE(policy);
    const auto first = run_packing(nodes, pods, parameters, policy, 42, parameters.inflate);
    const auto again = run_packing(nodes, pods, parameters, policy, 42, parameters.inflate);
    EXPECT_TRUE(same_curves(first, again));
    EXPECT_EQ(first.pods_arrived, again.pods_arrived);
    EXPECT_EQ(first.pods_placed, again.pods_placed);
    EXPECT_EQ(first.gpu_pods_failed, again.gpu_pods_failed);
    EXPECT_EQ(first.final_allocation_percent, again.final_allocation_percent);
    EXPECT_EQ(packing_json({first}).dump(), packing_json({again}).dump());

    const auto other = run_packing(nodes, pods, parameters, policy, 43, parameters.inflate);
    const bool differs = !same_curves(first, other) || first.pods_arrived != other.pods_arrived ||
                         first.pods_failed != other.pods_failed;
    EXPECT_TRUE(differs) << "seeds 42 and 43 gave the same run";
  }
}

TEST(RunPacking, JsonDumpsAreByteIdentical) {
  const auto nodes = synthetic_nodes();
  const auto pods = synthetic_pods();
  const auto& parameters = reference_parameters();
  std::vector<PackingResult> runs;
  for (std::uint64_t seed = 42; seed < 45; ++seed) {
    runs.push_back(run_packing(nodes, pods, parameters, "fgd", seed, parameters.inflate));
  }
  const std::string once = packing_json(runs).dump(2);
  const std::string twice = packing_json(runs).dump(2);
  EXPECT_EQ(once, twice);
  EXPECT_NE(once.find("\"schema\": \"gputwin.packing/1\""), std::string::npos);
  EXPECT_NE(once.find("mean_over_seeds"), std::string::npos);
  std::vector<PackingResult> rerun;
  for (std::uint64_t seed = 42; seed < 45; ++seed) {
    rerun.push_back(run_packing(nodes, pods, parameters, "fgd", seed, parameters.inflate));
  }
  EXPECT_EQ(packing_json(rerun).dump(2), once);
}

TEST(RunPacking, UnknownPolicyListsTheKnownOnes) {
  try {
    (void)make_placement_policy("tetris", reference_parameters(), {});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("tetris"), std::string::npos) << message;
    for (const auto& name : placement_policy_names()) EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  EXPECT_THROW((void)run_packing(synthetic_nodes(), synthetic_pods(), reference_parameters(), "tetris", 42, 1.3),
               std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------------------------
// The openb pod reader on bad input.

constexpr const char* kPodHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                                   "creation_time,deletion_time,scheduled_time\n";

TEST(OpenbPods, TruncatedRowNamesFileAndLine) {
  const std::string text = std::string(kPodHeader) + "p1,1000,100,1,500,,LS,Running,0,10,0\np2,1000,100\n";
  const auto result = parse_openb_pods(text, "pods.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("pods.csv:3"), std::string::npos) << result.error_text();
}

TEST(OpenbPods, WrongColumnCountNamesFileAndLine) {
  const std::string text =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np1,1000,100,1,500\n\np2,1000,100,1,500,extra\n";
  const auto result = parse_openb_pods(text, "five.csv");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("five.csv:4"), std::string::npos) << result.error_text();  // blank line counted
  EXPECT_NE(result.error_text().find("expected 5 columns, found 6"), std::string::npos) << result.error_text();
}

TEST(OpenbPods, NonNumericCpuNamesFileLineAndColumn) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "gputwin_packing_test_pods.csv";
  {
    std::ofstream out(path);
    out << kPodHeader << "p1,1000,100,1,500,,LS,Running,0,10,0\np2,lots,100,1,500,,LS,Running,0,10,0\n";
  }
  const auto result = read_openb_pods(path.string());
  std::filesystem::remove(path);
  ASSERT_FALSE(result.ok());
  const std::string text = result.error_text();
  EXPECT_NE(text.find(path.string() + ":3"), std::string::npos) << text;
  EXPECT_NE(text.find("cpu_milli"), std::string::npos) << text;
  EXPECT_NE(text.find("lots"), std::string::npos) << text;
}

TEST(OpenbPods, UnplaceableRowsAreCountedNotKept) {
  const std::string text = std::string(kPodHeader) +
                           "ok,1000,100,1,500,V100M32|,LS,Running,0,10,0\n"
                           "negative,-1000,100,1,500,,LS,Running,0,10,0\n"
                           "zero-milli,1000,100,1,0,,LS,Running,0,10,0\n"
                           "cpu,4000,100,0,0,,LS,Running,0,10,0\n";
  const auto result = parse_openb_pods(text, "pods.csv");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& rows = result.value();
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(rows.rows[0].name, "ok");
  EXPECT_EQ(rows.rows[0].gpu_models, (std::vector<std::string>{"V100M32"}));
  EXPECT_EQ(rows.rows[1].name, "cpu");
  EXPECT_EQ(rows.skipped_total(), 2);
  EXPECT_EQ(rows.skipped.at("negative request"), 1);
  int gpu_milli_reasons = 0;
  for (const auto& [reason, count] : rows.skipped) {
    if (reason.find("gpu_milli") != std::string::npos) gpu_milli_reasons += count;
  }
  EXPECT_EQ(gpu_milli_reasons, 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Validation against the FGD paper's published results (../shared, skipped when absent).

std::string shared_path(const std::string& relative) { return std::string(GPUTWIN_SHARED_DIR) + "/" + relative; }

struct Published {
  int runs = 0;
  double sum_100 = 0;
  double sum_130 = 0;
};

// Mean allocation at 100 % and 130 % arrived per policy label, for one workload of analysis_allo_discrete.csv.
std::map<std::string, Published> published_means(const std::string& path, const std::string& workload) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const auto split = [](const std::string& text) {
    std::vector<std::string> cells;
    std::stringstream stream(text);
    std::string cell;
    while (std::getline(stream, cell, ',')) cells.push_back(cell);
    return cells;
  };
  const auto header = split(line);
  const auto index_of = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const std::size_t workload_column = index_of("workload");
  const std::size_t policy_column = index_of("sc_policy");
  const std::size_t column_100 = index_of("100");
  const std::size_t column_130 = index_of("130");
  std::map<std::string, Published> means;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto cells = split(line);
    if (cells.size() != header.size() || cells[workload_column] != workload) continue;
    Published& entry = means[cells[policy_column]];
    ++entry.runs;
    entry.sum_100 += std::stod(cells[column_100]);
    entry.sum_130 += std::stod(cells[column_130]);
  }
  return means;
}

std::vector<std::string> ranking(const std::map<std::string, double>& values) {
  std::vector<std::string> names;
  for (const auto& [name, value] : values) names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const auto& a, const auto& b) { return values.at(a) > values.at(b); });
  return names;
}

TEST(PackingValidation, DefaultTraceMatchesThePublishedMeansAndRanking) {
  const std::string csv_dir = shared_path("traces/alibaba-gpu-v2023/csv");
  const std::string expected_path = shared_path("traces/fgd-expected-results/analysis_allo_discrete.csv");
  if (!std::filesystem::exists(csv_dir + "/openb_pod_list_default.csv") || !std::filesystem::exists(expected_path)) {
    GTEST_SKIP() << "openb trace or FGD expected results are absent under " << shared_path("traces");
  }
  const auto nodes = read_openb_nodes(csv_dir + "/openb_node_list_gpu_node.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.error_text();
  const auto pods = read_openb_pods(csv_dir + "/openb_pod_list_default.csv");
  ASSERT_TRUE(pods.ok()) << pods.error_text();
  ASSERT_EQ(nodes.value().rows.size(), 1213u);
  ASSERT_EQ(pods.value().rows.size(), 8152u);
  ASSERT_EQ(pods.value().skipped_total(), 0);

  const auto published = published_means(expected_path, "openb_pod_list_default");
  const std::map<std::string, std::string> labels{{"01-Random", "random"},        {"02-DotProd", "dotprod"},
                                                  {"03-GpuClustering", "clustering"}, {"04-GpuPacking", "packing"},
                                                  {"05-BestFit", "bestfit"},      {"06-FGD", "fgd"}};
  const auto& parameters = reference_parameters();
  std::map<std::string, double> ours_130;
  std::map<std::string, double> theirs_130;
  for (const auto& [label, policy] : labels) {
    SCOPED_TRACE(label);
    ASSERT_TRUE(published.count(label));
    const Published& paper = published.at(label);
    ASSERT_EQ(paper.runs, 10);
    std::vector<std::vector<double>> curves;
    for (std::uint64_t seed = 42; seed <= 51; ++seed) {
      const auto result = run_packing(nodes.value().rows, pods.value().rows, parameters, policy, seed, parameters.inflate);
      EXPECT_EQ(result.gpus, 6212);
      curves.push_back(result.allocation_percent_by_arrived_percent);
    }
    const auto mean = mean_curve(curves);
    ASSERT_EQ(mean.size(), 131u);
    const double paper_100 = paper.sum_100 / paper.runs;
    const double paper_130 = paper.sum_130 / paper.runs;
    EXPECT_NEAR(mean[100], paper_100, 0.5) << policy << " at 100 % arrived";
    EXPECT_NEAR(mean[130], paper_130, 0.5) << policy << " at 130 % arrived";
    ours_130[label] = mean[130];
    theirs_130[label] = paper_130;
    std::cout << "[ validation ] " << label << ": ours " << mean[100] << " / " << mean[130] << ", paper " << paper_100
              << " / " << paper_130 << "\n";
  }
  EXPECT_EQ(ranking(ours_130), ranking(theirs_130));
}

}  // namespace
}  // namespace gputwin
