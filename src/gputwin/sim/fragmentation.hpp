// GPU fragmentation as the FGD paper measures it: the GPU capacity of a node that the cluster's typical pods
// cannot use, weighted by how common each typical pod is.
//
//   TypicalPods typical = typical_pods(pods, 95.0, true);   // the most popular pod shapes, >= 95 % of pods
//   double frag = node_fragmentation(typical, cluster, node.cpu_left, node.gpu_left, node.model);
//
// For each typical pod t (probability p_t): if t needs GPUs of a model the node lacks, or cannot fit (too few
// GPUs with t's milli left, or too little CPU), all of the node's free GPU milli is fragment for t; if t
// fits, only the free milli on GPUs with less than t's milli left is. CPU-only typical pods count all free
// GPU milli. The node's fragmentation is sum_t p_t x fragment_t.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gputwin/sim/share_cluster.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct TypicalPod {
  std::int64_t cpu_milli = 0;
  int gpu_milli = 0;  // per GPU; 0 for CPU-only
  int num_gpu = 0;
  std::vector<std::string> gpu_models;  // empty = any
  int count = 0;
  double probability = 0;
};

using TypicalPods = std::vector<TypicalPod>;

// Pod shapes by popularity, most common first (ties: larger CPU, then milli, GPUs, model list first), taken
// until they cover `popularity_percent` of all pods; probabilities renormalised over the kept shapes.
[[nodiscard]] TypicalPods typical_pods(const std::vector<PodSpec>& pods, double popularity_percent,
                                       bool include_cpu_only);

[[nodiscard]] double node_fragmentation(const TypicalPods& typical, std::int64_t cpu_left,
                                        const std::vector<int>& gpu_left, const std::string& model);

}  // namespace gputwin
