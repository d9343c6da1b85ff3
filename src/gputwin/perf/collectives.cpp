// Collective timing: NCCL's cost model chooses the algorithm and protocol and gives the latency; the bandwidth is
// what the bottleneck link achieves (line rate x measured efficiency), under NCCL's protocol caps. One rule for every
// system: nothing here is fitted to a published point.
#include "gputwin/perf/collectives.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

constexpr std::array<std::string_view, 7> kOpNames = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                                      "reduce",     "alltoall",   "sendrecv"};
constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr std::array<std::string_view, kProtocolCount> kProtocolNames = {"LL", "LL128", "Simple"};
constexpr std::array<std::string_view, 4> kArchitectures = {"volta", "ampere", "hopper", "blackwell"};
constexpr std::array<std::string_view, 3> kLinkNames = {"NVLINK", "PCI", "NET"};
constexpr double kMicrosecondsPerSecond = 1e6;
constexpr double kBytesPerGigabyte = 1e9;

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the model

CollectiveModel::PerProtocol read_per_protocol(const YamlField& field) {
  const auto items = field.items();
  if (items.size() != kProtocolCount) field.fail("expected 3 values: LL, LL128, Simple");
  CollectiveModel::PerProtocol values{};
  for (int p = 0; p < kProtocolCount; ++p) values[p] = items[p].number();
  return values;
}

CollectiveModel::PerAlgorithm read_per_algorithm(const YamlField& field) {
  CollectiveModel::PerAlgorithm values{};
  for (int a = 0; a < kAlgorithmCount; ++a) values[a] = read_per_protocol(field.child(kAlgorithmNames[a]));
  return values;
}

CollectiveModel::PerArchitecture read_per_architecture(const YamlField& field) {
  const auto rows = field.items();
  if (rows.size() != 4) field.fail("expected 4 rows: volta, ampere, hopper, blackwell");
  CollectiveModel::PerArchitecture values{};
  for (std::size_t arch = 0; arch < 4; ++arch) {
    const auto cells = rows[arch].items();
    if (cells.size() != 3) rows[arch].fail("expected 3 values: 1 node, 2 nodes, more than 2 nodes");
    for (std::size_t n = 0; n < 3; ++n) values[arch][n] = cells[n].number();
  }
  return values;
}

std::array<double, 4> read_four(const YamlField& field) {
  const auto items = field.items();
  if (items.size() != 4) field.fail("expected 4 values: volta, ampere, hopper, blackwell");
  return {items[0].number(), items[1].number(), items[2].number(), items[3].number()};
}

void read_latency(const YamlField& field, CollectiveModel& model) {
  model.base_latency_us = read_per_algorithm(field.child("base_us"));
  const YamlField hops = field.child("per_hop_us");
  for (int link = 0; link < 3; ++link) model.hop_latency_us[link] = read_per_algorithm(hops.child(kLinkNames[link]));
  model.net_post_overhead_us = field.child("net_post_overhead_us").number();
  model.net_post_overhead_simple_factor = field.child("net_post_overhead_simple_factor").positive_number();
  model.ring_plateau_factor = field.child("ring_plateau_factor").positive_number();
  model.ring_plateau_min_bytes = field.child("ring_plateau_min_bytes_per_channel_rank").positive_number();
  model.pat_per_rank_us = field.child("pat_per_rank_us").number();
  model.pat_net_divisor = field.child("pat_net_divisor").positive_number();
}

void read_caps(const YamlField& field, CollectiveModel& model) {
  model.ll_max_bw = read_per_architecture(field.child("ll_max"));
  model.per_channel_max_ring_ll128_bw = read_per_architecture(field.child("per_channel_max_ring_ll128"));
  model.per_channel_max_tree_ll128_bw = read_per_architecture(field.child("per_channel_max_tree_ll128"));
  model.per_channel_max_tree_bw = read_per_architecture(field.child("per_channel_max_tree"));
  model.per_channel_max_nvls_tree_bw = read_per_architecture(field.child("per_channel_max_nvls_tree"));
  model.nvls_efficiency = read_four(field.child("nvls_efficiency"));
  const YamlField r = field.child("refinements");
  auto& out = model.refinements;
  out.ring_ll_share = r.child("ring_ll_share").positive_number();
  out.ring_ll128_share = r.child("ring_ll128_share").positive_number();
  out.tree_share = r.child("tree_share").positive_number();
  out.tree_ll_divisor = r.child("tree_ll_divisor").positive_number();
  out.tree_ll128_share_one_node = r.child("tree_ll128_share_one_node").positive_number();
  out.tree_ll128_share_multi_node = r.child("tree_ll128_share_multi_node").positive_number();
  out.pat_share = r.child("pat_share").positive_number();
  out.tree_to_algbw = r.child("tree_to_algbw").positive_number();
}

