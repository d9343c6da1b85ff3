// Whole GPUs on nodes, for replaying jobs: which are free, and gang placement of a job's GPUs on them.
//
//   GpuPool pool = GpuPool::uniform(100, 8);                  // 100 nodes of 8 GPUs, one leaf each
//   std::optional<Allocation> a = pool.allocate(12, 0);        // 12 GPUs, any split; best fit, fewest nodes
//   pool.release(*a);
//
// Placement: a job that fits on one node goes to the fullest node that can hold it (best fit, so whole nodes stay
// free for large jobs); a larger job takes whole free nodes, then the fullest partial nodes, preferring nodes
// under one leaf switch (topology-aware) when `leaves` were given. Ties go to the lowest node index. Free-GPU
// counts are kept in buckets (bitsets of nodes) so each placement costs O(GPUs per node + leaves + nodes taken),
// not O(nodes).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gputwin {

struct Allocation {
  std::vector<std::pair<int, int>> parts;  // (node, GPUs taken on it)
  int gpus = 0;
};

// A set of indices 0..n-1 as a bitset with a summary word per 64 words, so that inserting and erasing are O(1)
// and visiting members in ascending order skips empty stretches quickly.
class IndexSet {
 public:
  explicit IndexSet(int capacity = 0);
  void insert(int index);
  void erase(int index);
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] int first() const;  // the lowest member; the set must not be empty
  // Calls visit(index) in ascending order until it returns true.
  template <class Visit>
  void visit_until(Visit&& visit) const {
    for (std::size_t s = 0; s < summary_.size(); ++s) {
      for (std::uint64_t words = summary_[s]; words != 0; words &= words - 1) {
        const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(words));
        for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
          if (visit(static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits))))) return;
        }
      }
    }
  }

 private:
  std::vector<std::uint64_t> words_;
  std::vector<std::uint64_t> summary_;  // bit w set when words_[w] is not 0
  int size_ = 0;
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
  [[nodiscard]] bool has_leaves() const { return leaf_free_.size() > 1; }
  void set_free(int node, int free);
  std::optional<Allocation> allocate_on_one_node(int gpus);
  std::optional<Allocation> allocate_across_nodes(int gpus, int per_node);
  std::optional<Allocation> gather(int gpus, int per_node, int leaf) const;

  std::vector<int> capacity_;
  std::vector<int> free_;
  std::vector<int> leaf_;
  std::vector<int> leaf_free_;                 // free GPUs per leaf
  std::vector<IndexSet> nodes_by_free_;        // free GPU count -> nodes with exactly that many free
  // The same per leaf, over the leaf's own numbering of its nodes (kept only when there are several leaves).
  std::vector<std::vector<IndexSet>> leaf_nodes_by_free_;
  std::vector<std::vector<int>> leaf_members_;  // leaf -> its nodes, ascending (own number -> node)
  std::vector<int> index_in_leaf_;              // node -> its number within its leaf
  int total_gpus_ = 0;
  int free_gpus_ = 0;
  int whole_free_gpus_ = 0;
  int largest_node_ = 0;
};

}  // namespace gputwin
