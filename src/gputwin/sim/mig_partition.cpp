#include "gputwin/sim/mig_partition.hpp"

#include <algorithm>

namespace gputwin {

MigPartition::MigPartition(const std::vector<JobSpec>& jobs, MigPool pool, MigQueueOptions options)
    : jobs_(jobs),
      pool_(std::move(pool)),
      options_(std::move(options)),
      usage_(jobs, options_.fair_share_by_user, options_.shares) {}

int MigPartition::compute_slices_of(const JobSpec& job) const {
  const auto profile = mig_profile_index(pool_.profile_set(), job.mig_profile);
  return profile ? pool_.profile_set().profiles[*profile].compute_slices : 0;
}

std::optional<std::string> MigPartition::rejection(const JobSpec& job) const {
  const auto profile = mig_profile_index(pool_.profile_set(), job.mig_profile);
  if (!profile) return "MIG profile not in the MIG-mode GPUs' set (" + pool_.profile_set().info.id + ")";
  if (!pool_.can_ever_host(*profile)) {
    return pool_.fixed_layout() ? "MIG profile not in the fixed layout"
                                : "MIG profile has no published placements";
  }
  return std::nullopt;
}

void MigPartition::submit(int index) {
  JobSpec as_slices = jobs_[index];
  as_slices.gpus = compute_slices_of(as_slices);
  as_slices_.emplace(index, std::move(as_slices));
  waiting_.push_back(index);
}

std::vector<int> MigPartition::schedule(const QueuePolicy& policy, double now) {
  now_ = now;
  started_now_.clear();
  if (waiting_.empty()) return started_now_;
  policy.schedule(*this);
  if (!started_now_.empty()) {
    waiting_.erase(
        std::remove_if(waiting_.begin(), waiting_.end(), [&](int job) { return running_.count(job) > 0; }),
        waiting_.end());
  }
  return started_now_;
}

bool MigPartition::try_start(int index) {
  if (running_.count(index) > 0) return false;
  const auto profile = mig_profile_index(pool_.profile_set(), jobs_[index].mig_profile);
  if (!profile) return false;
  const auto slice = pool_.allocate(*profile);
  if (!slice) return false;
  const JobSpec& job = as_slices_.at(index);
  running_[index] = Running{*slice, now_ + expected_run_time(index)};
  usage_.add(index, job.gpus);
  started_now_.push_back(index);
  return true;
}

void MigPartition::finish(int index) {
  const auto running = running_.find(index);
  if (running == running_.end()) return;
  pool_.release(running->second.slice);
  const auto job = as_slices_.find(index);
  usage_.add(index, -job->second.gpus);
  running_.erase(running);
  as_slices_.erase(job);
}

std::vector<int> MigPartition::jobs_on_node(int node) const {
  std::vector<int> jobs;
  for (const auto& [job, running] : running_) {
    if (pool_.node_of(running.slice.gpu) == node) jobs.push_back(job);
  }
  return jobs;
}

std::vector<int> MigPartition::set_node_down(int node) {
  if (pool_.node_down(node)) return {};
  pool_.set_node_down(node);
  return jobs_on_node(node);
}

std::vector<std::pair<double, int>> MigPartition::expected_releases() const {
  std::vector<std::pair<double, int>> releases;
  releases.reserve(running_.size());
  for (const auto& [job, running] : running_)
    releases.emplace_back(running.expected_end, as_slices_.at(job).gpus);
  return releases;
}

}  // namespace gputwin