void read_efficiency(const YamlField& field, CollectiveModel& model) {
  model.nvlink_efficiency = field.child("nvlink").child("value").positive_number();
  model.pcie_efficiency = field.child("pcie").child("value").positive_number();
  for (const YamlField& nic : field.child("nic").items()) {
    CollectiveModel::NicEfficiency entry;
    entry.line_rate_gbps = nic.child("line_rate").positive_number();
    entry.effective_min_gbps = nic.child("effective_min").positive_number();
    entry.effective_max_gbps = nic.child("effective_max").positive_number();
    if (entry.effective_max_gbps < entry.effective_min_gbps || entry.effective_max_gbps > entry.line_rate_gbps) {
      nic.fail("effective bandwidth must satisfy min <= max <= line rate");
    }
    model.nic_efficiency.push_back(entry);
  }
  if (model.nic_efficiency.empty()) field.child("nic").fail("at least one NIC efficiency is needed");
}

CollectiveModel read_model(const YamlField& root) {
  CollectiveModel model;
  model.nccl_version = root.child("nccl_version").text();
  read_latency(root.child("latency"), model);
  read_caps(root.child("bandwidth_caps"), model);
  const YamlField correction = root.child("tree_correction");
  for (int p = 0; p < kProtocolCount; ++p) {
    for (const YamlField& value : correction.child(kProtocolNames[p]).items()) {
      model.tree_correction[p].push_back(value.positive_number());
    }
  }
  const YamlField topology = root.child("topology");
  model.nvlink_link_bandwidth_gbps = read_four(topology.child("nvlink_link_bandwidth"));
  model.pci_bandwidth_gbps = topology.child("pci_bandwidth").positive_number();
  model.max_channels = static_cast<int>(topology.child("max_channels").positive_integer());
  read_efficiency(root.child("efficiency"), model);
  const YamlField factors = root.child("busbw_factors");
  for (std::size_t op = 0; op < kOpNames.size(); ++op) model.busbw_factor_text[op] = factors.child(kOpNames[op]).text();
  return model;
}

// ---------------------------------------------------------------------------------------------------------------
// What the cost model sees of a group on a cluster

int architecture_index(const std::string& architecture) {
  for (std::size_t i = 0; i < kArchitectures.size(); ++i) {
    if (architecture == kArchitectures[i]) return static_cast<int>(i);
  }
  // Ada (SM89) sits in NCCL's Ampere row (compute capability 8.x); an unknown architecture is treated likewise.
  return 1;
}

double nic_effective_gbps(const CollectiveModel& model, double line_rate_gbps) {
  const auto nearest = std::min_element(model.nic_efficiency.begin(), model.nic_efficiency.end(),
                                        [&](const auto& a, const auto& b) {
                                          return std::abs(a.line_rate_gbps - line_rate_gbps) <
                                                 std::abs(b.line_rate_gbps - line_rate_gbps);
                                        });
  return line_rate_gbps * nearest->efficiency();
}

struct Topology {
  int ranks = 1;
  int ranks_per_node = 1;
  int nodes = 1;
  int arch = 1;
  int node_column = 0;           // NCCL's node-count column: 1, 2, more than 2
  bool nvlink = false;           // intra-node path is NVLink (else PCIe)
  bool nvswitch = false;
  CollectiveModel::Link intra_link = CollectiveModel::kPci;
  double intra_gbps = 0;         // achieved one-way bandwidth of one GPU inside the node
  double inter_gbps = 0;         // achieved one-way bandwidth of the group's NICs on one node, after blocking
  double per_gpu_nic_gbps = 0;   // achieved NIC bandwidth one GPU reaches on its own (point-to-point)
  int channels = 1;

