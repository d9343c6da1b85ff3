#include "gputwin/sim/process_failures.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>

namespace gputwin {
namespace {

constexpr double kSecondsPerHour = 3600;

// SplitMix64's finaliser: spreads the stream key over 64 bits so nearby keys seed unrelated streams.
std::uint64_t mixed(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

std::uint64_t stream_key(std::uint64_t seed, int process, int unit, std::uint64_t draw) {
  std::uint64_t key = mixed(seed);
  key = mixed(key ^ static_cast<std::uint64_t>(process));
  key = mixed(key ^ static_cast<std::uint64_t>(unit));
  return mixed(key ^ draw);
}

bool takes_units_out(FailureScope scope) {
  return scope != FailureScope::job_on_node;
}

void check(const FailureProcess& process) {
  const std::string name = "failure process '" + process.cause + "'";
  if (!(process.rate_per_unit_hour >= 0) || !std::isfinite(process.rate_per_unit_hour)) {
    throw std::invalid_argument(name + ": the rate must be a finite number >= 0");
  }
  if (!(process.weibull_shape > 0)) throw std::invalid_argument(name + ": the Weibull shape must be > 0");
  if (takes_units_out(process.scope) && !(process.repair_hours > 0)) {
    throw std::invalid_argument(name + ": a failure that takes its unit out needs a repair time > 0");
  }
}

// One unit's next failure.
struct Strike {
  double time = 0;
  int process = 0;
  int unit = 0;
  bool operator>(const Strike& other) const {
    if (time != other.time) return time > other.time;
    return process != other.process ? process > other.process : unit > other.unit;
  }
};

// A node event waiting to be handed out, in (time, order made) order; its cause is its process's, named only
// when it is handed out (the heap moves no strings).
struct Pending {
  double time = 0;
  std::uint64_t order = 0;
  int process = 0;
  int node = 0;
  bool up = false;
  bool operator>(const Pending& other) const {
    return time != other.time ? time > other.time : order > other.order;
  }
};

class ProcessFailures final : public FailureModel {
 public:
  ProcessFailures(std::vector<FailureProcess> processes, const ReplayTopology& topology, std::uint64_t seed)
      : processes_(std::move(processes)), seed_(seed) {
    for (std::size_t p = 0; p < processes_.size(); ++p) {
      check(processes_[p]);
      units_.push_back(failure_units(processes_[p].scope, topology));
      draws_.emplace_back(units_.back().size(), 0);
      if (processes_[p].rate_per_unit_hour <= 0) continue;
      for (std::size_t u = 0; u < units_.back().size(); ++u)
        schedule_strike(static_cast<int>(p), static_cast<int>(u), 0);
    }
  }

  std::string_view name() const override { return "processes"; }

  std::optional<NodeEvent> next_event(double /*now*/) override {
    while (!strikes_.empty() && (pending_.empty() || strikes_.top().time <= pending_.top().time)) {
      const Strike strike = strikes_.top();
      strikes_.pop();
      expand(strike);
    }
    if (pending_.empty()) return std::nullopt;
    const Pending next = pending_.top();
    pending_.pop();
    const FailureProcess& process = processes_[static_cast<std::size_t>(next.process)];
    return NodeEvent{next.time, next.node, next.up, process.cause, !takes_units_out(process.scope), false};
  }

 private:
  void schedule_strike(int process, int unit, double from) {
    std::uint64_t& draw = draws_[static_cast<std::size_t>(process)][static_cast<std::size_t>(unit)];
    const double gap =
        time_to_failure_s(processes_[static_cast<std::size_t>(process)], seed_, process, unit, draw++);
    if (std::isfinite(gap)) strikes_.push({from + gap, process, unit});
  }

  // A strike becomes node events: down now and up after the repair (or the job on each node failing), and the
  // unit's next strike is drawn from its return.
  void expand(const Strike& strike) {
    const FailureProcess& process = processes_[static_cast<std::size_t>(strike.process)];
    const auto& nodes =
        units_[static_cast<std::size_t>(strike.process)][static_cast<std::size_t>(strike.unit)];
    if (!takes_units_out(process.scope)) {
      for (const int node : nodes) push(strike.time, strike.process, node, false);
      schedule_strike(strike.process, strike.unit, strike.time);
      return;
    }
    const double back = strike.time + process.repair_hours * kSecondsPerHour;
    for (const int node : nodes) push(strike.time, strike.process, node, false);
    for (const int node : nodes) push(back, strike.process, node, true);
    schedule_strike(strike.process, strike.unit, back);
  }

  void push(double time, int process, int node, bool up) {
    pending_.push({time, next_order_++, process, node, up});
  }

  std::vector<FailureProcess> processes_;
  std::uint64_t seed_;
  std::vector<std::vector<std::vector<int>>> units_;  // process -> unit -> nodes
  std::vector<std::vector<std::uint64_t>> draws_;     // process -> unit -> draws made
  std::priority_queue<Strike, std::vector<Strike>, std::greater<>> strikes_;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::uint64_t next_order_ = 0;
};

std::vector<std::vector<int>> grouped(const std::vector<int>& group_of_node) {
  std::map<int, std::vector<int>> groups;
  for (std::size_t n = 0; n < group_of_node.size(); ++n)
    groups[group_of_node[n]].push_back(static_cast<int>(n));
  std::vector<std::vector<int>> units;
  for (auto& [group, nodes] : groups) units.push_back(std::move(nodes));
  return units;
}

}  // namespace

// Words 0, 1 and 156 of the seeded state are all the first twist mixes, then the output is tempered.
// Every failure time is the first draw of its own stream, so this is the whole cost of a draw (the full
// engine costs ~600 steps of state a draw; this ~160). process_failures_test checks it against the engine.
std::uint64_t first_mt19937_64(std::uint64_t seed) {
  constexpr std::uint64_t kInitMultiplier = 6364136223846793005ULL;   // the standard's f for mt19937_64
  constexpr int kMiddle = 156;                                        // m
  constexpr std::uint64_t kLowerMask = (std::uint64_t{1} << 31) - 1;  // r = 31 bits
  constexpr std::uint64_t kTwist = 0xb5026f5aa96619e9ULL;             // a
  std::uint64_t word = seed;
  std::uint64_t word1 = 0;
  for (int i = 1; i <= kMiddle; ++i) {
    word = kInitMultiplier * (word ^ (word >> 62)) + static_cast<std::uint64_t>(i);
    if (i == 1) word1 = word;
  }
  const std::uint64_t mixed_word = (seed & ~kLowerMask) | (word1 & kLowerMask);
  std::uint64_t z = word ^ (mixed_word >> 1) ^ ((mixed_word & 1) != 0 ? kTwist : 0);
  z ^= (z >> 29) & 0x5555555555555555ULL;  // tempering: u, d
  z ^= (z << 17) & 0x71d67fffeda60000ULL;  // s, b
  z ^= (z << 37) & 0xfff7eee000000000ULL;  // t, c
  z ^= z >> 43;                            // l
  return z;
}

double time_to_failure_s(const FailureProcess& process, std::uint64_t seed, int process_index, int unit,
                         std::uint64_t draw) {
  if (process.rate_per_unit_hour <= 0) return INFINITY;
  // Random(key).unit(): the stream's first draw, 53 bits in [0, 1).
  const double uniform =
      static_cast<double>(first_mt19937_64(stream_key(seed, process_index, unit, draw)) >> 11) * 0x1.0p-53;
  const double exponential = -std::log1p(-uniform);  // mean 1; uniform < 1, so finite
  const double mean_hours = 1 / process.rate_per_unit_hour;
  if (process.weibull_shape == 1) return exponential * mean_hours * kSecondsPerHour;
  // Weibull with shape k and the process's mean: scale = mean / Gamma(1 + 1/k), time = scale * E^(1/k).
  const double scale_hours = mean_hours / std::tgamma(1 + 1 / process.weibull_shape);
  return scale_hours * std::pow(exponential, 1 / process.weibull_shape) * kSecondsPerHour;
}

std::vector<std::vector<int>> failure_units(FailureScope scope, const ReplayTopology& topology) {
  switch (scope) {
    case FailureScope::leaf_switch:
      return grouped(topology.leaf_of_node);
    case FailureScope::scale_up_domain:
      return grouped(topology.domain_of_node);
    case FailureScope::node:
    case FailureScope::job_on_node:
      break;
  }
  std::vector<std::vector<int>> units;
  for (std::size_t n = 0; n < topology.leaf_of_node.size(); ++n) units.push_back({static_cast<int>(n)});
  return units;
}

double failures_per_hour_seen(const std::vector<FailureProcess>& processes, const ReplayTopology& topology,
                              int gpus) {
  const int per_node = std::max(1, topology.gpus_per_node);
  const int nodes = (std::max(1, gpus) + per_node - 1) / per_node;
  double rate = 0;
  for (const auto& process : processes) {
    std::size_t largest_unit = 1;
    if (process.scope == FailureScope::leaf_switch || process.scope == FailureScope::scale_up_domain) {
      for (const auto& unit : failure_units(process.scope, topology))
        largest_unit = std::max(largest_unit, unit.size());
    }
    const auto units = (static_cast<std::size_t>(nodes) + largest_unit - 1) / largest_unit;
    rate += process.rate_per_unit_hour * static_cast<double>(units);
  }
  return rate;
}

std::unique_ptr<FailureModel> make_process_failures(const std::vector<FailureProcess>& processes,
                                                    const ReplayTopology& topology, std::uint64_t seed) {
  return std::make_unique<ProcessFailures>(processes, topology, seed);
}

}  // namespace gputwin
