#include "gputwin/sim/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "gputwin/core/random.hpp"
#include "gputwin/sim/checkpoint_interval.hpp"

namespace gputwin {
namespace {

// One process as it strikes this job: its rate over the job's units and the nodes one strike takes out.
struct JobProcess {
  double rate_per_hour = 0;
  int nodes_taken = 0;
  double repair_hours = 0;
  int units = 1;             // the job's units of the process's scope (nodes, leaves, domains)
  double weibull_shape = 1;  // of each unit's times between failures
};

// A unit's next failure, for processes that are not memoryless (Weibull): each unit of the job is a renewal
// process, new at the start, and a struck unit is replaced (a spare, or the repaired unit) by a new one.
struct UnitFailure {
  double at = 0;
  std::size_t process = 0;
  bool operator>(const UnitFailure& other) const { return at > other.at; }
};

struct RunTotals {
  std::vector<int> interruptions;  // per process
  double wall = 0;
  double useful = 0;
  double checkpoint = 0;
  double lost = 0;
  double restart = 0;
  double repair_wait = 0;
};

class JobRun {
 public:
  JobRun(const GoodputRequest& request, const std::vector<JobProcess>& processes, double total_rate,
         double interval, std::uint64_t seed)
      : request_(request),
        processes_(processes),
        total_rate_(total_rate),
        interval_(interval),
        random_(seed) {
    totals_.interruptions.assign(processes.size(), 0);
    renewal_ = std::any_of(processes.begin(), processes.end(),
                           [](const JobProcess& p) { return p.weibull_shape != 1; });
    if (!renewal_) return;
    for (std::size_t i = 0; i < processes.size(); ++i) {
      for (int unit = 0; unit < processes[i].units; ++unit) units_.push({unit_lifetime(i), i});
    }
  }

  RunTotals run() {
    const double limit = request_.wall_limit_hours.value_or(INFINITY);
    double done = 0;
    bool restarting = false;
    while (t_ < limit) {
      const double failure = renewal_ ? next_unit_failure() : t_ + next_failure_in();
      if (restarting) {
        const double end = std::min(t_ + request_.restart_hours, limit);
        if (failure < end) {
          totals_.restart += failure - t_;
          strike(failure);
          continue;
        }
        totals_.restart += end - t_;
        t_ = end;
        restarting = false;
        continue;
      }
      if (done >= request_.work_hours) break;
      const double compute = std::min(interval_, request_.work_hours - done);
      const bool last = done + compute >= request_.work_hours;
      const double end = t_ + compute + (last ? 0.0 : request_.checkpoint_write_hours);
      if (std::min(failure, end) > limit) {  // the window closes with this segment unfinished and unstruck
        totals_.useful += std::min(compute, limit - t_);
        t_ = limit;
        break;
      }
      if (failure < end) {
        totals_.lost += failure - t_;
        strike(failure);
        restarting = true;
        continue;
      }
      t_ = end;
      done += compute;
      totals_.useful += compute;
      if (!last) totals_.checkpoint += request_.checkpoint_write_hours;
    }
    totals_.wall = std::min(t_, limit);
    return totals_;
  }

 private:
  double next_failure_in() {
    if (total_rate_ <= 0) return INFINITY;
    return -std::log1p(-random_.unit()) / total_rate_;
  }

  // A new unit's time to failure: Weibull with the process's per-unit mean and shape.
  double unit_lifetime(std::size_t process) {
    const JobProcess& p = processes_[process];
    const double per_unit = p.rate_per_hour / p.units;
    if (!(per_unit > 0)) return INFINITY;
    const double scale = 1 / per_unit / std::tgamma(1 + 1 / p.weibull_shape);
    return scale * std::pow(-std::log1p(-random_.unit()), 1 / p.weibull_shape);
  }

  // Units that failed while the job waited for nodes interrupted nothing: they are replaced before it
  // resumes.
  double next_unit_failure() {
    while (!units_.empty() && units_.top().at < t_) {
      const UnitFailure failed = units_.top();
      units_.pop();
      units_.push({t_ + unit_lifetime(failed.process), failed.process});
    }
    return units_.empty() ? INFINITY : units_.top().at;
  }

  std::size_t pick_cause() {
    if (renewal_) {  // the unit that fails first; a new one takes its place
      const UnitFailure failed = units_.top();
      units_.pop();
      units_.push({failed.at + unit_lifetime(failed.process), failed.process});
      return failed.process;
    }
    double x = random_.unit() * total_rate_;
    for (std::size_t i = 0; i + 1 < processes_.size(); ++i) {
      if (x < processes_[i].rate_per_hour) return i;
      x -= processes_[i].rate_per_hour;
    }
    return processes_.size() - 1;
  }

  // A failure at `at`: count it, send the struck nodes to repair and wait until the job has its nodes again.
  void strike(double at) {
    t_ = at;
    const std::size_t cause = pick_cause();
    ++totals_.interruptions[cause];
    const JobProcess& process = processes_[cause];
    for (int i = 0; i < process.nodes_taken; ++i) in_repair_.push_back(t_ + process.repair_hours);
    std::erase_if(in_repair_, [&](double back) { return back <= t_; });
    const auto spares = static_cast<std::size_t>(request_.spare_nodes);
    if (in_repair_.size() <= spares) return;
    std::sort(in_repair_.begin(), in_repair_.end());
    const double ready = in_repair_[in_repair_.size() - spares - 1];
    totals_.repair_wait += ready - t_;
    t_ = ready;
    std::erase_if(in_repair_, [&](double back) { return back <= t_; });
  }