  // The bottleneck of a ring: NVLink/PCIe inside a node, the node's NICs between nodes.
  [[nodiscard]] double ring_gbps() const {
    double bw = std::numeric_limits<double>::infinity();
    if (ranks_per_node > 1) bw = std::min(bw, intra_gbps);
    if (nodes > 1) bw = std::min(bw, inter_gbps);
    return std::isfinite(bw) ? bw : 0.0;
  }
  [[nodiscard]] std::string ring_bottleneck() const {
    if (nodes > 1 && (ranks_per_node == 1 || inter_gbps < intra_gbps)) return "NIC";
    return nvlink ? "NVLink" : "PCIe";
  }
};

Topology topology_of(const PerfHardware& hw, const CollectiveModel& model, CollectiveGroup group) {
  Topology t;
  t.ranks = std::max(1, group.ranks);
  t.ranks_per_node = std::clamp(group.ranks_per_node, 1, t.ranks);
  t.nodes = group.nodes();
  t.arch = architecture_index(hw.architecture);
  t.node_column = t.nodes <= 2 ? t.nodes - 1 : 2;
  t.nvlink = hw.scale_up_domain >= t.ranks_per_node && hw.scale_up_bandwidth.base() > 0 && t.ranks_per_node > 1;
  t.nvswitch = t.nvlink && hw.nvswitch;
  t.intra_link = t.nvlink ? CollectiveModel::kNvlink : CollectiveModel::kPci;
  t.intra_gbps = t.nvlink ? in_gigabytes_per_second(hw.scale_up_bandwidth) * model.nvlink_efficiency
                          : in_gigabytes_per_second(hw.host_link_bandwidth) * model.pcie_efficiency;
  if (hw.nics_per_node > 0 && hw.nic_speed.base() > 0) {
    const double per_nic = nic_effective_gbps(model, in_gigabytes_per_second(hw.nic_speed));
    // Rail-optimized nodes give each GPU its share of the NICs; a group using part of a node uses part of them.
    const double gpus_per_node = std::max(1, hw.gpus_per_node);
    const int nics_used = std::clamp(
        static_cast<int>(std::ceil(hw.nics_per_node * t.ranks_per_node / gpus_per_node)), 1, hw.nics_per_node);
    // Worst case: the traffic crosses the blocking tier, whose uplinks carry 1/oversubscription of the downlinks.
    const double blocking = t.nodes > 1 ? std::max(1.0, hw.oversubscription) : 1.0;
    t.inter_gbps = nics_used * per_nic / blocking;
    t.per_gpu_nic_gbps = std::max(1.0, hw.nics_per_node / gpus_per_node) * per_nic / blocking;
  } else {
    t.inter_gbps = t.per_gpu_nic_gbps = in_gigabytes_per_second(hw.host_link_bandwidth) * model.pcie_efficiency;
  }
  // Channels: NCCL's graph search fills each GPU's links with channels as wide as one link as NCCL counts it, and
  // uses at least two channels per NIC across nodes.
  const double channel_width = t.nvlink ? model.nvlink_link_bandwidth_gbps[t.arch] : model.pci_bandwidth_gbps;
  int channels = static_cast<int>(std::ceil(t.intra_gbps / channel_width));
  if (t.nodes > 1) channels = std::max(channels, 2 * std::max(1, hw.nics_per_node * t.ranks_per_node /
                                                                    std::max(1, hw.gpus_per_node)));
  t.channels = std::clamp(channels, 2, model.max_channels);
  return t;
}

// ---------------------------------------------------------------------------------------------------------------
// Algorithms: each gives the latency and the achieved algorithm bandwidth of one (operation, protocol), or 0 when
// NCCL does not run it there. One narrow interface, one small function per algorithm.

struct Context {
  const CollectiveModel& model;
  const Topology& topo;
  CollectiveOp op;
  double bytes;
};

struct Cost {
  double latency_us = 0;
  double algbw_gbps = 0;  // 0 = not available
  double link_gbps = 0;
  std::string bottleneck;
};

using AlgorithmCost = Cost (*)(const Context&, CollectiveProtocol);

