#include "gputwin/sim/gpu_pool.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gputwin {

IndexSet::IndexSet(int capacity)
    : words_((static_cast<std::size_t>(capacity) + 63) / 64, 0), summary_((words_.size() + 63) / 64, 0) {}

void IndexSet::insert(int index) {
  const auto w = static_cast<std::size_t>(index) / 64;
  const std::uint64_t bit = std::uint64_t{1} << (index % 64);
  if ((words_[w] & bit) != 0) return;
  words_[w] |= bit;
  summary_[w / 64] |= std::uint64_t{1} << (w % 64);
  ++size_;
}

void IndexSet::erase(int index) {
  const auto w = static_cast<std::size_t>(index) / 64;
  const std::uint64_t bit = std::uint64_t{1} << (index % 64);
  if ((words_[w] & bit) == 0) return;
  words_[w] &= ~bit;
  if (words_[w] == 0) summary_[w / 64] &= ~(std::uint64_t{1} << (w % 64));
  --size_;
}

int IndexSet::first() const {
  int lowest = -1;
  visit_until([&](int index) {
    lowest = index;
    return true;
  });
  return lowest;
}

GpuPool::GpuPool(std::vector<int> gpus_per_node, std::vector<int> leaf_of_node)
    : capacity_(std::move(gpus_per_node)), leaf_(std::move(leaf_of_node)) {
  if (leaf_.empty()) leaf_.assign(capacity_.size(), 0);
  if (leaf_.size() != capacity_.size()) throw std::invalid_argument("one leaf per node");
  const int nodes = static_cast<int>(capacity_.size());
  largest_node_ = capacity_.empty() ? 0 : *std::max_element(capacity_.begin(), capacity_.end());
  nodes_by_free_.assign(largest_node_ + 1, IndexSet(nodes));
  leaf_free_.assign(leaf_.empty() ? 0 : *std::max_element(leaf_.begin(), leaf_.end()) + 1, 0);
  free_.assign(capacity_.size(), 0);
  down_.assign(capacity_.size(), 0);
  owners_on_.resize(capacity_.size());
  if (has_leaves()) {
    leaf_members_.resize(leaf_free_.size());
    index_in_leaf_.resize(capacity_.size());
    for (int n = 0; n < nodes; ++n) {
      index_in_leaf_[n] = static_cast<int>(leaf_members_[leaf_[n]].size());
      leaf_members_[leaf_[n]].push_back(n);
    }
    for (const auto& members : leaf_members_) {
      leaf_nodes_by_free_.emplace_back(largest_node_ + 1, IndexSet(static_cast<int>(members.size())));
    }
  }
  for (int n = 0; n < nodes; ++n) {
    nodes_by_free_[0].insert(n);
    if (has_leaves()) leaf_nodes_by_free_[leaf_[n]][0].insert(index_in_leaf_[n]);
    set_free(n, capacity_[n]);
    total_gpus_ += capacity_[n];
  }
}

GpuPool GpuPool::uniform(int nodes, int gpus_per_node) {
  return GpuPool(std::vector<int>(nodes, gpus_per_node), {});
}

void GpuPool::set_free(int node, int free) {
  if (down_[node] != 0) {  // out of service: not in the buckets nor the counts until it comes back
    free_[node] = free;
    return;
  }
  const int before = free_[node];
  nodes_by_free_[before].erase(node);
  nodes_by_free_[free].insert(node);
  if (has_leaves()) {
    leaf_nodes_by_free_[leaf_[node]][before].erase(index_in_leaf_[node]);
    leaf_nodes_by_free_[leaf_[node]][free].insert(index_in_leaf_[node]);
  }
  free_gpus_ += free - before;
  leaf_free_[leaf_[node]] += free - before;
  if (before == capacity_[node]) whole_free_gpus_ -= before;
  if (free == capacity_[node]) whole_free_gpus_ += free;
  free_[node] = free;
}

