// What the cost model sees of a group: its layout over nodes, the links it crosses and their achieved
// bandwidth.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "gputwin/perf/collective_algorithms.hpp"

namespace gputwin::collectives {
namespace {

constexpr std::array<std::string_view, 4> kArchitectures = {"volta", "ampere", "hopper", "blackwell"};

int architecture_index(const std::string& architecture) {
  for (std::size_t i = 0; i < kArchitectures.size(); ++i) {
    if (architecture == kArchitectures[i]) return static_cast<int>(i);
  }
  // Ada (SM89) sits in NCCL's Ampere row (compute capability 8.x); an unknown architecture is treated
  // likewise.
  return 1;
}

// A NIC's measured busbw share of its line rate, from the nearest published speed.
double nic_effective_gbps(const CollectiveModel& model, double line_rate_gbps) {
  const auto nearest = std::min_element(
      model.nic_efficiency.begin(), model.nic_efficiency.end(), [&](const auto& a, const auto& b) {
        return std::abs(a.line_rate_gbps - line_rate_gbps) < std::abs(b.line_rate_gbps - line_rate_gbps);
      });
  return line_rate_gbps * nearest->efficiency();
}

void set_network(Topology& t, const PerfHardware& hw, const CollectiveModel& model) {
  if (hw.nics_per_node <= 0 || hw.nic_speed.base() <= 0) {
    t.inter_gbps = t.per_gpu_nic_gbps =
        in_gigabytes_per_second(hw.host_link_bandwidth) * model.pcie_efficiency;
    return;
  }
  const double per_nic = nic_effective_gbps(model, in_gigabytes_per_second(hw.nic_speed));
  // Rail-optimized nodes give each GPU its share of the NICs; a group using part of a node uses part of them.
  const double gpus_per_node = std::max(1, hw.gpus_per_node);
  const int nics_used = std::clamp(
      static_cast<int>(std::ceil(hw.nics_per_node * t.ranks_per_node / gpus_per_node)), 1, hw.nics_per_node);
  // Worst case: the traffic crosses the blocking tier, whose uplinks carry 1/oversubscription of the
  // downlinks.
  const double blocking = t.nodes > 1 ? std::max(1.0, hw.oversubscription) : 1.0;
  t.inter_gbps = nics_used * per_nic / blocking;
  t.per_gpu_nic_gbps = std::max(1.0, hw.nics_per_node / gpus_per_node) * per_nic / blocking;
}

// NCCL's graph search fills each GPU's links with channels as wide as one link as NCCL counts it (topo.h),
// and uses at least two channels per NIC across nodes.
int channels_of(const Topology& t, const PerfHardware& hw, const CollectiveModel& model) {
  const double channel_width = t.nvlink ? model.nvlink_link_bandwidth_gbps[t.arch] : model.pci_bandwidth_gbps;
  int channels = static_cast<int>(std::ceil(t.intra_gbps / channel_width));
  if (t.nodes > 1) {
    const int nics_used = hw.nics_per_node * t.ranks_per_node / std::max(1, hw.gpus_per_node);
    channels = std::max(channels, 2 * std::max(1, nics_used));
  }
  return std::clamp(channels, 2, model.max_channels);
}

}  // namespace

double Topology::ring_gbps() const {
  double bw = std::numeric_limits<double>::infinity();
  if (ranks_per_node > 1) bw = std::min(bw, intra_gbps);
  if (nodes > 1) bw = std::min(bw, inter_gbps);
  return std::isfinite(bw) ? bw : 0.0;
}

std::string Topology::ring_bottleneck() const {
  if (nodes > 1 && (ranks_per_node == 1 || inter_gbps < intra_gbps)) return "NIC";
  return intra_name();
}

Topology topology_of(const PerfHardware& hw, const CollectiveModel& model, CollectiveGroup group) {
  Topology t;
  t.ranks = std::max(1, group.ranks);
  t.ranks_per_node = std::clamp(group.ranks_per_node, 1, t.ranks);
  t.nodes = CollectiveGroup{t.ranks, t.ranks_per_node}.nodes();
  t.arch = architecture_index(hw.architecture);
  t.node_column = t.nodes <= 2 ? t.nodes - 1 : 2;
  t.nvlink =
      hw.scale_up_domain >= t.ranks_per_node && hw.scale_up_bandwidth.base() > 0 && t.ranks_per_node > 1;
  t.nvswitch = t.nvlink && hw.nvswitch;
  t.intra_link = t.nvlink ? CollectiveModel::kNvlink : CollectiveModel::kPci;
  t.intra_gbps = t.nvlink ? in_gigabytes_per_second(hw.scale_up_bandwidth) * model.nvlink_efficiency
                          : in_gigabytes_per_second(hw.host_link_bandwidth) * model.pcie_efficiency;
  set_network(t, hw, model);
  t.channels = channels_of(t, hw, model);
  return t;
}

double Case::hop_us(CollectiveModel::Link link, CollectiveAlgorithm a, CollectiveProtocol p) const {
  return model.hop_latency_us[link][static_cast<int>(a)][static_cast<int>(p)];
}

double Case::base_us(CollectiveAlgorithm a, CollectiveProtocol p) const {
  return model.base_latency_us[static_cast<int>(a)][static_cast<int>(p)];
}

double Case::ll_max_gbps() const {
  // NCCL picks the LL row by GPU on one node and by host CPU beyond (row 0: an Intel host is assumed).
  const int row = topo.nodes == 1 ? topo.arch : 0;
  return model.ll_max_bw[row][topo.node_column];
}

}  // namespace gputwin::collectives