int proto_index(CollectiveProtocol p) { return static_cast<int>(p); }
int algo_index(CollectiveAlgorithm a) { return static_cast<int>(a); }

double hop(const Context& c, CollectiveModel::Link link, CollectiveAlgorithm a, CollectiveProtocol p) {
  return c.model.hop_latency_us[link][algo_index(a)][proto_index(p)];
}
double base_latency(const Context& c, CollectiveAlgorithm a, CollectiveProtocol p) {
  return c.model.base_latency_us[algo_index(a)][proto_index(p)];
}

double log2_nodes(int nodes) { return std::floor(std::log2(std::max(1, nodes))); }

int ring_steps(CollectiveOp op, int ranks) {
  if (op == CollectiveOp::all_reduce) return 2 * (ranks - 1);
  if (op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter) return ranks - 1;
  return ranks;
}

int ring_inter_steps(CollectiveOp op, int nodes) {
  if (op == CollectiveOp::all_reduce) return 2 * (nodes - 1);
  return nodes - 1;
}

double ring_latency(const Context& c, CollectiveProtocol p) {
  const auto& t = c.topo;
  const auto ring = CollectiveAlgorithm::Ring;
  const int steps = ring_steps(c.op, t.ranks);
  const CollectiveModel::Link hw = t.nodes > 1 ? CollectiveModel::kNet : t.intra_link;
  if (c.op == CollectiveOp::broadcast || c.op == CollectiveOp::reduce) {
    // A pipeline, not a ring: each step pays a chunk; NCCL takes Tree's hop latency for Simple.
    const auto per_step = p == CollectiveProtocol::Simple ? hop(c, hw, CollectiveAlgorithm::Tree, p) : hop(c, hw, ring, p);
    return base_latency(c, ring, p) + steps * per_step;
  }
  const int inter_steps = ring_inter_steps(c.op, t.nodes);
  double net_overhead = 0;
  if (t.nodes > 1) {
    net_overhead = c.model.net_post_overhead_us;
    if (p == CollectiveProtocol::Simple) net_overhead *= c.model.net_post_overhead_simple_factor;
  }
  const double intra = std::max(hop(c, t.intra_link, ring, p), net_overhead);
  // With one GPU per node every step crosses the network, where NCCL counts Tree's NET latency.
  const double inter = hop(c, CollectiveModel::kNet, t.ranks_per_node == 1 ? CollectiveAlgorithm::Tree : ring, p);
  double latency = base_latency(c, ring, p) + (steps - inter_steps) * intra + inter_steps * inter;
  const bool plateau = t.nodes > 1 && c.op == CollectiveOp::all_reduce && p == CollectiveProtocol::Simple &&
                       c.bytes / (t.channels * t.ranks) >= c.model.ring_plateau_min_bytes;
  if (plateau) latency *= c.model.ring_plateau_factor;
  return latency;
}

double ll_max(const Context& c) {
  // NCCL picks the LL row by GPU on one node and by host CPU beyond (row 0: Intel host assumed).
  const int row = c.topo.nodes == 1 ? c.topo.arch : 0;
  return c.model.ll_max_bw[row][c.topo.node_column];
}

Cost ring_cost(const Context& c, CollectiveProtocol p) {
  const auto& t = c.topo;
  const auto& r = c.model.refinements;
  const double link = t.ring_gbps();
  double bus = link;
  if (p == CollectiveProtocol::LL) bus = std::min(ll_max(c), bus * r.ring_ll_share);
  if (p == CollectiveProtocol::LL128) {
    const double cap = t.channels * c.model.per_channel_max_ring_ll128_bw[t.arch][t.node_column];
    bus = std::min(bus * r.ring_ll128_share, cap);
  }
  const double algbw = bus * t.ranks / ring_steps(c.op, t.ranks);
  return {ring_latency(c, p), algbw, link, t.ring_bottleneck()};
}

