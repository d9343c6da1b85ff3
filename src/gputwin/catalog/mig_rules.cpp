#include "gputwin/catalog/mig_rules.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace gputwin {
namespace {

// What the placement rules look at: which memory slots are taken, how many instances each profile has and how
// many compute slices the instances hold. Small and copied freely while searching.
struct Occupancy {
  unsigned slots = 0;
  int compute = 0;
  std::vector<int> count;  // instances per profile
};

unsigned slot_bits(int start, int size) {
  return ((1u << size) - 1u) << start;
}

bool creatable(const MigProfileSet& set, const Occupancy& occupancy, int profile, int start) {
  const MigProfile& p = set.profiles[profile];
  if (p.size_slots <= 0 || start < 0 || start + p.size_slots > set.memory_slots) return false;
  if (std::find(p.start_slots.begin(), p.start_slots.end(), start) == p.start_slots.end()) return false;
  if ((occupancy.slots & slot_bits(start, p.size_slots)) != 0) return false;
  if (occupancy.count[profile] >= p.max_instances) return false;
  return occupancy.compute + p.compute_slices <= set.compute_slices;
}

void add(const MigProfileSet& set, Occupancy& occupancy, int profile, int start) {
  const MigProfile& p = set.profiles[profile];
  occupancy.slots |= slot_bits(start, p.size_slots);
  occupancy.compute += p.compute_slices;
  ++occupancy.count[profile];
}

void remove(const MigProfileSet& set, Occupancy& occupancy, int profile, int start) {
  const MigProfile& p = set.profiles[profile];
  occupancy.slots &= ~slot_bits(start, p.size_slots);
  occupancy.compute -= p.compute_slices;
  --occupancy.count[profile];
}

// The most compute slices further instances could hold together. New instances never overlap, so any set of
// them can be created in order of start: the search only tries starts at or after the previous one's end.
int max_extra_compute(const MigProfileSet& set, Occupancy& occupancy, int from_slot) {
  const int free = set.compute_slices - occupancy.compute;
  int best = 0;
  for (int profile = 0; profile < static_cast<int>(set.profiles.size()) && best < free; ++profile) {
    const MigProfile& p = set.profiles[profile];
    for (const int start : p.start_slots) {
      if (start < from_slot || !creatable(set, occupancy, profile, start)) continue;
      add(set, occupancy, profile, start);
      best = std::max(best, p.compute_slices + max_extra_compute(set, occupancy, start + p.size_slots));
      remove(set, occupancy, profile, start);
      if (best >= free) break;
    }
  }
  return best;
}

// How good a state is for the jobs to come; larger is better (ranks 1-3 of the rule in mig_rules.hpp).
struct FutureRoom {
  int stranded = 0;
  int largest_profile = 0;
  int creations = 0;
  bool operator>(const FutureRoom& other) const {
    return std::tuple(-stranded, largest_profile, creations) >
           std::tuple(-other.stranded, other.largest_profile, other.creations);
  }
};

FutureRoom future_room(const MigProfileSet& set, Occupancy& occupancy) {
  FutureRoom room;
  room.stranded = set.compute_slices - occupancy.compute - max_extra_compute(set, occupancy, 0);
  for (int profile = 0; profile < static_cast<int>(set.profiles.size()); ++profile) {
    for (const int start : set.profiles[profile].start_slots) {
      if (!creatable(set, occupancy, profile, start)) continue;
      ++room.creations;
      room.largest_profile = std::max(room.largest_profile, set.profiles[profile].compute_slices);
    }
  }
  return room;
}

Occupancy occupancy_of(const MigProfileSet& set, const std::vector<MigInstance>& instances) {
  Occupancy occupancy;
  occupancy.count.assign(set.profiles.size(), 0);
  for (const auto& instance : instances) add(set, occupancy, instance.profile, instance.start);
  return occupancy;
}

// Every start where `profile` can be created, best first (the rule in mig_rules.hpp).
std::vector<int> ranked_starts(const MigProfileSet& set, Occupancy occupancy, int profile) {
  std::vector<std::pair<FutureRoom, int>> candidates;
  for (const int start : set.profiles[profile].start_slots) {
    if (!creatable(set, occupancy, profile, start)) continue;
    add(set, occupancy, profile, start);
    candidates.emplace_back(future_room(set, occupancy), start);
    remove(set, occupancy, profile, start);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return a.first > b.first || (!(b.first > a.first) && a.second < b.second);
  });
  std::vector<int> starts;
  for (const auto& [room, start] : candidates) starts.push_back(start);
  return starts;
}

