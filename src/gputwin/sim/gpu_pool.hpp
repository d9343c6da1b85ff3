// Whole GPUs on nodes, for replaying jobs: which are free, and gang placement of a job's GPUs on them.
//
//   GpuPool pool = GpuPool::uniform(100, 8);                  // 100 nodes of 8 GPUs, one leaf each
//   std::optional<Allocation> a = pool.allocate(12, 0);        // 12 GPUs, any split; best fit, fewest nodes
//   pool.release(*a);
//
// Placement: a job that fits on one node goes to the fullest node that can hold it (best fit, so whole nodes stay
// free for large jobs); a larger job takes whole free nodes, then the fullest partial nodes, preferring nodes
// under one leaf switch (topology-aware) when `leaves` were given. Free-GPU counts are kept in buckets so each
// placement costs O(GPUs per node + leaves), not O(nodes).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace gputwin {

struct Allocation {
  std::vector<std::pair<int, int>> parts;  // (node, GPUs taken on it)
  int gpus = 0;
};

class GpuPool {
 public:
  // `leaf_of_node` groups nodes under leaf switches (topology); empty = one group.
  GpuPool(std::vector<int> gpus_per_node, std::vector<int> leaf_of_node);
  static GpuPool uniform(int nodes, int gpus_per_node);

  // Places `gpus` GPUs; `per_node` > 0 forces that many on each node. Empty when they do not fit now.
  std::optional<Allocation> allocate(int gpus, int per_node);
  void release(const Allocation& allocation);

  [[nodiscard]] int total_gpus() const { return total_gpus_; }
  [[nodiscard]] int free_gpus() const { return free_gpus_; }
  [[nodiscard]] int largest_node() const { return largest_node_; }
  [[nodiscard]] int node_count() const { return static_cast<int>(free_.size()); }
  [[nodiscard]] int free_on(int node) const { return free_[node]; }
  // Free GPUs on nodes that are partly in use: capacity a whole-node job cannot use.
  [[nodiscard]] int stranded_gpus() const { return free_gpus_ - whole_free_gpus_; }
  [[nodiscard]] int leaves_used(const Allocation& allocation) const;

 private:
  void set_free(int node, int free);
  std::optional<Allocation> allocate_on_one_node(int gpus);
  std::optional<Allocation> allocate_across_nodes(int gpus, int per_node);
  std::optional<Allocation> gather(int gpus, int per_node, int leaf) const;

  std::vector<int> capacity_;
  std::vector<int> free_;
  std::vector<int> leaf_;
  std::vector<int> leaf_free_;               // free GPUs per leaf
  std::vector<std::set<int>> nodes_by_free_;  // free GPU count -> nodes with exactly that many free
  std::vector<std::vector<std::set<int>>> leaf_nodes_by_free_;  // the same, per leaf
  int total_gpus_ = 0;
  int free_gpus_ = 0;
  int whole_free_gpus_ = 0;
  int largest_node_ = 0;
};

}  // namespace gputwin