Cost tree_cost(const Context& c, CollectiveProtocol p) {
  if (c.op != CollectiveOp::all_reduce) return {};
  const auto& t = c.topo;
  const auto& r = c.model.refinements;
  const double link = t.ring_gbps();
  double bus = std::min(link * r.tree_share, t.channels * c.model.per_channel_max_tree_bw[t.arch][t.node_column]);
  if (p == CollectiveProtocol::LL) bus = std::min(bus / r.tree_ll_divisor, ll_max(c));
  if (p == CollectiveProtocol::LL128) {
    const double share = t.nodes == 1 ? r.tree_ll128_share_one_node : r.tree_ll128_share_multi_node;
    bus = std::min(bus * share, t.channels * c.model.per_channel_max_tree_ll128_bw[t.arch][t.node_column]);
  }
  const auto& correction = c.model.tree_correction[proto_index(p)];
  const double size_class = std::floor(std::log2(std::max(1.0, c.bytes / 64)));
  if (size_class < static_cast<double>(correction.size())) bus *= correction[static_cast<std::size_t>(size_class)];
  const auto tree = CollectiveAlgorithm::Tree;
  const double latency = base_latency(c, tree, p) + 2 * ((t.ranks_per_node - 1) * hop(c, t.intra_link, tree, p) +
                                                         log2_nodes(t.nodes) * hop(c, CollectiveModel::kNet, tree, p));
  return {latency, bus * r.tree_to_algbw, link, t.ring_bottleneck()};
}

bool nvls_possible(const Context& c) {
  // NVLink SHARP needs NVSwitch and Hopper or later; NCCL's NVLS efficiency is 0 before Hopper.
  return c.topo.nvswitch && c.model.nvls_efficiency[c.topo.arch] > 0 && c.topo.ranks_per_node > 1;
}

// Achieved NVLS algorithm bandwidth inside a node. all_reduce: each GPU sends its whole buffer into the switch
// (reduction) and receives its reduced 1/n share, then multicasts that share and receives all shares, so each
// direction of its links carries S(1 + 1/n). all_gather / reduce_scatter carry S per direction.
double nvls_intra_algbw(const Context& c) {
  const auto& t = c.topo;
  const double link = t.intra_gbps * c.model.nvls_efficiency[t.arch];
  const double n = t.ranks_per_node;
  return c.op == CollectiveOp::all_reduce ? link * n / (n + 1) : link;
}

Cost nvls_cost(const Context& c, CollectiveProtocol p) {
  const bool op_ok = c.op == CollectiveOp::all_reduce || c.op == CollectiveOp::all_gather ||
                     c.op == CollectiveOp::reduce_scatter;
  // Across nodes NVLS needs CollNet (SHARP) support, off by default: NVLSTree serves multi-node all_reduce.
  if (!op_ok || p != CollectiveProtocol::Simple || !nvls_possible(c) || c.topo.nodes > 1) return {};
  const auto nvls = CollectiveAlgorithm::NVLS;
  return {hop(c, c.topo.intra_link, nvls, p), nvls_intra_algbw(c), c.topo.intra_gbps, "NVLink (NVSwitch multicast)"};
}

Cost nvls_tree_cost(const Context& c, CollectiveProtocol p) {
  if (c.op != CollectiveOp::all_reduce || p != CollectiveProtocol::Simple || !nvls_possible(c)) return {};
  const auto& t = c.topo;
  if (t.nodes == 1) return {};  // NCCL disables NVLSTree on one node
  // Between nodes a tree of node leaders: on two nodes each node's NICs carry S each way; beyond, a tree node
  // forwards for two children, halving what each direction gives (NCCL doubles its inter bandwidth on <= 2 nodes).
  const double inter = t.inter_gbps * (t.nodes <= 2 ? 1.0 : 0.5);
  const double intra = nvls_intra_algbw(c);
  const auto algo = CollectiveAlgorithm::NVLSTree;
  const double latency = base_latency(c, algo, p) + hop(c, t.intra_link, algo, p) +
                         2 * log2_nodes(t.nodes) * hop(c, CollectiveModel::kNet, algo, p);
  return {latency, std::min(intra, inter), std::min(t.intra_gbps, t.inter_gbps), inter < intra ? "NIC" : "NVLink"};
}