// ---------------------------------------------------------------------------------------------------------------
// Layouts

struct LayoutEntry {
  int profile = 0;
  int pinned_start = -1;  // -1: any valid start
};

// "3g.20gb+1g.5gb+me@6" -> ["3g.20gb", "1g.5gb+me@6"]: a "+" followed by a word without a '.' continues the
// previous profile name (the "+me" media-extension profiles), any other "+" separates instances.
std::vector<std::string> layout_tokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t plus = std::min(text.find('+', begin), text.size());
    std::string part(text.substr(begin, plus - begin));
    const bool suffix = !tokens.empty() && !part.empty() && part.find('.') == std::string::npos &&
                        (part[0] < '0' || part[0] > '9');
    if (suffix) {
      tokens.back() += "+" + part;
    } else {
      tokens.push_back(part);
    }
    begin = plus + 1;
  }
  return tokens;
}

LayoutEntry layout_entry(const std::string& token, const MigProfileSet& set, std::string_view layout) {
  const std::size_t at = token.find('@');
  const std::string name = token.substr(0, at);
  const auto profile = mig_profile_index(set, name);
  if (!profile) {
    throw std::invalid_argument("'" + std::string(layout) + "': '" + name + "' is not a MIG profile of " +
                                set.info.id + "; its profiles are " + mig_profile_names(set));
  }
  if (set.profiles[*profile].size_slots <= 0) {
    throw std::invalid_argument("'" + std::string(layout) + "': the catalog publishes no placements for " +
                                name + " in " + set.info.id);
  }
  LayoutEntry entry{*profile, -1};
  if (at != std::string::npos) {
    const std::string start = token.substr(at + 1);
    if (start.empty() || start.find_first_not_of("0123456789") != std::string::npos || start.size() > 2) {
      throw std::invalid_argument("'" + std::string(layout) + "': expected a start slot after '@' in '" +
                                  token + "'");
    }
    entry.pinned_start = std::stoi(start);
  }
  return entry;
}

// Checks what does not depend on starts: instance counts, compute slices, memory slots.
void check_layout_totals(const std::vector<LayoutEntry>& entries, const MigProfileSet& set,
                         std::string_view text) {
  std::vector<int> count(set.profiles.size(), 0);
  int compute = 0;
  int slots = 0;
  for (const auto& entry : entries) {
    const MigProfile& p = set.profiles[entry.profile];
    compute += p.compute_slices;
    slots += p.size_slots;
    if (++count[entry.profile] > p.max_instances) {
      throw std::invalid_argument("'" + std::string(text) + "': at most " + std::to_string(p.max_instances) +
                                  " " + p.name + " instance(s) fit one " + set.info.id + " GPU");
    }
  }
  if (compute > set.compute_slices) {
    throw std::invalid_argument("'" + std::string(text) + "': needs " + std::to_string(compute) +
                                " compute slices; one " + set.info.id + " GPU has " +
                                std::to_string(set.compute_slices));
  }
  if (slots > set.memory_slots) {
    throw std::invalid_argument("'" + std::string(text) + "': needs " + std::to_string(slots) +
                                " memory slots; one " + set.info.id + " GPU has " +
                                std::to_string(set.memory_slots));
  }
}

