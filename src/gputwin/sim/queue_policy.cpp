#include "gputwin/sim/queue_policy.hpp"

#include <algorithm>
#include <stdexcept>

namespace gputwin {

void SchedulerView::visit_releases_in_order(const std::function<bool(double time, int gpus)>& visit) const {
  auto releases = expected_releases();
  std::sort(releases.begin(), releases.end());
  for (const auto& [time, gpus] : releases) {
    if (visit(time, gpus)) return;
  }
}

namespace {

class FifoPolicy final : public QueuePolicy {
 public:
  std::string_view name() const override { return "fifo"; }
  void schedule(SchedulerView& view) const override {
    const std::vector<int>& waiting = view.waiting();  // stable during a pass: started jobs leave it after
    for (const int job : waiting) {
      if (!view.try_start(job)) return;
    }
  }
};

// Starts any job that fits, in the order given, looking at most `scan_depth` jobs.
void start_greedily(SchedulerView& view, const std::vector<int>& order) {
  int looked = 0;
  for (const int job : order) {
    if (view.free_gpus() == 0 || looked++ > view.scan_depth()) return;
    if (view.job(job).gpus <= view.free_gpus()) view.try_start(job);
  }
}

class ShortestJobFirstPolicy final : public QueuePolicy {
 public:
  std::string_view name() const override { return "sjf"; }
  void schedule(SchedulerView& view) const override {
    std::vector<int> order = view.waiting();
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return view.job(a).duration < view.job(b).duration; });
    start_greedily(view, order);
  }
};

class EasyBackfillPolicy final : public QueuePolicy {
 public:
  std::string_view name() const override { return "easy"; }
  bool plans_with_run_times() const override { return true; }
  void schedule(SchedulerView& view) const override {
    const std::vector<int>& waiting = view.waiting();  // stable during a pass: started jobs leave it after
    std::size_t head = 0;
    while (head < waiting.size() && view.try_start(waiting[head])) ++head;
    if (head >= waiting.size()) return;
    const auto [shadow_time, extra_gpus] = reservation(view, view.job(waiting[head]).gpus);
    int extra = extra_gpus;
    int looked = 0;
    for (std::size_t next = head + 1; next < waiting.size() && looked++ < view.scan_depth(); ++next) {
      if (view.free_gpus() == 0) return;
      const JobSpec& candidate = view.job(waiting[next]);
      if (candidate.gpus > view.free_gpus()) continue;
      const bool ends_in_time = view.now() + view.expected_run_time(waiting[next]) <= shadow_time;
      if (!ends_in_time && candidate.gpus > extra) continue;
      if (view.try_start(waiting[next]) && !ends_in_time) extra -= candidate.gpus;
    }
  }

 private:
  // When the head job can start (the shadow time) and the GPUs left over at that time.
  static std::pair<double, int> reservation(const SchedulerView& view, int head_gpus) {
    int available = view.free_gpus();
    std::pair<double, int> reserved{view.now(), 0};  // when it cannot be (fragmentation): backfill what ends now
    view.visit_releases_in_order([&](double time, int gpus) {
      available += gpus;
      if (available < head_gpus) return false;
      reserved = {std::max(time, view.now()), available - head_gpus};
      return true;
    });
    return reserved;
  }
};

class FairSharePolicy final : public QueuePolicy {
 public:
  std::string_view name() const override { return "fair"; }
  void schedule(SchedulerView& view) const override {
    const std::vector<int>& waiting = view.waiting();
    const std::size_t depth = std::min<std::size_t>(waiting.size(), static_cast<std::size_t>(view.scan_depth()) + 1);
    std::vector<std::pair<double, int>> order;
    order.reserve(depth);
    for (std::size_t i = 0; i < depth; ++i) order.emplace_back(view.job_usage_per_share(waiting[i]), i);
    std::stable_sort(order.begin(), order.end());
    std::vector<int> jobs;
    jobs.reserve(depth);
    for (const auto& [usage, position] : order) jobs.push_back(waiting[position]);
    start_greedily(view, jobs);
  }
};

}  // namespace

std::vector<std::string> queue_policy_names() { return {"fifo", "sjf", "easy", "fair"}; }

std::unique_ptr<QueuePolicy> make_queue_policy(std::string_view name) {
  if (name == "fifo") return std::make_unique<FifoPolicy>();
  if (name == "sjf") return std::make_unique<ShortestJobFirstPolicy>();
  if (name == "easy") return std::make_unique<EasyBackfillPolicy>();
  if (name == "fair") return std::make_unique<FairSharePolicy>();
  std::string known;
  for (const auto& policy : queue_policy_names()) known += (known.empty() ? "" : ", ") + policy;
  throw std::invalid_argument("unknown queue policy '" + std::string(name) + "'; known: " + known);
}

}  // namespace gputwin
