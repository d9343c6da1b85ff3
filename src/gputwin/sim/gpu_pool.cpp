#include "gputwin/sim/gpu_pool.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gputwin {

GpuPool::GpuPool(std::vector<int> gpus_per_node, std::vector<int> leaf_of_node)
    : capacity_(std::move(gpus_per_node)), leaf_(std::move(leaf_of_node)) {
  if (leaf_.empty()) leaf_.assign(capacity_.size(), 0);
  if (leaf_.size() != capacity_.size()) throw std::invalid_argument("one leaf per node");
  largest_node_ = capacity_.empty() ? 0 : *std::max_element(capacity_.begin(), capacity_.end());
  nodes_by_free_.resize(largest_node_ + 1);
  leaf_free_.assign(leaf_.empty() ? 0 : *std::max_element(leaf_.begin(), leaf_.end()) + 1, 0);
  free_.assign(capacity_.size(), 0);
  leaf_nodes_by_free_.assign(leaf_free_.size(), std::vector<std::set<int>>(largest_node_ + 1));
  for (std::size_t n = 0; n < capacity_.size(); ++n) {
    nodes_by_free_[0].insert(static_cast<int>(n));
    leaf_nodes_by_free_[leaf_[n]][0].insert(static_cast<int>(n));
    set_free(static_cast<int>(n), capacity_[n]);
    total_gpus_ += capacity_[n];
  }
}

GpuPool GpuPool::uniform(int nodes, int gpus_per_node) {
  return GpuPool(std::vector<int>(nodes, gpus_per_node), {});
}

void GpuPool::set_free(int node, int free) {
  const int before = free_[node];
  nodes_by_free_[before].erase(node);
  nodes_by_free_[free].insert(node);
  leaf_nodes_by_free_[leaf_[node]][before].erase(node);
  leaf_nodes_by_free_[leaf_[node]][free].insert(node);
  free_gpus_ += free - before;
  leaf_free_[leaf_[node]] += free - before;
  if (before == capacity_[node]) whole_free_gpus_ -= before;
  if (free == capacity_[node]) whole_free_gpus_ += free;
  free_[node] = free;
}

std::optional<Allocation> GpuPool::allocate(int gpus, int per_node) {
  if (gpus <= 0 || gpus > free_gpus_) return std::nullopt;
  if (per_node <= 0 && gpus <= largest_node_) {
    if (auto one = allocate_on_one_node(gpus)) return one;
  }
  return allocate_across_nodes(gpus, per_node);
}

std::optional<Allocation> GpuPool::allocate_on_one_node(int gpus) {
  for (int free = gpus; free <= largest_node_; ++free) {
    if (nodes_by_free_[free].empty()) continue;
    const int node = *nodes_by_free_[free].begin();  // lowest index among the fullest that fit: deterministic
    set_free(node, free - gpus);
    return Allocation{{{node, gpus}}, gpus};
  }
  return std::nullopt;
}

std::optional<Allocation> GpuPool::allocate_across_nodes(int gpus, int per_node) {
  if (per_node > 0 && gpus % per_node != 0) return std::nullopt;
  // Topology-aware: when one leaf can hold the whole job, try its nodes first (the leaf with the least free room
  // that fits, keeping emptier leaves for larger jobs); otherwise span leaves.
  int chosen_leaf = -1;
  if (leaf_free_.size() > 1) {
    for (std::size_t leaf = 0; leaf < leaf_free_.size(); ++leaf) {
      if (leaf_free_[leaf] >= gpus && (chosen_leaf < 0 || leaf_free_[leaf] < leaf_free_[chosen_leaf])) {
        chosen_leaf = static_cast<int>(leaf);
      }
    }
  }
  std::optional<Allocation> allocation;
  if (chosen_leaf >= 0) allocation = gather(gpus, per_node, chosen_leaf);
  if (!allocation) allocation = gather(gpus, per_node, -1);
  if (!allocation) return std::nullopt;
  for (const auto& [node, take] : allocation->parts) set_free(node, free_[node] - take);
  return allocation;
}

// Whole free nodes first, then the fullest partial nodes; only nodes of `leaf` unless it is -1.
std::optional<Allocation> GpuPool::gather(int gpus, int per_node, int leaf) const {
  Allocation allocation;
  int needed = gpus;
  for (int free = largest_node_; free >= std::max(1, per_node) && needed > 0; --free) {
    for (const int node : leaf >= 0 ? leaf_nodes_by_free_[leaf][free] : nodes_by_free_[free]) {
      const int take = per_node > 0 ? per_node : std::min(free, needed);
      allocation.parts.emplace_back(node, take);
      needed -= take;
      if (needed == 0) break;
    }
  }
  if (needed > 0) return std::nullopt;
  allocation.gpus = gpus;
  return allocation;
}

void GpuPool::release(const Allocation& allocation) {
  for (const auto& [node, take] : allocation.parts) set_free(node, free_[node] + take);
}

int GpuPool::leaves_used(const Allocation& allocation) const {
  std::set<int> leaves;
  for (const auto& [node, take] : allocation.parts) leaves.insert(leaf_[node]);
  return static_cast<int>(leaves.size());
}

}  // namespace gputwin