void GpuPool::count_node(int node, int sign) {
  const int free = free_[node];
  if (sign > 0) {
    nodes_by_free_[free].insert(node);
    if (has_leaves()) leaf_nodes_by_free_[leaf_[node]][free].insert(index_in_leaf_[node]);
  } else {
    nodes_by_free_[free].erase(node);
    if (has_leaves()) leaf_nodes_by_free_[leaf_[node]][free].erase(index_in_leaf_[node]);
  }
  free_gpus_ += sign * free;
  leaf_free_[leaf_[node]] += sign * free;
  if (free == capacity_[node]) whole_free_gpus_ += sign * free;
}

std::vector<int> GpuPool::set_node_down(int node) {
  if (down_[node] != 0) return {};
  count_node(node, -1);
  down_[node] = 1;
  ++down_count_;
  down_gpus_ += capacity_[node];
  return owners_on(node);
}

std::vector<int> GpuPool::owners_on(int node) const {
  std::vector<int> owners = owners_on_[node];
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  return owners;
}

void GpuPool::set_node_up(int node) {
  if (down_[node] == 0) return;
  down_[node] = 0;
  --down_count_;
  down_gpus_ -= capacity_[node];
  count_node(node, 1);
}

void GpuPool::remember_owner(const Allocation& allocation) {
  for (const auto& [node, take] : allocation.parts) owners_on_[node].push_back(allocation.owner);
}

void GpuPool::forget_owner(const Allocation& allocation) {
  for (const auto& [node, take] : allocation.parts) {
    std::vector<int>& owners = owners_on_[node];
    const auto found = std::find(owners.begin(), owners.end(), allocation.owner);
    if (found != owners.end()) owners.erase(found);
  }
}

std::optional<Allocation> GpuPool::allocate(int gpus, int per_node, int owner) {
  auto allocation = place(gpus, per_node);
  if (allocation && owner >= 0) {
    allocation->owner = owner;
    remember_owner(*allocation);
  }
  return allocation;
}

std::optional<Allocation> GpuPool::place(int gpus, int per_node) {
  if (gpus <= 0 || gpus > free_gpus_) return std::nullopt;
  if (per_node <= 0 && gpus <= largest_node_) {
    if (auto one = allocate_on_one_node(gpus)) return one;
  }
  return allocate_across_nodes(gpus, per_node);
}

std::optional<Allocation> GpuPool::allocate_on_one_node(int gpus) {
  for (int free = gpus; free <= largest_node_; ++free) {
    if (nodes_by_free_[free].empty()) continue;
    const int node = nodes_by_free_[free].first();  // lowest index among the fullest that fit: deterministic
    set_free(node, free - gpus);
    return Allocation{{{node, gpus}}, gpus};
  }
  return std::nullopt;
}

std::optional<Allocation> GpuPool::allocate_across_nodes(int gpus, int per_node) {
  if (per_node > 0 && gpus % per_node != 0) return std::nullopt;
  // Topology-aware: when one leaf can hold the whole job, try its nodes first (the leaf with the least free
  // room that fits, keeping emptier leaves for larger jobs); otherwise span leaves.
  int chosen_leaf = -1;
  if (has_leaves()) {
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
    const int take = per_node > 0 ? per_node : free;
    const auto take_node = [&](int node) {
      allocation.parts.emplace_back(node, std::min(take, needed));
      needed -= std::min(take, needed);
      return needed == 0;
    };
    if (leaf < 0) {
      nodes_by_free_[free].visit_until(take_node);
    } else {
      const std::vector<int>& members = leaf_members_[leaf];
      leaf_nodes_by_free_[leaf][free].visit_until([&](int index) { return take_node(members[index]); });
    }
  }
  if (needed > 0) return std::nullopt;
  allocation.gpus = gpus;
  return allocation;
}

void GpuPool::release(const Allocation& allocation) {
  if (allocation.owner >= 0) forget_owner(allocation);
  for (const auto& [node, take] : allocation.parts) set_free(node, free_[node] + take);
}

int GpuPool::leaves_used(const Allocation& allocation) const {
  if (!has_leaves()) return allocation.parts.empty() ? 0 : 1;
  std::vector<int> leaves;
  leaves.reserve(allocation.parts.size());
  for (const auto& [node, take] : allocation.parts) leaves.push_back(leaf_[node]);
  std::sort(leaves.begin(), leaves.end());
  return static_cast<int>(std::unique(leaves.begin(), leaves.end()) - leaves.begin());
}

}  // namespace gputwin
