#include "gputwin/sim/mig.hpp"

#include <algorithm>
#include <stdexcept>

namespace gputwin {

MigGpu::MigGpu(const MigProfileSet& set) : set_(&set) {}

MigGpu::MigGpu(const MigProfileSet& set, const MigLayout& layout)
    : set_(&set), fixed_(true), instances_(layout.instances) {
  for (auto& instance : instances_) instance.busy = false;
}

bool MigGpu::can_create(int profile, int start) const {
  if (fixed_ || profile < 0 || profile >= static_cast<int>(set_->profiles.size())) return false;
  return mig_can_create(*set_, instances_, profile, start);
}

std::optional<int> MigGpu::best_new_start(int profile) const {
  const std::vector<int> starts = mig_ranked_starts(*set_, instances_, profile);
  if (starts.empty()) return std::nullopt;
  return starts.front();
}

std::optional<int> MigGpu::best_start(int profile) const {
  if (profile < 0 || profile >= static_cast<int>(set_->profiles.size())) return std::nullopt;
  if (!fixed_) return best_new_start(profile);
  for (const auto& instance : instances_) {  // sorted by start: the first free one is the lowest
    if (instance.profile == profile && !instance.busy) return instance.start;
  }
  return std::nullopt;
}

void MigGpu::place(int profile, int start) {
  if (fixed_) {
    for (auto& instance : instances_) {
      if (instance.profile == profile && instance.start == start && !instance.busy) {
        instance.busy = true;
        return;
      }
    }
    throw std::logic_error("MigGpu::place: no free instance of that profile at that start");
  }
  if (!can_create(profile, start))
    throw std::logic_error("MigGpu::place: the MIG rules forbid that instance");
  const MigInstance instance{profile, start, true};
  instances_.insert(
      std::upper_bound(instances_.begin(), instances_.end(), instance,
                       [](const MigInstance& a, const MigInstance& b) { return a.start < b.start; }),
      instance);
}

void MigGpu::release(int profile, int start) {
  const auto found = std::find_if(instances_.begin(), instances_.end(), [&](const MigInstance& i) {
    return i.profile == profile && i.start == start && i.busy;
  });
  if (found == instances_.end())
    throw std::logic_error("MigGpu::release: no busy instance of that profile there");
  if (fixed_) {
    found->busy = false;
    return;
  }
  instances_.erase(found);
}

int MigGpu::busy_compute_slices() const {
  int busy = 0;
  for (const auto& instance : instances_)
    busy += instance.busy ? set_->profiles[instance.profile].compute_slices : 0;
  return busy;
}

int MigGpu::compute_placeable_beyond() const {
  return mig_max_extra_compute(*set_, instances_);
}

int MigGpu::usable_compute_slices() const {
  if (!fixed_) return compute_placeable_beyond();
  int usable = 0;
  for (const auto& instance : instances_)
    usable += instance.busy ? 0 : set_->profiles[instance.profile].compute_slices;
  return usable;
}

int MigGpu::stranded_compute_slices() const {
  return total_compute_slices() - busy_compute_slices() - usable_compute_slices();
}

std::string MigGpu::key() const {
  std::string key = fixed_ ? "F" : "D";
  for (const auto& instance : instances_) {
    key += std::to_string(instance.profile) + "@" + std::to_string(instance.start) +
           (instance.busy ? "*," : ",");
  }
  return key;
}

}  // namespace gputwin
