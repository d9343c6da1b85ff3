// Several engines (serve/engine.hpp) on one clock: the engine whose next step is the earliest steps next
// (ties to the lowest index), and the driver's own events (an arrival to deal, a prompt's prefill handed to
// the decode pool, a closed loop's client sending) are delivered in time order before any engine steps at or
// past them. The driver (its policy) picks the engine each request goes to. Used by the least-in-flight
// dealing over replicas (serve/serving.cpp) and by the prefill and decode pools (serve/disaggregated.cpp).
//
//   PoolClock clock;
//   clock.add_engine(limits, cost, sample_every_s);       // engine 0, 1, ...
//   struct Dealer : ClockDriver { ... } dealer;           // next_event_s / deliver / settled
//   clock.run(dealer);                                    // until no engine and no event has anything left
//   clock.run_of(e).requests[j] is the outcome of clock.requests_of(e)[j], the caller's request index
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "gputwin/serve/engine.hpp"

namespace gputwin {

class PoolClock;

// What the clock asks of the one driving it.
class ClockDriver {
 public:
  virtual ~ClockDriver() = default;
  // When its next event is; nullopt: it has none (now).
  [[nodiscard]] virtual std::optional<double> next_event_s() const = 0;
  // Its next event (it may add requests to the clock's engines).
  virtual void deliver(PoolClock& clock) = 0;
  struct Settled {
    std::size_t engine = 0;
    std::size_t request = 0;  // the caller's index (PoolClock::add's)
    double time_s = 0;
    bool finished = false;  // else refused (longer than the engine's whole KV cache)
  };
  // An engine is done with a request.
  virtual void settled(PoolClock& clock, const Settled& done) = 0;
};

class PoolClock {
 public:
  // Returns the new engine's index.
  std::size_t add_engine(const EngineLimits& limits, IterationCost cost, double sample_every_s);
  [[nodiscard]] std::size_t engines() const { return engines_.size(); }
  // The caller's request `request` to engine e (ServeEngine::add: it arrives at its arrival_s, not before the
  // engine's clock).
  void add(std::size_t e, std::size_t request, const ServeRequest& served, double remote_kv_load_s = -1);
  // Steps the engines and delivers the driver's events in time order until neither has anything left.
  void run(ClockDriver& driver);
  // Engine e's run so far, its requests by their index in e, and the caller's index of each.
  [[nodiscard]] const ServeRun& run_of(std::size_t e) { return engines_[e].result(); }
  [[nodiscard]] const std::vector<std::size_t>& requests_of(std::size_t e) const { return requests_of_[e]; }

 private:
  void reschedule(std::size_t e);  // engine e's place in the queue of next steps

  std::vector<ServeEngine> engines_;
  std::vector<std::vector<std::size_t>> requests_of_;  // by engine: the caller's indices, in its order
  std::vector<double> next_step_s_;                    // by engine
  std::set<std::pair<double, std::size_t>> queue_;     // (next step, engine) of the engines with one
};

}  // namespace gputwin