Cost pat_cost(const Context& c, CollectiveProtocol p) {
  const auto& t = c.topo;
  const bool op_ok = c.op == CollectiveOp::all_gather || c.op == CollectiveOp::reduce_scatter;
  // PAT runs only with one GPU per node, Simple protocol.
  if (!op_ok || p != CollectiveProtocol::Simple || t.ranks_per_node != 1 || t.nodes < 2) return {};
  const auto pat = CollectiveAlgorithm::PAT;
  const double latency = base_latency(c, pat, p) +
                         log2_nodes(t.nodes) * hop(c, CollectiveModel::kNet, pat, p) / c.model.pat_net_divisor +
                         c.model.pat_per_rank_us * t.ranks;
  const double link = t.ring_gbps();
  const double algbw = link * c.model.refinements.pat_share * t.ranks / ring_steps(c.op, t.ranks);
  return {latency, algbw, link, "NIC"};
}

Cost collnet_cost(const Context&, CollectiveProtocol) {
  return {};  // CollNet needs NCCL_COLLNET_ENABLE and in-network reduction (SHARP): off by default, not modelled
}

AlgorithmCost cost_function(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
    case CollectiveAlgorithm::Tree: return tree_cost;
    case CollectiveAlgorithm::Ring: return ring_cost;
    case CollectiveAlgorithm::NVLS: return nvls_cost;
    case CollectiveAlgorithm::NVLSTree: return nvls_tree_cost;
    case CollectiveAlgorithm::PAT: return pat_cost;
    case CollectiveAlgorithm::CollNetDirect:
    case CollectiveAlgorithm::CollNetChain: return collnet_cost;
  }
  return collnet_cost;
}

// LL128 is enabled by default only on NVLink paths (NCCL: untested elsewhere, risk of silent data corruption); a
// group with one GPU per node has no intra-node path, and NICs next to their GPUs (PIX/PXB) keep it enabled.
bool protocol_enabled(const Topology& t, CollectiveProtocol p) {
  if (p != CollectiveProtocol::LL128) return true;
  return t.nvlink || t.ranks_per_node == 1;
}

double time_us(const Cost& cost, double bytes) {
  return cost.latency_us + bytes / (cost.algbw_gbps * kBytesPerGigabyte) * kMicrosecondsPerSecond;
}

// ---------------------------------------------------------------------------------------------------------------
// alltoall and sendrecv: not in NCCL's tuning model; point to point over the bottleneck.

Cost point_to_point_cost(const Context& c) {
  const auto& t = c.topo;
  const auto ring = CollectiveAlgorithm::Ring;
  const auto simple = CollectiveProtocol::Simple;
  const CollectiveModel::Link hw = t.nodes > 1 ? CollectiveModel::kNet : t.intra_link;
  const double latency = base_latency(c, ring, simple) + hop(c, hw, ring, simple);
  const double n = t.ranks;
  if (c.op == CollectiveOp::sendrecv) {
    // Each rank sends S to the next: a node-boundary pair runs on one GPU's NIC share.
    const double bw = t.nodes > 1 ? std::min(t.intra_gbps, t.per_gpu_nic_gbps) : t.intra_gbps;
    return {latency, bw, bw, t.nodes > 1 ? "NIC" : (t.nvlink ? "NVLink" : "PCIe")};
  }
  // alltoall: each GPU sends S(n-1)/n, of which S(n - ranks_per_node)/n leaves the node through its NICs.
  const double intra_time = t.ranks_per_node > 1 ? (t.ranks_per_node - 1) / n / t.intra_gbps : 0.0;
  const double inter_time = t.nodes > 1 ? t.ranks_per_node * (n - t.ranks_per_node) / n / t.inter_gbps : 0.0;
  const double seconds_per_byte = std::max(intra_time, inter_time);
  const double algbw = seconds_per_byte > 0 ? 1.0 / seconds_per_byte : 0.0;
  const bool nic_bound = inter_time > intra_time;
  return {latency, algbw, nic_bound ? t.inter_gbps : t.intra_gbps, nic_bound ? "NIC" : (t.nvlink ? "NVLink" : "PCIe")};
}

