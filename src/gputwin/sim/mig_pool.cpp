#include "gputwin/sim/mig_pool.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace gputwin {

MigPool::MigPool(const MigProfileSet& set, int gpus, const MigLayout* layout)
    : set_(std::make_shared<const MigProfileSet>(set)),
      fixed_(layout != nullptr),
      layout_name_(layout != nullptr ? layout->name : ""),
      gpus_per_node_(std::max(1, gpus)) {
  if (gpus < 0) throw std::invalid_argument("MigPool: negative GPU count");
  const int state = intern(layout != nullptr ? MigGpu(*set_, *layout) : MigGpu(*set_));
  state_of_gpu_.assign(static_cast<std::size_t>(gpus), state);
  for (int gpu = 0; gpu < gpus; ++gpu) states_[state].gpus.insert(gpu);
  if (gpus > 0) occupied_states_.insert(state);
  usable_ = states_[state].usable * gpus;
  node_down_.assign(static_cast<std::size_t>(nodes()), 0);
}

MigPool::MigPool(const MigProfileSet& set, int gpus) : MigPool(set, gpus, nullptr) {}

MigPool::MigPool(const MigProfileSet& set, int gpus, const MigLayout& layout) : MigPool(set, gpus, &layout) {}

MigPool MigPool::on_nodes(const MigProfileSet& set, int nodes, int gpus_per_node,
                          const std::optional<MigLayout>& layout) {
  if (nodes < 0 || gpus_per_node <= 0)
    throw std::invalid_argument("MigPool: bad node count or GPUs per node");
  MigPool pool(set, nodes * gpus_per_node, layout ? &*layout : nullptr);
  pool.gpus_per_node_ = gpus_per_node;
  pool.node_down_.assign(static_cast<std::size_t>(nodes), 0);
  return pool;
}

int MigPool::intern(const MigGpu& gpu) {
  const auto [found, added] = state_by_key_.try_emplace(gpu.key(), static_cast<int>(states_.size()));
  if (!added) return found->second;
  State state{gpu, gpu.busy_compute_slices(), gpu.usable_compute_slices(), {}, {}, {}};
  state.start_for.assign(set_->profiles.size(), -2);
  state.after_placing.assign(set_->profiles.size(), -1);
  states_.push_back(std::move(state));
  return found->second;
}

int MigPool::start_for(int state, int profile) {
  int& start = states_[state].start_for[profile];
  if (start == -2) start = states_[state].gpu.best_start(profile).value_or(-1);
  return start;
}

int MigPool::after_placing(int state, int profile) {
  if (states_[state].after_placing[profile] >= 0) return states_[state].after_placing[profile];
  MigGpu next = states_[state].gpu;
  next.place(profile, start_for(state, profile));
  const int next_state = intern(next);  // may grow states_: index again below
  states_[state].after_placing[profile] = next_state;
  return next_state;
}

// A GPU out of service changes state (its slices are released) without joining the placeable GPUs.
void MigPool::move_gpu(int gpu, int to_state) {
  const int from_state = state_of_gpu_[gpu];
  if (gpu_down(gpu)) {
    const int busy_change = states_[to_state].busy - states_[from_state].busy;
    busy_ += busy_change;
    down_busy_ += busy_change;
    state_of_gpu_[gpu] = to_state;
    return;
  }
  State& from = states_[from_state];
  from.gpus.erase(gpu);
  if (from.gpus.empty()) occupied_states_.erase(from_state);
  busy_ += states_[to_state].busy - from.busy;
  usable_ += states_[to_state].usable - from.usable;
  states_[to_state].gpus.insert(gpu);
  occupied_states_.insert(to_state);
  state_of_gpu_[gpu] = to_state;
}

std::optional<MigSlice> MigPool::allocate(int profile) {
  if (profile < 0 || profile >= static_cast<int>(set_->profiles.size())) return std::nullopt;
  int best_state = -1;
  std::tuple<int, int, int> best_rank;
  const std::vector<int> candidates(occupied_states_.begin(),
                                    occupied_states_.end());  // interning may add states
  for (const int state : candidates) {
    if (start_for(state, profile) < 0) continue;
    const State& next = states_[after_placing(state, profile)];
    const int stranded = set_->compute_slices - next.busy - next.usable;
    const std::tuple rank(stranded, next.usable, *states_[state].gpus.begin());
    if (best_state < 0 || rank < best_rank) {
      best_state = state;
      best_rank = rank;
    }
  }
  if (best_state < 0) return std::nullopt;
  const MigSlice slice{*states_[best_state].gpus.begin(), profile, start_for(best_state, profile)};
  move_gpu(slice.gpu, after_placing(best_state, profile));
  return slice;
}

void MigPool::release(const MigSlice& slice) {
  MigGpu next = states_[state_of_gpu_.at(static_cast<std::size_t>(slice.gpu))].gpu;
  next.release(slice.profile, slice.start);
  move_gpu(slice.gpu, intern(next));
}

void MigPool::set_node_down(int node) {
  if (node_down_.at(static_cast<std::size_t>(node)) != 0) return;
  const int first = node * gpus_per_node_;
  const int last = std::min(gpus(), first + gpus_per_node_);
  for (int gpu = first; gpu < last; ++gpu) {
    const int s = state_of_gpu_[gpu];
    State& state = states_[s];
    state.gpus.erase(gpu);
    if (state.gpus.empty()) occupied_states_.erase(s);
    usable_ -= state.usable;
    down_busy_ += state.busy;
  }
  node_down_[static_cast<std::size_t>(node)] = 1;
  down_gpus_ += last - first;
}

void MigPool::set_node_up(int node) {
  if (node_down_.at(static_cast<std::size_t>(node)) == 0) return;
  node_down_[static_cast<std::size_t>(node)] = 0;
  const int first = node * gpus_per_node_;
  const int last = std::min(gpus(), first + gpus_per_node_);
  for (int gpu = first; gpu < last; ++gpu) {
    const int s = state_of_gpu_[gpu];
    State& state = states_[s];
    state.gpus.insert(gpu);
    occupied_states_.insert(s);
    usable_ += state.usable;
    down_busy_ -= state.busy;
  }
  down_gpus_ -= last - first;
}

bool MigPool::can_ever_host(int profile) const {
  if (profile < 0 || profile >= static_cast<int>(set_->profiles.size())) return false;
  const MigGpu idle = fixed_ ? states_.front().gpu : MigGpu(*set_);  // state 0 is the idle layout
  return idle.best_start(profile).has_value();
}

}  // namespace gputwin
