#include "gputwin/sim/fair_share_usage.hpp"

namespace gputwin {

FairShareUsage::FairShareUsage(const std::vector<JobSpec>& jobs, bool by_user,
                               const std::map<std::string, double>& shares)
    : by_user_(by_user), shares_(shares) {
  key_of_job_.resize(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::string& key = key_of(jobs[j]);
    const auto [found, added] = key_number_.try_emplace(key, static_cast<int>(share_by_key_.size()));
    if (added) {
      const auto share = shares_.find(key);
      share_by_key_.push_back(share == shares_.end() ? 1.0 : share->second);
    }
    key_of_job_[j] = found->second;
  }
  usage_by_key_.assign(share_by_key_.size(), 0.0);
}

double FairShareUsage::usage_per_share(const JobSpec& job) const {
  const auto key = key_number_.find(key_of(job));
  if (key != key_number_.end()) return usage_by_key_[key->second] / share_by_key_[key->second];
  const auto share = shares_.find(key_of(job));
  return 0.0 / (share == shares_.end() ? 1.0 : share->second);
}

}  // namespace gputwin