CollectiveEstimate finish(CollectiveEstimate e, const Cost& cost, const Topology& t, double bytes) {
  e.latency_us = cost.latency_us;
  e.bandwidth_us = bytes / (cost.algbw_gbps * kBytesPerGigabyte) * kMicrosecondsPerSecond;
  e.time_us = e.latency_us + e.bandwidth_us;
  e.algbw_gbps = bytes / (e.time_us / kMicrosecondsPerSecond) / kBytesPerGigabyte;
  e.busbw_gbps = e.algbw_gbps * busbw_factor(e.op, t.ranks);
  e.channels = t.channels;
  e.link_busbw_gbps = cost.link_gbps;
  e.bottleneck = cost.bottleneck;
  return e;
}

}  // namespace

std::string_view collective_name(CollectiveOp op) { return kOpNames[static_cast<std::size_t>(op)]; }

std::optional<CollectiveOp> collective_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (name == kOpNames[i]) return static_cast<CollectiveOp>(i);
  }
  return std::nullopt;
}

std::string_view algorithm_name(CollectiveAlgorithm algorithm) { return kAlgorithmNames[algo_index(algorithm)]; }
std::string_view protocol_name(CollectiveProtocol protocol) { return kProtocolNames[proto_index(protocol)]; }

std::optional<CollectiveAlgorithm> algorithm_from_name(std::string_view name) {
  for (int i = 0; i < kAlgorithmCount; ++i) {
    if (equal_ignoring_case(name, kAlgorithmNames[i])) return static_cast<CollectiveAlgorithm>(i);
  }
  return std::nullopt;
}

std::optional<CollectiveProtocol> protocol_from_name(std::string_view name) {
  for (int i = 0; i < kProtocolCount; ++i) {
    if (equal_ignoring_case(name, kProtocolNames[i])) return static_cast<CollectiveProtocol>(i);
  }
  return std::nullopt;
}

double busbw_factor(CollectiveOp op, int ranks) {
  const double n = std::max(1, ranks);
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::alltoall: return (n - 1) / n;
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce:
    case CollectiveOp::sendrecv: return 1;
  }
  return 1;
}

Result<CollectiveModel> load_collective_model(const std::string& path) {
  try {
    return read_model(YamlDocument::load(path).root());
  } catch (const InputFailure& failure) {
    return failure.error();
  } catch (const std::exception& error) {
    return InputError{{path, 0, 0}, "", error.what()};
  }
}

CollectiveEstimate estimate_collective(const PerfHardware& hardware, const CollectiveModel& model, CollectiveOp op,
                                       ByteSize bytes, CollectiveGroup group, const CollectiveChoice& choice) {
  CollectiveEstimate estimate;
  estimate.op = op;
  estimate.bytes = bytes;
  estimate.group = group;
  const Topology topo = topology_of(hardware, model, group);
  const double size = bytes.base();
  if (topo.ranks == 1 || size <= 0) {  // nothing moves: NCCL returns at once
    estimate.algorithm = "none";
    estimate.protocol = "none";
    estimate.channels = topo.channels;
    return estimate;
  }
  const Context context{model, topo, op, size};
  if (op == CollectiveOp::alltoall || op == CollectiveOp::sendrecv) {
    estimate.algorithm = "P2P";
    estimate.protocol = "Simple";
    return finish(estimate, point_to_point_cost(context), topo, size);
  }
  Cost best;
  double best_time = std::numeric_limits<double>::infinity();
  for (int a = 0; a < kAlgorithmCount; ++a) {
    const auto algorithm = static_cast<CollectiveAlgorithm>(a);
    if (choice.algorithm && *choice.algorithm != algorithm) continue;
    for (int p = 0; p < kProtocolCount; ++p) {
      const auto protocol = static_cast<CollectiveProtocol>(p);
      if (choice.protocol ? *choice.protocol != protocol : !protocol_enabled(topo, protocol)) continue;
      const Cost cost = cost_function(algorithm)(context, protocol);
      if (cost.algbw_gbps <= 0) continue;
      const double t = time_us(cost, size);
      if (t < best_time) {
        best_time = t;
        best = cost;
        estimate.algorithm = std::string(algorithm_name(algorithm));
        estimate.protocol = std::string(protocol_name(protocol));
      }
    }
  }
  if (!std::isfinite(best_time)) {
    estimate.available = false;
    estimate.channels = topo.channels;
    return estimate;
  }
  return finish(estimate, best, topo, size);
}

}  // namespace gputwin
