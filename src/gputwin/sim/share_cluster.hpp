// Cluster state for GPU-sharing placement: per node the CPU and memory left and the milli-GPUs left on each
// GPU.
//
//   ShareCluster cluster(nodes);                 // from the openb node list or a designed cluster
//   if (cluster.fits(n, pod)) cluster.place(pod, {n, cluster.best_fit_gpus(n, pod)});
//
// Fit rules (the FGD paper's simulator): CPU and memory must fit; the node's GPU model must be one the pod
// allows; a pod on one GPU needs one GPU with enough milli left; a multi-GPU pod needs that many fully free
// GPUs. CPU-only pods only need CPU and memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gputwin/trace/records.hpp"

namespace gputwin {

struct ShareNode {
  std::string name;
  std::string model;
  int model_id = -1;
  std::int64_t cpu_left = 0;
  std::int64_t memory_left = 0;
  std::vector<int> gpu_left;   // milli-GPUs left per GPU, by device index
  std::uint32_t affinity = 0;  // kinds of GPU pods placed here (see affinity_bit), for GpuClustering
  int rank = 0;                // tie-break order: among equal scores the smallest rank wins
  std::uint64_t version = 0;   // bumped on every change, to invalidate cached scores

  [[nodiscard]] int gpus() const { return static_cast<int>(gpu_left.size()); }
  [[nodiscard]] int gpu_milli_left() const;
  [[nodiscard]] int fully_free_gpus() const;
};

struct PodPlacement {
  int node = -1;
  std::vector<int> gpus;  // device indices; one for a shared GPU, num_gpu for whole GPUs, none for CPU-only
};

// The GPU-kind tag of a pod: "share" for a fraction of one GPU, "<n>-gpu" for n whole GPUs; 0 for CPU-only.
[[nodiscard]] std::uint32_t affinity_bit(const PodSpec& pod);

class ShareCluster {
 public:
  explicit ShareCluster(const std::vector<NodeSpec>& nodes);

  [[nodiscard]] const std::vector<ShareNode>& nodes() const { return nodes_; }
  [[nodiscard]] const ShareNode& node(int index) const { return nodes_[index]; }
  [[nodiscard]] int model_id(const std::string& model) const;
  [[nodiscard]] std::int64_t gpu_milli_capacity() const { return gpu_milli_capacity_; }
  [[nodiscard]] std::int64_t gpu_milli_used() const { return gpu_milli_used_; }

  [[nodiscard]] bool allows_model(const ShareNode& node, const PodSpec& pod) const;
  [[nodiscard]] bool fits(int node, const PodSpec& pod) const;
  // GPUs a pod gets on a node by best fit: the fullest GPU that fits for a share, lowest-index free GPUs
  // otherwise.
  [[nodiscard]] std::vector<int> best_fit_gpus(int node, const PodSpec& pod) const;
  [[nodiscard]] std::vector<int> lowest_free_gpus(int node, int count) const;

  void set_ranks(const std::vector<int>& ranks);
  void place(const PodSpec& pod, const PodPlacement& placement);

 private:
  std::vector<ShareNode> nodes_;
  std::vector<std::string> models_;
  std::int64_t gpu_milli_capacity_ = 0;
  std::int64_t gpu_milli_used_ = 0;
};

}  // namespace gputwin
