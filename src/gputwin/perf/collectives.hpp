// Collective operations as nccl-tests measures them: time, algbw and busbw for one operation of a given size on
// a group of GPUs laid out over nodes, with the algorithm and protocol NCCL's own cost model would choose.
//
//   Result<CollectiveModel> model = load_collective_model(bundled_data_dir() + "/perf/nccl-cost-model.yaml");
//   CollectiveEstimate e = estimate_collective(hw, model.value(), CollectiveOp::all_reduce,
//                                              ByteSize::from_base(1 << 30), CollectiveGroup{64, 8});
//   e.time_us, e.algbw_gbps, e.busbw_gbps, e.algorithm ("Ring", "Tree", "NVLS", ...), e.protocol ("Simple", ...)
//
// busbw follows nccl-tests (busbw = algbw x factor: 2(n-1)/n for all_reduce, (n-1)/n for all_gather,
// reduce_scatter and alltoall, 1 otherwise); GB = 1e9 bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/hardware.hpp"

namespace gputwin {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv };

[[nodiscard]] std::string_view collective_name(CollectiveOp op);  // "all_reduce", ...
[[nodiscard]] std::optional<CollectiveOp> collective_from_name(std::string_view name);
[[nodiscard]] double busbw_factor(CollectiveOp op, int ranks);

// How the communicating GPUs sit: `ranks` GPUs in all, `ranks_per_node` of them on each node they use
// (e.g. a tensor-parallel group of 8 in one node: {8, 8}; a data-parallel group of 64 with one GPU per node: {64, 1}).
struct CollectiveGroup {
  int ranks = 1;
  int ranks_per_node = 1;
  [[nodiscard]] int nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
};

// NCCL's algorithms and protocols, in the order of its tables (tuning.cc's NCCL_ALGO_* / NCCL_PROTO_*).
enum class CollectiveAlgorithm { Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT };
enum class CollectiveProtocol { LL, LL128, Simple };
inline constexpr int kAlgorithmCount = 7;
inline constexpr int kProtocolCount = 3;
[[nodiscard]] std::string_view algorithm_name(CollectiveAlgorithm algorithm);
[[nodiscard]] std::string_view protocol_name(CollectiveProtocol protocol);

// NCCL cost-model constants (latencies, bandwidth caps, efficiencies) for one pinned NCCL version, and the measured
// link efficiencies that turn line rates into achieved bandwidth, read from data/perf/nccl-cost-model.yaml where
// each figure carries its source.
struct CollectiveModel {
  using PerProtocol = std::array<double, kProtocolCount>;          // LL, LL128, Simple
  using PerAlgorithm = std::array<PerProtocol, kAlgorithmCount>;   // Tree, Ring, CollNetDirect, ...
  using PerNodeCount = std::array<double, 3>;                      // 1 node, 2 nodes, more than 2 nodes
  enum Link { kNvlink = 0, kPci = 1, kNet = 2 };
  enum Arch { kVolta = 0, kAmpere = 1, kHopper = 2, kBlackwell = 3 };

  std::string nccl_version;                   // "2.30.7"
  PerAlgorithm base_latency_us{};             // baseLatencies
  std::array<PerAlgorithm, 3> hw_latency_us{};  // hwLatencies[link]; a missing value is 0 (as in NCCL)
  std::array<PerNodeCount, 4> ll_max_bw{};      // llMaxBws[arch] (row for an Intel host)
  std::array<PerNodeCount, 4> per_channel_max_ring_ll128_bw{};
  std::array<PerNodeCount, 4> per_channel_max_tree_ll128_bw{};
  std::array<PerNodeCount, 4> per_channel_max_tree_bw{};
  std::array<PerNodeCount, 4> per_channel_max_nvls_tree_bw{};
  std::array<double, 4> nvls_efficiency{};
  double net_post_overhead_us = 1;            // Intel host
  std::vector<double> tree_correction;        // Tree all_reduce bandwidth factor per power-of-two size from 64 B
  std::vector<double> intra_node_channel_speeds_gbps;  // per-channel speeds the graph search tries, highest first
  std::array<double, 4> nvlink_link_bandwidth_gbps{};  // NCCL's per-NVLink bandwidth (topo.h), GB/s
  double pci_bandwidth_gbps = 12;
  int max_channels = 32;

  // Achieved bandwidth (measured, with sources): line rate x efficiency.
  double nvlink_efficiency = 0.8;             // payload share of an NVLink with 128-byte packets
  double pcie_efficiency = 0.8;
  struct NicEfficiency {
    double line_rate_gbps = 0;                // one direction, GB/s
    double effective_gbps = 0;                // busbw per NIC measured by nccl-tests
  };
  std::vector<NicEfficiency> nic_efficiency;  // nearest line rate is used
};

struct CollectiveEstimate {
  CollectiveOp op = CollectiveOp::all_reduce;
  ByteSize bytes;             // the size nccl-tests prints for this operation
  CollectiveGroup group;
  std::string algorithm;      // Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT
  std::string protocol;       // LL, LL128, Simple
  double latency_us = 0;      // the latency term
  double bandwidth_us = 0;    // the bandwidth term (bytes / algorithm bandwidth)
  double time_us = 0;         // latency + bandwidth
  double algbw_gbps = 0;      // bytes / time, GB/s
  double busbw_gbps = 0;      // algbw x busbw_factor
};

[[nodiscard]] Result<CollectiveModel> load_collective_model(const std::string& path);

// One operation of `bytes` (the size nccl-tests prints) on `group`, with NCCL's choice of algorithm and protocol.
[[nodiscard]] CollectiveEstimate estimate_collective(const PerfHardware& hardware, const CollectiveModel& model,
                                                     CollectiveOp op, ByteSize bytes, CollectiveGroup group);

}  // namespace gputwin
