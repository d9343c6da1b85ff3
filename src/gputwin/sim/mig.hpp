// The Multi-Instance GPU (MIG) state of one GPU: the instances jobs take and release, under the device's
// rules (catalog/mig_rules.hpp: layouts, valid starts, the ranking of starts).
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
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/catalog/mig_rules.hpp"
#include "gputwin/catalog/parts.hpp"

namespace gputwin {

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
  // comment of catalog/mig_rules.hpp. Fixed: the free instance of that profile with the lowest start.
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
