// What the cost model sees of a group: its layout over scale-up domains (NCCL's nodes), the links it crosses
// and their achieved bandwidth.
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

// NICs the group uses in one domain: on each of its nodes its share of that node's NICs (rail-optimized nodes
// give each GPU its share; a group using part of a node uses part of them), over the nodes of the domain.
int nics_used_per_domain(const PerfHardware& hw, CollectiveGroup group, int ranks_per_domain) {
  if (hw.nics_per_node <= 0) return 0;
  const double gpus_per_node = std::max(1, hw.gpus_per_node);
  const int ranks_per_node = std::clamp(group.ranks_per_node, 1, ranks_per_domain);
  const int per_node = std::clamp(
      static_cast<int>(std::ceil(hw.nics_per_node * ranks_per_node / gpus_per_node)), 1, hw.nics_per_node);
  const int nodes_in_domain = (ranks_per_domain + ranks_per_node - 1) / ranks_per_node;
  return per_node * nodes_in_domain;
}

// NCCL's graph search fills each GPU's links with channels as wide as one link as NCCL counts it (topo.h),
// and uses at least two channels per NIC across domains.
int channels_of(const Topology& t, const CollectiveModel& model) {
  const double channel_width = t.nvlink ? model.nvlink_link_bandwidth_gbps[t.arch] : model.pci_bandwidth_gbps;
  int channels = static_cast<int>(std::ceil(t.intra_gbps / channel_width));
  if (t.domains > 1) channels = std::max(channels, 2 * std::max(1, t.nics_used));
  return std::clamp(channels, 2, model.max_channels);
}

void set_network(Topology& t, const PerfHardware& hw, const CollectiveModel& model) {
  if (hw.nics_per_node <= 0 || hw.nic_speed.base() <= 0) {
    t.inter_gbps = t.all_nics_gbps = t.per_gpu_nic_gbps =
        in_gigabytes_per_second(hw.host_link_bandwidth) * model.pcie_efficiency;
    return;
  }
  const double per_nic = nic_effective_gbps(model, in_gigabytes_per_second(hw.nic_speed));
  // Worst case: the traffic crosses the blocking tier, whose uplinks carry 1/oversubscription of the
  // downlinks.
  const double blocking = t.domains > 1 ? std::max(1.0, hw.oversubscription) : 1.0;
  t.all_nics_gbps = t.nics_used * per_nic / blocking;
  // A ring or tree crosses each domain boundary once per channel, through one NIC: when a domain has more
  // NICs than the group has channels (72 on an NVL72), only `channels` of them carry it.
  t.inter_gbps = std::min(t.nics_used, t.channels) * per_nic / blocking;
  t.per_gpu_nic_gbps =
      std::max(1.0, hw.nics_per_node / std::max(1.0, 1.0 * hw.gpus_per_node)) * per_nic / blocking;
}

}  // namespace

double Topology::ring_gbps() const {
  double bw = std::numeric_limits<double>::infinity();
  if (ranks_per_domain > 1) bw = std::min(bw, intra_gbps);
  if (domains > 1) bw = std::min(bw, inter_gbps);
  return std::isfinite(bw) ? bw : 0.0;
}

std::string Topology::ring_bottleneck() const {
  if (domains > 1 && (ranks_per_domain == 1 || inter_gbps < intra_gbps)) return "NIC";
  return intra_name();
}

Topology topology_of(const PerfHardware& hw, const CollectiveModel& model, CollectiveGroup group) {
  Topology t;
  t.ranks = std::max(1, group.ranks);
  t.ranks_per_domain = ranks_per_domain(hw, group);
  t.domains = (t.ranks + t.ranks_per_domain - 1) / t.ranks_per_domain;
  t.arch = architecture_index(hw.architecture);
  t.node_column = t.domains <= 2 ? t.domains - 1 : 2;
  // Inside a domain the path is NVLink when the scale-up fabric joins all of the domain's ranks (a PCIe
  // server whose NVLink joins only bridged pairs runs a node-wide group over PCIe).
  t.nvlink =
      hw.scale_up_domain >= t.ranks_per_domain && hw.scale_up_bandwidth.base() > 0 && t.ranks_per_domain > 1;
  t.nvswitch = t.nvlink && hw.nvswitch;
  t.intra_link = t.nvlink ? CollectiveModel::kNvlink : CollectiveModel::kPci;
  t.intra_gbps = t.nvlink ? in_gigabytes_per_second(hw.scale_up_bandwidth) * model.nvlink_efficiency
                          : in_gigabytes_per_second(hw.host_link_bandwidth) * model.pcie_efficiency;
  if (const auto* mesh = model.mesh_fabric(hw.system_id, hw.architecture); mesh != nullptr && t.nvlink) {
    // A switchless mesh: a GPU reaches each peer over its own link, so a group of r uses r - 1 of its links
    // (rings over disjoint links), not the GPU's whole scale-up bandwidth; no switch, so no NVLS.
    const double link = in_gigabytes_per_second(hw.scale_up_bandwidth) / mesh->peer_links;
    const int peers = std::min(t.ranks_per_domain - 1, mesh->peer_links);
    t.mesh = true;
    t.mesh_link = mesh->link;
    t.nvswitch = false;
    t.intra_gbps = peers * link * mesh->efficiency.value_or(model.nvlink_efficiency);
  }
  t.nics_used = nics_used_per_domain(hw, group, t.ranks_per_domain);
  t.channels = channels_of(t, model);
  set_network(t, hw, model);
  return t;
}

double Case::hop_us(CollectiveModel::Link link, CollectiveAlgorithm a, CollectiveProtocol p) const {
  return model.hop_latency_us[link][static_cast<int>(a)][static_cast<int>(p)];
}

double Case::base_us(CollectiveAlgorithm a, CollectiveProtocol p) const {
  return model.base_latency_us[static_cast<int>(a)][static_cast<int>(p)];
}

double Case::ll_max_gbps() const {
  // NCCL picks the LL row by GPU on one node (domain) and by host CPU beyond (row 0: an Intel host is
  // assumed).
  const int row = topo.domains == 1 ? topo.arch : 0;
  return model.ll_max_bw[row][topo.node_column];
}

}  // namespace gputwin::collectives
