// The Multi-Instance GPU (MIG) rules of a device, read from a catalog profile set: which instances may be
// created where, and an operator's layout parsed into placed instances.
//
//   const MigProfileSet& set = catalog.get<MigProfileSet>("a100-40gb");
//   const int profile = *mig_profile_index(set, "3g.20gb");
//   MigLayout layout = parse_mig_layout("4g.20gb+2g.10gb+1g.5gb", set);  // throws std::invalid_argument
//   bool ok = mig_can_create(set, layout.instances, profile, 4);
//   std::vector<int> starts = mig_ranked_starts(set, {}, profile);      // {4, 0}: 4 keeps 0-3 for a 4g.20gb
//
// The rules (data/catalog/mig.yaml, NVIDIA MIG User Guide): a GPU has `memory_slots` memory slots and
// `compute_slices` compute slices. An instance of a profile of `size_slots` s created at start k occupies the
// slots [k, k+s); k must be one of the profile's `start_slots`; a profile has at most `max_instances`
// instances; the compute slices of all instances add up to at most `compute_slices`.
//
// Which start is best. The starts are nested (halves, quarters, pairs), so a small instance at the wrong
// start can block the only start of a large profile: on an empty A100-40GB a 3g.20gb at 0 leaves slots 4-7,
// where only 3 more compute slices fit (one is stranded), while at 4 it leaves slots 0-3 for a 4g.20gb and
// all 7 slices stay usable. mig_ranked_starts() therefore tries every valid start and ranks the resulting
// states on, in order:
//   1. fewest stranded compute slices (free slices that no set of further instances could use);
//   2. the largest profile (in compute slices) that could still be created: large profiles have the fewest
//   starts;
//   3. the most (profile, start) creations still possible: flexibility for the jobs that come next;
//   4. the lowest start, so results are deterministic.
// The per-GPU state that jobs take and release is sim's MigGpu (sim/mig.hpp).
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

// Whether a new instance of `profile` may be created at `start` beside `instances`.
[[nodiscard]] bool mig_can_create(const MigProfileSet& set, const std::vector<MigInstance>& instances,
                                  int profile, int start);
// Every start where `profile` can be created beside `instances`, best first (the ranking above).
[[nodiscard]] std::vector<int> mig_ranked_starts(const MigProfileSet& set,
                                                 const std::vector<MigInstance>& instances, int profile);
// The most compute slices further instances could hold together beside `instances`.
[[nodiscard]] int mig_max_extra_compute(const MigProfileSet& set, const std::vector<MigInstance>& instances);

}  // namespace gputwin
