#include "gputwin/serve/pool_clock.hpp"

#include <limits>

namespace gputwin {
namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();
}  // namespace

std::size_t PoolClock::add_engine(const EngineLimits& limits, IterationCost cost, double sample_every_s) {
  engines_.emplace_back(limits, std::move(cost), sample_every_s);
  requests_of_.emplace_back();
  next_step_s_.push_back(kNever);
  return engines_.size() - 1;
}

void PoolClock::add(std::size_t e, std::size_t request, const ServeRequest& served, double remote_kv_load_s) {
  engines_[e].add(served, remote_kv_load_s);
  requests_of_[e].push_back(request);
  reschedule(e);
}

void PoolClock::reschedule(std::size_t e) {
  if (next_step_s_[e] != kNever) queue_.erase({next_step_s_[e], e});
  next_step_s_[e] = engines_[e].next_step_s();
  if (next_step_s_[e] != kNever) queue_.insert({next_step_s_[e], e});
}

void PoolClock::run(ClockDriver& driver) {
  while (true) {
    const double step_s = queue_.empty() ? kNever : queue_.begin()->first;
    const std::optional<double> event_s = driver.next_event_s();
    if (event_s && *event_s <= step_s) {
      driver.deliver(*this);
      continue;
    }
    if (queue_.empty()) return;
    const std::size_t e = queue_.begin()->second;
    engines_[e].step();
    reschedule(e);
    for (const SettledRequest& done : engines_[e].take_settled()) {
      const auto local = static_cast<std::size_t>(done.request);
      driver.settled(
          *this, {e, requests_of_[e][local], done.time_s, engines_[e].result().requests[local].finished()});
    }
  }
}

}  // namespace gputwin
