// Fair-share bookkeeping for one queue of a replay: what the jobs of each fair-share key (a group, or a user)
// hold now, divided by that key's share. The whole-GPU queue counts GPUs, the MIG queue compute slices; both
// keep it here, so the fair-share rule is written once.
//
//   FairShareUsage usage(jobs, /*by_user=*/false, options.shares);   // keys numbered once, up front
//   usage.add(job, +4);  ...  usage.add(job, -4);                    // at start and at release
//   usage.job_usage_per_share(job);   usage.usage_per_share(spec);   // what FairSharePolicy orders by
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gputwin/trace/records.hpp"

namespace gputwin {

class FairShareUsage {
 public:
  // `shares`: weights by key; a key without one has weight 1. `jobs` must outlive this.
  FairShareUsage(const std::vector<JobSpec>& jobs, bool by_user, const std::map<std::string, double>& shares);

  void add(int job, double amount) { usage_by_key_[key_of_job_[job]] += amount; }
  [[nodiscard]] double job_usage_per_share(int job) const {
    const int key = key_of_job_[job];
    return usage_by_key_[key] / share_by_key_[key];
  }
  // The same for any job spec, its key looked up by name (0 for a key no job of the trace has).
  [[nodiscard]] double usage_per_share(const JobSpec& job) const;

 private:
  [[nodiscard]] const std::string& key_of(const JobSpec& job) const {
    return by_user_ ? job.user : job.group;
  }

  bool by_user_;
  std::map<std::string, double> shares_;
  std::unordered_map<std::string_view, int> key_number_;  // fair-share key -> its number
  std::vector<int> key_of_job_;
  std::vector<double> share_by_key_;
  std::vector<double> usage_by_key_;
};

}  // namespace gputwin
