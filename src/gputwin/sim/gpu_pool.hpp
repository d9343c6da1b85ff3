// Whole GPUs on nodes, for replaying jobs: which are free, and gang placement of a job's GPUs on them.
//
//   GpuPool pool = GpuPool::uniform(100, 8);                  // 100 nodes of 8 GPUs, one leaf each
//   std::optional<Allocation> a = pool.allocate(12, 0);        // 12 GPUs, any split; best fit, fewest nodes
//   pool.release(*a);
//   auto b = pool.allocate(8, 0, /*owner=*/17);   // tagged: the pool knows who holds it
//   std::vector<int> hit = pool.set_node_down(3);  // owners with GPUs on node 3 (the caller releases them)
//   pool.set_node_up(3);                           // back in service, its idle GPUs placeable again
//
// Placement: a job that fits on one node goes to the fullest node that can hold it (best fit, so whole nodes
// stay free for large jobs); a larger job takes whole free nodes, then the fullest partial nodes, preferring
// nodes under one leaf switch (topology-aware) when `leaves` were given. Ties go to the lowest node index.
// Free-GPU counts are kept in buckets (bitsets of nodes) so each placement costs O(GPUs per node + leaves +
// nodes taken), not O(nodes).
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
  // The caller's tag (the replay: the job index); -1 = untracked, and set_node_down cannot name it.
  int owner = -1;
};

// A set of indices 0..n-1 as a bitset with a summary word per 64 words, so that inserting and erasing are
// O(1) and visiting members in ascending order skips empty stretches quickly.
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

  // Places `gpus` GPUs; `per_node` > 0 forces that many on each node. Empty when they do not fit now. An
  // `owner` >= 0 is remembered on every node the allocation touches, so set_node_down can name it.
  std::optional<Allocation> allocate(int gpus, int per_node, int owner = -1);
  void release(const Allocation& allocation);

  // Takes `node` out of service: its GPUs are no longer placed and no longer count as free. Returns the
  // owners of the allocations with GPUs on it (ascending, each once); the caller decides what happens to them
  // and releases them (GPUs released on a down node stay out of service). Taking a down node down is a no-op
  // that returns nothing.
  std::vector<int> set_node_down(int node);
  // Brings `node` back: its idle GPUs are placeable again (allocations still on it keep their GPUs).
  void set_node_up(int node);
  [[nodiscard]] bool node_down(int node) const { return down_[node] != 0; }
  // The owners of the tracked allocations with GPUs on `node` (ascending, each once), the node left as it is.
  [[nodiscard]] std::vector<int> owners_on(int node) const;
  [[nodiscard]] int down_nodes() const { return down_count_; }
  [[nodiscard]] int down_gpus() const { return down_gpus_; }  // installed GPUs on nodes out of service

  [[nodiscard]] int total_gpus() const { return total_gpus_; }
  [[nodiscard]] int free_gpus() const { return free_gpus_; }  // idle GPUs on nodes in service
  [[nodiscard]] int largest_node() const { return largest_node_; }
  [[nodiscard]] int node_count() const { return static_cast<int>(free_.size()); }
  [[nodiscard]] int free_on(int node) const { return free_[node]; }
  [[nodiscard]] int node_gpus(int node) const { return capacity_[node]; }
  [[nodiscard]] int leaf_of(int node) const { return leaf_.empty() ? 0 : leaf_[node]; }
  // Free GPUs on nodes that are partly in use: capacity a whole-node job cannot use.
  [[nodiscard]] int stranded_gpus() const { return free_gpus_ - whole_free_gpus_; }
  [[nodiscard]] int leaves_used(const Allocation& allocation) const;

 private:
  [[nodiscard]] bool has_leaves() const { return leaf_free_.size() > 1; }
  std::optional<Allocation> place(int gpus, int per_node);
  void set_free(int node, int free);
  // Adds (sign 1) or removes (sign -1) a node's idle GPUs from the placement buckets and the free counts.
  void count_node(int node, int sign);
  void remember_owner(const Allocation& allocation);
  void forget_owner(const Allocation& allocation);
  std::optional<Allocation> allocate_on_one_node(int gpus);
  std::optional<Allocation> allocate_across_nodes(int gpus, int per_node);
  std::optional<Allocation> gather(int gpus, int per_node, int leaf) const;

  std::vector<int> capacity_;
  std::vector<int> free_;
  std::vector<int> leaf_;
  std::vector<int> leaf_free_;           // free GPUs per leaf
  std::vector<IndexSet> nodes_by_free_;  // free GPU count -> nodes with exactly that many free
  // The same per leaf, over the leaf's own numbering of its nodes (kept only when there are several leaves).
  std::vector<std::vector<IndexSet>> leaf_nodes_by_free_;
  std::vector<std::vector<int>> leaf_members_;  // leaf -> its nodes, ascending (own number -> node)
  std::vector<int> index_in_leaf_;              // node -> its number within its leaf
  std::vector<std::vector<int>> owners_on_;     // node -> owners of the tracked allocations on it
  std::vector<char> down_;                      // node -> out of service
  int down_count_ = 0;
  int down_gpus_ = 0;
  int total_gpus_ = 0;
  int free_gpus_ = 0;
  int whole_free_gpus_ = 0;
  int largest_node_ = 0;
};

}  // namespace gputwin
