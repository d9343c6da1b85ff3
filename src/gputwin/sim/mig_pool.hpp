// The MIG-mode GPUs of a replayed cluster: which slices are busy, and where the next slice of a profile goes.
//
//   MigPool pool(catalog.get<MigProfileSet>("a100-80gb"), 16);              // 16 GPUs, slices made on demand
//   MigPool fixed(set, 16, parse_mig_layout("3g.40gb+2g.20gb+1g.10gb+1g.10gb", set));  // pre-partitioned
//   MigPool racked = MigPool::on_nodes(set, /*nodes=*/2, /*gpus_per_node=*/8);  // GPUs 0-7 on node 0
//   std::optional<MigSlice> slice = pool.allocate(*mig_profile_index(set, "1g.10gb"));
//   pool.release(*slice);
//   pool.busy_compute_slices(), pool.stranded_compute_slices()              // for utilisation over time
//   racked.set_node_down(1);   // GPUs 8-15 take no slice until set_node_up(1); their slices count as down
//
// Nodes: GPU g sits on node g / gpus_per_node (the plain constructors put every GPU on one node). A node out
// of service keeps its GPUs out of placement; slices released on it (the caller interrupts the jobs on it)
// leave its GPUs idle and still out, and set_node_up brings them back as they are.
//
// Which GPU: the one where the slice strands the fewest compute slices, then the fullest (fewest usable
// slices left, so empty GPUs stay whole for 7g jobs: best fit), then the lowest index. On that GPU the start
// is MigGpu::best_start's. GPUs in the same MIG state (same instances, same busy flags) behave the same, so
// the pool keeps one MigGpu per distinct state and the GPUs in each: a placement looks at the few distinct
// states (tens to hundreds), not at every GPU, and each state's choices are computed once.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gputwin/sim/mig.hpp"

namespace gputwin {

struct MigSlice {
  int gpu = -1;
  int profile = -1;
  int start = -1;
};

class MigPool {
 public:
  // Dynamic mode: every GPU starts with no instances.
  MigPool(const MigProfileSet& set, int gpus);
  // Fixed mode: every GPU is partitioned into `layout` (from parse_mig_layout) and jobs take free instances.
  MigPool(const MigProfileSet& set, int gpus, const MigLayout& layout);
  // `nodes` x `gpus_per_node` GPUs, numbered node by node; `layout` empty: dynamic mode.
  static MigPool on_nodes(const MigProfileSet& set, int nodes, int gpus_per_node,
                          const std::optional<MigLayout>& layout = std::nullopt);

  // Places one slice of `profile`; empty when no GPU can take it now.
  std::optional<MigSlice> allocate(int profile);
  void release(const MigSlice& slice);
  // Whether an otherwise idle GPU could ever run `profile` (fixed mode: the layout has an instance of it).
  [[nodiscard]] bool can_ever_host(int profile) const;

  [[nodiscard]] const MigProfileSet& profile_set() const { return *set_; }
  [[nodiscard]] bool fixed_layout() const { return fixed_; }
  [[nodiscard]] const std::string& layout_name() const { return layout_name_; }  // empty in dynamic mode
  [[nodiscard]] int gpus() const { return static_cast<int>(state_of_gpu_.size()); }
  [[nodiscard]] int total_compute_slices() const { return gpus() * set_->compute_slices; }
  [[nodiscard]] int busy_compute_slices() const { return busy_; }
  [[nodiscard]] int usable_compute_slices() const { return usable_; }
  // Idle compute slices no job can get now (see MigGpu::stranded_compute_slices), summed over GPUs.
  // Compute slices of GPUs out of service and not busy: neither usable nor stranded.
  [[nodiscard]] int stranded_compute_slices() const {
    return total_compute_slices() - busy_ - usable_ - down_idle_slices();
  }

  [[nodiscard]] int gpus_per_node() const { return gpus_per_node_; }
  [[nodiscard]] int nodes() const { return gpus() == 0 ? 0 : (gpus() + gpus_per_node_ - 1) / gpus_per_node_; }
  [[nodiscard]] int node_of(int gpu) const { return gpu / gpus_per_node_; }
  // Takes `node`'s GPUs out of placement (a no-op when it is down); slices still busy on them stay busy until
  // released. Throws std::out_of_range for a node the pool does not have.
  void set_node_down(int node);
  void set_node_up(int node);
  [[nodiscard]] bool node_down(int node) const { return node_down_.at(static_cast<std::size_t>(node)) != 0; }
  [[nodiscard]] int down_gpus() const { return down_gpus_; }
  // Compute slices of the GPUs out of service (busy or not).
  [[nodiscard]] int down_compute_slices() const { return down_gpus_ * set_->compute_slices; }

 private:
  struct State {
    MigGpu gpu;
    int busy = 0;
    int usable = 0;
    std::set<int> gpus;              // GPUs now in this state
    std::vector<int> start_for;      // per profile: best start, -1 none, -2 not computed yet
    std::vector<int> after_placing;  // per profile: the state a placement leads to, -1 not computed yet
  };

  MigPool(const MigProfileSet& set, int gpus, const MigLayout* layout);
  int intern(const MigGpu& gpu);
  int start_for(int state, int profile);
  int after_placing(int state, int profile);
  void move_gpu(int gpu, int to_state);
  [[nodiscard]] bool gpu_down(int gpu) const {
    return node_down_[static_cast<std::size_t>(node_of(gpu))] != 0;
  }
  [[nodiscard]] int down_idle_slices() const { return down_gpus_ * set_->compute_slices - down_busy_; }

  std::shared_ptr<const MigProfileSet> set_;  // shared so MigGpu's pointer survives moves of the pool
  bool fixed_ = false;
  std::string layout_name_;
  std::vector<State> states_;
  std::map<std::string, int> state_by_key_;
  std::set<int> occupied_states_;  // states holding at least one GPU, in creation order
  std::vector<int> state_of_gpu_;
  int busy_ = 0;
  int usable_ = 0;  // of GPUs in service
  int gpus_per_node_ = 1;
  std::vector<char> node_down_;  // node -> out of service
  int down_gpus_ = 0;
  int down_busy_ = 0;  // busy compute slices on GPUs out of service
};

}  // namespace gputwin