  const GoodputRequest& request_;
  const std::vector<JobProcess>& processes_;
  double total_rate_;
  double interval_;
  Random random_;
  double t_ = 0;
  std::vector<double> in_repair_;  // when each node out of service comes back
  RunTotals totals_;
  bool renewal_ = false;  // some process is not exponential: units' own failure times
  std::priority_queue<UnitFailure, std::vector<UnitFailure>, std::greater<>> units_;
};

MeanStdev mean_stdev(const std::vector<double>& values) {
  MeanStdev m;
  if (values.empty()) return m;
  for (double v : values) m.mean += v / static_cast<double>(values.size());
  if (values.size() < 2) return m;
  double squares = 0;
  for (double v : values) squares += (v - m.mean) * (v - m.mean);
  m.stdev = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return m;
}

// The smallest k with P(Poisson(mean) <= k) >= 0.99.
int poisson_quantile_99(double mean) {
  if (mean <= 0) return 0;
  double term = std::exp(-mean);
  double cumulative = term;
  int k = 0;
  while (cumulative < 0.99 && k < 1000000) {
    ++k;
    term *= mean / k;
    cumulative += term;
  }
  return k;
}

}  // namespace

int job_nodes(int gpus, const ClusterShape& shape) {
  return (gpus + shape.gpus_per_node - 1) / shape.gpus_per_node;
}

double job_units(FailureScope scope, int nodes, const ClusterShape& shape) {
  switch (scope) {
    case FailureScope::node:
    case FailureScope::job_on_node:
      return nodes;
    case FailureScope::leaf_switch:
      return std::ceil(static_cast<double>(nodes) / shape.nodes_per_leaf) * shape.leaves_per_node;
    case FailureScope::scale_up_domain:
      return std::ceil(static_cast<double>(nodes) / shape.nodes_per_domain);
  }
  return nodes;
}

Result<GoodputResult> simulate_goodput(const GoodputRequest& request) {
  for (const FailureProcess& process : request.processes) {
    if (!(process.weibull_shape > 0)) {
      return InputError{{},
                        "failure process " + process.cause,
                        "a Weibull shape must be > 0, got " + std::to_string(process.weibull_shape)};
    }
  }
  GoodputResult result;
  result.nodes = job_nodes(request.gpus, request.shape);
  result.work_hours = request.work_hours;
  result.spare_nodes = request.spare_nodes;
  result.seeds = request.seeds;

  std::vector<JobProcess> processes;
  double total_rate = 0;
  for (const FailureProcess& process : request.processes) {
    JobProcess p;
    p.rate_per_hour = process.rate_per_unit_hour * job_units(process.scope, result.nodes, request.shape);
    switch (process.scope) {
      case FailureScope::node:
        p.nodes_taken = 1;
        break;
      case FailureScope::leaf_switch:
        p.nodes_taken = std::min(request.shape.nodes_per_leaf, result.nodes);
        break;
      case FailureScope::scale_up_domain:
        p.nodes_taken = std::min(request.shape.nodes_per_domain, result.nodes);
        break;
      case FailureScope::job_on_node:
        p.nodes_taken = 0;
        break;
    }
    p.repair_hours = process.repair_hours;
    p.units = std::max(
        1, static_cast<int>(std::ceil(job_units(process.scope, result.nodes, request.shape) - 1e-9)));
    p.weibull_shape = process.weibull_shape;
    total_rate += p.rate_per_hour;
    result.nodes_in_repair_mean += p.rate_per_hour * p.nodes_taken * p.repair_hours;
    processes.push_back(p);
    result.by_cause.push_back({process.cause, process.category, p.rate_per_hour, {}});
  }
  result.spare_nodes_p99 = poisson_quantile_99(result.nodes_in_repair_mean);
  result.mttf_hours = total_rate > 0 ? 1.0 / total_rate : INFINITY;
  result.young_interval_hours = young_interval_hours(request.checkpoint_write_hours, result.mttf_hours);
  result.daly_interval_hours = daly_interval_hours(request.checkpoint_write_hours, result.mttf_hours);
  result.used_interval_hours = request.checkpoint_interval_hours.value_or(result.daly_interval_hours);
  if (!(result.used_interval_hours > 0) || !std::isfinite(result.used_interval_hours)) {
    result.used_interval_hours = request.work_hours;  // no failures, or no checkpoint cost: never checkpoint
  }
  result.first_order_ettr =
      std::isfinite(result.mttf_hours)
          ? 1.0 - first_order_waste(request.checkpoint_write_hours, result.used_interval_hours,
                                    request.restart_hours, result.mttf_hours)
          : 1.0;

  std::vector<double> interruptions;
  std::vector<double> ettr;
  std::vector<double> wall;
  std::vector<std::vector<double>> by_cause(processes.size());
  for (int seed = 0; seed < request.seeds; ++seed) {
    JobRun run(request, processes, total_rate, result.used_interval_hours, request.first_seed + seed);
    const RunTotals totals = run.run();
    int count = 0;
    for (std::size_t i = 0; i < processes.size(); ++i) {
      by_cause[i].push_back(totals.interruptions[i]);
      count += totals.interruptions[i];
    }
    interruptions.push_back(count);
    ettr.push_back(totals.wall > 0 ? totals.useful / totals.wall : 1.0);
    wall.push_back(totals.wall);
    const double n = request.seeds;
    result.useful_hours += totals.useful / n;
    result.checkpoint_hours += totals.checkpoint / n;
    result.lost_work_hours += totals.lost / n;
    result.restart_hours += totals.restart / n;
    result.repair_wait_hours += totals.repair_wait / n;
  }
  result.interruptions = mean_stdev(interruptions);
  result.ettr = mean_stdev(ettr);
  result.wall_hours = mean_stdev(wall);
  for (std::size_t i = 0; i < processes.size(); ++i) result.by_cause[i].count = mean_stdev(by_cause[i]);
  return result;
}

}  // namespace gputwin