// Backtracking over the entries' starts (pinned ones first, then large before small), best-ranked start
// first.
bool assign_starts(const MigProfileSet& set, const std::vector<LayoutEntry>& entries, std::size_t next,
                   Occupancy& occupancy, std::vector<MigInstance>& placed) {
  if (next == entries.size()) return true;
  const LayoutEntry& entry = entries[next];
  std::vector<int> starts = ranked_starts(set, occupancy, entry.profile);
  if (entry.pinned_start >= 0) {
    starts.assign(creatable(set, occupancy, entry.profile, entry.pinned_start) ? 1 : 0, entry.pinned_start);
  }
  for (const int start : starts) {
    add(set, occupancy, entry.profile, start);
    placed.push_back({entry.profile, start, false});
    if (assign_starts(set, entries, next + 1, occupancy, placed)) return true;
    placed.pop_back();
    remove(set, occupancy, entry.profile, start);
  }
  return false;
}

std::string starts_text(const MigProfile& profile) {
  std::string text;
  for (const int start : profile.start_slots) text += (text.empty() ? "" : "|") + std::to_string(start);
  return text;
}

}  // namespace

std::optional<int> mig_profile_index(const MigProfileSet& set, std::string_view name) {
  for (std::size_t p = 0; p < set.profiles.size(); ++p) {
    if (set.profiles[p].name == name) return static_cast<int>(p);
  }
  return std::nullopt;
}

std::string mig_profile_names(const MigProfileSet& set) {
  std::string names;
  for (const auto& profile : set.profiles) names += (names.empty() ? "" : ", ") + profile.name;
  return names;
}

MigLayout parse_mig_layout(std::string_view text, const MigProfileSet& set) {
  std::vector<LayoutEntry> entries;
  for (const auto& token : layout_tokens(text)) {
    if (token.empty()) throw std::invalid_argument("'" + std::string(text) + "': empty profile name");
    entries.push_back(layout_entry(token, set, text));
  }
  check_layout_totals(entries, set, text);
  std::stable_sort(entries.begin(), entries.end(), [&](const LayoutEntry& a, const LayoutEntry& b) {
    const auto rank = [&](const LayoutEntry& e) {
      return std::tuple(e.pinned_start < 0, -set.profiles[e.profile].size_slots,
                        -set.profiles[e.profile].compute_slices);
    };
    return rank(a) < rank(b);
  });
  Occupancy occupancy = occupancy_of(set, {});
  MigLayout layout{std::string(text), {}};
  if (!assign_starts(set, entries, 0, occupancy, layout.instances)) {
    std::string starts;
    for (const auto& entry : entries) {
      const MigProfile& p = set.profiles[entry.profile];
      starts += (starts.empty() ? "" : ", ") + p.name + " at " +
                (entry.pinned_start >= 0 ? std::to_string(entry.pinned_start) : starts_text(p));
    }
    throw std::invalid_argument("'" + std::string(text) + "': no valid placement on one " + set.info.id +
                                " GPU (" + starts + "; each occupies its slots from its start)");
  }
  std::sort(layout.instances.begin(), layout.instances.end(),
            [](const MigInstance& a, const MigInstance& b) { return a.start < b.start; });
  return layout;
}

bool mig_can_create(const MigProfileSet& set, const std::vector<MigInstance>& instances, int profile,
                    int start) {
  return creatable(set, occupancy_of(set, instances), profile, start);
}

std::vector<int> mig_ranked_starts(const MigProfileSet& set, const std::vector<MigInstance>& instances,
                                   int profile) {
  return ranked_starts(set, occupancy_of(set, instances), profile);
}

int mig_max_extra_compute(const MigProfileSet& set, const std::vector<MigInstance>& instances) {
  Occupancy occupancy = occupancy_of(set, instances);
  return max_extra_compute(set, occupancy, 0);
}

}  // namespace gputwin
