// Channels by message size: NCCL's cost model chooses an algorithm and protocol as if every channel of the
// communicator ran, then the enqueue step lowers the channel count while the message is too small to give
// each of a channel's threads its threshold of bytes, and the scheduler gives each channel at least a
// minimum of traffic. A channel is one thread block on one path of the ring or tree: an operation on fewer
// channels has that share of the links, under the protocol's caps (per channel caps scale with the channels,
// a whole-operation cap such as LL's does not). NCCL's own time estimate, when a tuner sets the channels,
// scales the capped bandwidth linearly instead (bw / comm->nChannels x nChannels); that would make LL's
// whole-operation cap a per-channel one. The constants are in nccl-cost-model.yaml, `channels:`.
#include <algorithm>
#include <cmath>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {
namespace {

// Threads per channel NCCL gives this algorithm and protocol: 256 for a Simple ring no faster than PCIe.
double threads_per_channel(const Case& c, CollectiveAlgorithm a, CollectiveProtocol p) {
  const auto& tuning = c.model.channel_tuning;
  const bool slow_ring = c.topo.ring_gbps() <= c.model.pci_bandwidth_gbps;
  if (a == CollectiveAlgorithm::Ring && p == CollectiveProtocol::Simple && slow_ring)
    return tuning.ring_simple_threads_on_slow_ring;
  return tuning.max_threads[static_cast<int>(p)];
}

double thread_threshold_bytes(const Case& c, CollectiveAlgorithm a, CollectiveProtocol p) {
  const auto& tuning = c.model.channel_tuning;
  double threshold = tuning.thread_threshold_bytes[static_cast<int>(p)];
  if (a == CollectiveAlgorithm::Ring && p == CollectiveProtocol::LL && tuning.ring_ll_threshold_per_rank)
    threshold *= c.topo.ranks;
  return threshold;
}

// The scheduler's channels: the traffic (x2 for all_reduce, x4 under LL's flag-per-word lines) split so that
// no channel gets less than the minimum.
int scheduled_channels(const Case& c, CollectiveProtocol p, int channels) {
  const auto& tuning = c.model.channel_tuning;
  double traffic = c.bytes;
  if (c.op == CollectiveOp::all_reduce) traffic *= tuning.all_reduce_traffic_per_byte;
  if (p == CollectiveProtocol::LL) traffic *= tuning.ll_traffic_factor;
  if (traffic >= channels * tuning.min_traffic_per_channel_bytes) return channels;
  return std::clamp(static_cast<int>(std::ceil(traffic / tuning.min_traffic_per_channel_bytes)), 1, channels);
}

}  // namespace

int channels_for_size(const Case& c, CollectiveAlgorithm a, CollectiveProtocol p) {
  const int all = std::max(1, c.topo.channels);
  if (a == CollectiveAlgorithm::NVLS || a == CollectiveAlgorithm::NVLSTree) return all;
  const double per_channel = threads_per_channel(c, a, p) * thread_threshold_bytes(c, a, p);
  int channels = all;
  while (channels >= 2 && c.bytes < channels * per_channel) --channels;
  return scheduled_channels(c, p, channels);
}

int ring_threads_for_size(const Case& c, CollectiveAlgorithm a, CollectiveProtocol p) {
  if (a != CollectiveAlgorithm::Ring) return 0;
  const int all = std::max(1, c.topo.channels);
  const double threshold = thread_threshold_bytes(c, a, p);
  int tuned = all;
  const int threads = static_cast<int>(threads_per_channel(c, a, p));
  while (tuned >= 2 && c.bytes < tuned * threads * threshold) --tuned;
  int nt = threads;
  const int multiple = std::max(1, c.model.chunking.thread_halving_multiple);
  while (c.bytes < static_cast<double>(tuned) * nt * threshold && nt % multiple == 0) nt /= 2;
  return nt;
}

Topology with_channels(const Topology& topology, int channels) {
  Topology narrowed = topology;
  const double share = static_cast<double>(channels) / std::max(1, topology.channels);
  narrowed.channels = channels;
  narrowed.intra_gbps *= share;
  narrowed.inter_gbps *= share;
  return narrowed;
}

}  // namespace gputwin::collectives
