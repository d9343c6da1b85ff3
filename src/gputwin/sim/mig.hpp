// The Multi-Instance GPU (MIG) state of one GPU and its placement rules, read from a catalog profile set.
//
//   const MigProfileSet& set = catalog.get<MigProfileSet>("a100-40gb");
//   MigGpu gpu(set);                                         // dynamic: instances are created on demand
//   const int profile = *mig_profile_index(set, "3g.20gb");
//   std::optional<int> start = gpu.best_start(profile);     // 4: keeps slots 0-3 free for a 4g.20gb
//   gpu.place(profile, *start);
//   gpu.release(profile, *start);
//
//   MigLayout layout = parse_mig_layout("4g.20gb+2g.10gb+1g.5gb", set);  // throws std::invalid_argument
//   MigGpu partitioned(set, layout);     // fixed: jobs only take a free instance of the layout
//
// The rules (data/catalog/mig.yaml, NVIDIA MIG User Guide): a GPU has `memory_slots` memory slots and
// `compute_slices` compute slices. An instance of a profile of `size_slots` s created at start k occupies the
// slots [k, k+s); k must be one of the profile's `start_slots`; a profile has at most `max_instances`
// instances; the compute slices of all instances add up to at most `compute_slices`.
//
// Which start (dynamic mode). The starts are nested (halves, quarters, pairs), so a small instance at the
// wrong start can block the only start of a large profile: on an empty A100-40GB a 3g.20gb at 0 leaves slots
// 4-7, where only 3 more compute slices fit (one is stranded), while at 4 it leaves slots 0-3 for a 4g.20gb
// and all 7 slices stay usable. best_start() therefore tries every valid start and keeps the one whose
// resulting state ranks first on, in order:
//   1. fewest stranded compute slices (free slices that no set of further instances could use);
//   2. the largest profile (in compute slices) that could still be created: large profiles have the fewest
//   starts;
//   3. the most (profile, start) creations still possible: flexibility for the jobs that come next;
//   4. the lowest start, so results are deterministic.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/catalog/parts.hpp"

namespace gputwin {

// One GPU instance: a profile (index into MigProfileSet::profiles) at a start slot.
struct MigInstance {
  int profile = 0;
  int start = 0;
  bool busy = false;  // holds a job; in dynamic mode every instance is busy (it exists only while used)
  bool operator==(const MigInstance&) const = default;
};

// An operator's partition of a GPU: the instances it is split into before any job arrives.
struct MigLayout {
  std::string name;                    // as written, e.g. "3g.20gb+2g.10gb+1g.5gb+1g.5gb"
  std::vector<MigInstance> instances;  // sorted by start, none busy
};

[[nodiscard]] std::optional<int> mig_profile_index(const MigProfileSet& set, std::string_view name);
// "1g.5gb, 1g.5gb+me, ..." for messages.
[[nodiscard]] std::string mig_profile_names(const MigProfileSet& set);

// Parses "name+name+..." (a profile name may end in "+me"; "name@start" pins a start) and finds starts for
// all instances that obey the rules. Throws std::invalid_argument saying what is wrong: an unknown profile,
// more instances of a profile than allowed, more compute slices than the GPU has, or no valid placement.
[[nodiscard]] MigLayout parse_mig_layout(std::string_view text, const MigProfileSet& set);

class MigGpu {
 public:
  // Dynamic mode. `set` must outlive the MigGpu.
  explicit MigGpu(const MigProfileSet& set);
  // Fixed mode: the layout's instances exist from the start and are never removed.
  MigGpu(const MigProfileSet& set, const MigLayout& layout);

  [[nodiscard]] bool fixed_layout() const { return fixed_; }
  // Whether a new instance of `profile` may be created at `start` now (dynamic rules; false in fixed mode).
  [[nodiscard]] bool can_create(int profile, int start) const;
  // Where place() would put `profile` now; empty when it cannot be placed. Dynamic: the rule in the header
  // comment. Fixed: the free instance of that profile with the lowest start.
  [[nodiscard]] std::optional<int> best_start(int profile) const;
  // Starts a job on `profile` at `start` (creating the instance in dynamic mode). Throws std::logic_error
  // when that is not allowed: callers ask best_start() or can_create() first.
  void place(int profile, int start);
  // Ends the job on the instance of `profile` at `start` (destroying it in dynamic mode).
  void release(int profile, int start);

  [[nodiscard]] int total_compute_slices() const { return set_->compute_slices; }
  [[nodiscard]] int busy_compute_slices() const;
  // Compute slices a next job could still get: dynamic, what further instances could use; fixed, free
  // instances.
  [[nodiscard]] int usable_compute_slices() const;
  // Idle compute slices no job can get now: total - busy - usable.
  [[nodiscard]] int stranded_compute_slices() const;
  [[nodiscard]] const std::vector<MigInstance>& instances() const { return instances_; }
  // Equal keys mean equal states (same instances, same busy flags): the pool groups GPUs by it.
  [[nodiscard]] std::string key() const;

 private:
  [[nodiscard]] std::optional<int> best_new_start(int profile) const;
  [[nodiscard]] int compute_placeable_beyond() const;

  const MigProfileSet* set_;
  bool fixed_ = false;
  std::vector<MigInstance> instances_;  // sorted by start
};

}  // namespace gputwin
