// The nccl-tests measurement loop over the one-operation model (see the header for the semantics and
// sources).
#include "gputwin/perf/nccl_tests_loop.hpp"

#include <algorithm>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin {
namespace {

constexpr double kMicrosecondsPerSecond = 1e6;
constexpr double kBytesPerGigabyte = 1e9;

// NCCL runs broadcast and reduce as a chain from (to) the root: the only operations whose ranks leave one
// operation at different times and may start the next before the previous one has reached every rank.
bool rooted_chain(const CollectiveEstimate& one) {
  const bool rooted = one.op == CollectiveOp::broadcast || one.op == CollectiveOp::reduce;
  return rooted && one.algorithm == algorithm_name(CollectiveAlgorithm::Ring);
}

// The device time the loop prints (`device_us`, see nccl_tests_time) with one host thread issuing the calls
// of several GPUs: host and devices overlap across iterations unless every operation is waited for.
void charge_host_launches(NcclTestsTime& printed, double device_us, const NcclTestsLoopSettings& loop) {
  if (loop.gpus_per_process <= 1) return;
  printed.host_us = loop.gpus_per_process * loop.host_launch_us_per_gpu;
  printed.host_bound = printed.host_us > device_us;
  if (loop.blocking) {
    printed.time_us = printed.host_us + device_us;
    return;
  }
  printed.time_us =
      std::max(printed.host_us, device_us) + std::min(printed.host_us, device_us) / printed.iters;
}

}  // namespace

double NcclTestsTime::algbw_gbps(double bytes) const {
  return time_us > 0 ? bytes / (time_us / kMicrosecondsPerSecond) / kBytesPerGigabyte : 0;
}

NcclTestsTime nccl_tests_time(const CollectiveEstimate& one, const CollectiveModel& model,
                              const NcclTestsLoopSettings& loop) {
  NcclTestsTime printed;
  printed.one_operation_us = printed.time_us = one.time_us;
  printed.iters = std::max(1, loop.iters);
  const auto protocol = protocol_from_name(one.protocol);
  if (loop.blocking || !rooted_chain(one) || !protocol) {
    charge_host_launches(printed, printed.time_us, loop);
    return printed;
  }
  const int ranks = std::max(1, one.group.ranks);
  const double base =
      model.base_latency_us[static_cast<int>(CollectiveAlgorithm::Ring)][static_cast<int>(*protocol)];
  const int steps = collectives::ring_steps(one.op, ranks);
  printed.pipelined = true;
  printed.per_gpu_us = base + one.bandwidth_us;
  // A hop is NCCL's per-step latency plus, for a Simple chain, one slice's store-and-forward.
  printed.hop_us = std::max(0.0, one.latency_us + one.pipeline_fill_us - base) / steps;
  // The rank j hops down the chain ends the loop j hops after the root; nccl-tests averages the ranks.
  printed.fill_us = (ranks - 1) / 2.0 * printed.hop_us;
  printed.time_us = std::min(one.time_us, printed.per_gpu_us + printed.fill_us / printed.iters);
  charge_host_launches(printed, printed.time_us, loop);
  return printed;
}

}  // namespace gputwin
