// Collective operations as nccl-tests measures them: time, algbw and busbw for one operation of a given size
// on a group of GPUs laid out over nodes, with the algorithm and protocol NCCL's own cost model would choose.
//
//   Result<CollectiveModel> model = load_collective_model(bundled_data_dir() + "/perf/nccl-cost-model.yaml");
//   CollectiveEstimate e = estimate_collective(hw, model.value(), CollectiveOp::all_reduce,
//                                              ByteSize::from_base(1 << 30), CollectiveGroup{64, 8});
//   e.time_us, e.algbw_gbps, e.busbw_gbps, e.algorithm ("Ring", "Tree", "NVLS", ...), e.protocol ("Simple",
//   ...)
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
// (e.g. a tensor-parallel group of 8 in one node: {8, 8}; a data-parallel group of 64 with one GPU per node:
// {64, 1}), and `ranks_per_domain` of them in each scale-up (NVLink) domain they use, which matters when a
// domain spans nodes (an NVL72: a tensor-parallel group of 16 over four 4-GPU trays is {16, 4, 16}).
// ranks_per_domain 0 = the group's nodes are consecutive, so a domain holds nodes_per_domain of them
// (ranks_per_node x nodes_per_domain ranks; on hardware whose domain is the node, ranks_per_node).
struct CollectiveGroup {
  int ranks = 1;
  int ranks_per_node = 1;
  int ranks_per_domain = 0;
  [[nodiscard]] int nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
};

// `ranks` consecutive GPUs: whole nodes, whole domains.
[[nodiscard]] CollectiveGroup consecutive_group(const PerfHardware& hardware, int ranks);
// The ranks per domain `group` has on `hardware` (its ranks_per_domain, or the consecutive-nodes default),
// at least ranks_per_node and at most ranks.
[[nodiscard]] int ranks_per_domain(const PerfHardware& hardware, CollectiveGroup group);

// NCCL's algorithms and protocols, in the order of its tables (tuning.cc's NCCL_ALGO_* / NCCL_PROTO_*).
enum class CollectiveAlgorithm { Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT };
enum class CollectiveProtocol { LL, LL128, Simple };
inline constexpr int kAlgorithmCount = 7;
inline constexpr int kProtocolCount = 3;
[[nodiscard]] std::string_view algorithm_name(CollectiveAlgorithm algorithm);
[[nodiscard]] std::string_view protocol_name(CollectiveProtocol protocol);

// NCCL cost-model constants (latencies, bandwidth caps, efficiencies) for one pinned NCCL version, and the
// measured link efficiencies that turn line rates into achieved bandwidth, read from
// data/perf/nccl-cost-model.yaml where each figure carries its source.
struct CollectiveModel {
  using PerProtocol = std::array<double, kProtocolCount>;         // LL, LL128, Simple
  using PerAlgorithm = std::array<PerProtocol, kAlgorithmCount>;  // Tree, Ring, CollNetDirect, ...
  using PerNodeCount = std::array<double, 3>;                     // 1 node, 2 nodes, more than 2 nodes
  using PerArchitecture = std::array<PerNodeCount, 4>;            // Volta, Ampere, Hopper, Blackwell
  enum Link { kNvlink = 0, kPci = 1, kNet = 2 };

  std::string nccl_version;  // "2.30.7"

  // Latency: base per algorithm and protocol, plus a per-hop latency per link type (tuning.cc).
  PerAlgorithm base_latency_us{};
  std::array<PerAlgorithm, 3> hop_latency_us{};  // [Link]
  double net_post_overhead_us = 0;
  double net_post_overhead_simple_factor = 0;
  double ring_plateau_factor = 1;
  double ring_plateau_min_bytes = 0;  // per channel and rank
  double pat_per_rank_us = 0;
  double pat_net_divisor = 1;

  // Bandwidth caps and protocol refinements (tuning.cc).
  PerArchitecture ll_max_bw{};
  PerArchitecture per_channel_max_ring_ll128_bw{};
  PerArchitecture per_channel_max_tree_ll128_bw{};
  PerArchitecture per_channel_max_tree_bw{};
  PerArchitecture per_channel_max_nvls_tree_bw{};
  std::array<double, 4> nvls_efficiency{};
  struct Refinements {
    double ring_ll_share = 0;
    double ring_ll128_share = 0;
    double tree_share = 0;
    double tree_ll_divisor = 1;
    double tree_ll128_share_one_node = 0;
    double tree_ll128_share_multi_node = 0;
    double pat_share = 0;
    double tree_to_algbw = 0;
  } refinements;
  std::array<std::vector<double>, kProtocolCount> tree_correction;  // by log2(bytes / 64)

  // Topology constants (topo.h): NCCL's usable bandwidth of one NVLink per architecture sets the channel
  // width.
  std::array<double, 4> nvlink_link_bandwidth_gbps{};
  double pci_bandwidth_gbps = 0;
  int max_channels = 0;

  // How many channels one operation runs on (enqueue.cc, tuning.cc): NCCL chooses the algorithm and protocol
  // with all the communicator's channels, then drops channels while the message is under
  // channels x threads x a per-thread threshold, and the scheduler gives a channel at least a minimum of
  // traffic. NVLS and NVLSTree keep their own channel count.
  struct ChannelTuning {
    PerProtocol thread_threshold_bytes{};  // per thread: LL, LL128, Simple
    bool ring_ll_threshold_per_rank = false;
    PerProtocol max_threads{};                    // per channel: LL, LL128, Simple
    double ring_simple_threads_on_slow_ring = 0;  // Ring/Simple when the ring's bandwidth <= PCI_BW
    double min_traffic_per_channel_bytes = 0;
    double all_reduce_traffic_per_byte = 1;
    double ll_traffic_factor = 1;
  } channel_tuning;

  // How one operation is cut into chunks and slices (enqueue.cc calcCollChunking, collectives.h): a step is
  // the protocol's buffer / NCCL_STEPS, of which a share is payload; Ring/Simple chunks and slices span
  // several steps by operation; Tree/LL128 shrinks its chunk for small messages. Simple is store-and-forward
  // per slice, which costs a chain (broadcast, reduce) a fill of one slice per hop.
  struct Chunking {
    int steps = 8;                                          // NCCL_STEPS
    PerProtocol buffer_bytes{};                             // LL, LL128, Simple
    PerProtocol data_share{};                               // payload share of a step
    PerProtocol grain_bytes{};                              // a chunk is a multiple of this
    std::array<std::array<int, 2>, 5> ring_simple_steps{};  // [chunk, slice] steps by CollectiveOp (rooted
                                                            // and ring operations; alltoall/sendrecv none)
    double tree_ll128_steps_per_rank = 0;
    double tree_ll128_first_chunks = 0;
    double tree_ll128_first_above_bytes = 0;
    double tree_ll128_second_chunks = 0;
    double tree_ll128_second_above_bytes = 0;
    int thread_halving_multiple = 128;
    // NVLSTree's chunk (calcCollChunking): nvlsChunkSize, capped from `nvls_tree_cap_nodes` domains, then cut
    // to `to` bytes while the message is under `loops` x NVLS channels x heads x the chunk.
    double nvls_tree_chunk_bytes = 0;
    int nvls_tree_cap_nodes = 0;
    double nvls_tree_cap_bytes = 0;
    int nvls_tree_max_heads = 0;              // NCCL_MAX_NVLS_ARITY
    std::array<int, 4> nvls_tree_channels{};  // NVLS channels across nodes, by architecture
    struct Reduction {
      double loops = 0;
      double to_bytes = 0;
    };
    std::vector<Reduction> nvls_tree_reductions;
  } chunking;

  // Achieved bandwidth (measured, with sources): line rate x efficiency.
  double nvlink_efficiency = 0;  // payload share of an NVLink with 128-byte packets
  double pcie_efficiency = 0;
  struct NicEfficiency {
    double line_rate_gbps = 0;      // one direction, GB/s
    double effective_min_gbps = 0;  // busbw per NIC measured by nccl-tests
    double effective_max_gbps = 0;
    [[nodiscard]] double efficiency() const {
      return (effective_min_gbps + effective_max_gbps) / 2 / line_rate_gbps;
    }
  };
  std::vector<NicEfficiency> nic_efficiency;  // the entry of the nearest line rate is used

  // Switchless scale-up fabrics (a GPU links to each peer directly), by architecture or by catalog system
  // (a board without NVSwitch for a GPU that other boards switch), from collectives-mesh-fabrics.yaml next to
  // the model file; NVIDIA's NVLink/NVSwitch rules apply to the rest.
  struct MeshFabric {
    std::string name;
    std::string link;  // the link's name in outputs ("Infinity Fabric", "NVLink")
    std::vector<std::string> architectures;
    std::vector<std::string> systems;
    int peer_links = 0;                // peers one GPU links to, each over its own share of its links
    std::optional<double> efficiency;  // achieved share of a link's line rate; none: nvlink_efficiency
  };
  std::vector<MeshFabric> mesh_fabrics;
  // The fabric of the system if one names it, else of the architecture; nullptr: none.
  [[nodiscard]] const MeshFabric* mesh_fabric(const std::string& system_id,
                                              const std::string& architecture) const;
  std::array<std::string, 7> busbw_factor_text;  // nccl-tests' formulas as published, by CollectiveOp

  // How nccl-tests times what it prints (perf/nccl_tests_loop.hpp): `iters` operations back to back on each
  // rank's stream, the elapsed time / iters, averaged over ranks.
  struct NcclTestsLoop {
    int iters = 1;
    // Host time to enqueue and launch one GPU's operation when one process drives several GPUs (-g): fitted
    // on fit sources (data/perf/nccl-cost-model.yaml), user-settable.
    double host_launch_us_per_gpu = 0;
  } nccl_tests_loop;

  // How far NVLS inside one domain has been checked on held-out points: up to `checked_up_to_ranks` ranks; a
  // larger NVLS domain's prediction carries `beyond`, the held-out error found there (with its source).
  struct NvlsDomainCheck {
    int checked_up_to_ranks = 0;
    std::string beyond;
  } nvls_domain_check;
};

// Forces an algorithm or protocol, as NCCL_ALGO / NCCL_PROTO do; unset = NCCL's own choice.
struct CollectiveChoice {
  std::optional<CollectiveAlgorithm> algorithm;
  std::optional<CollectiveProtocol> protocol;
};
[[nodiscard]] std::optional<CollectiveAlgorithm> algorithm_from_name(
    std::string_view name);  // case-insensitive
[[nodiscard]] std::optional<CollectiveProtocol> protocol_from_name(std::string_view name);

struct CollectiveEstimate {
  CollectiveOp op = CollectiveOp::all_reduce;
  ByteSize bytes;  // the size nccl-tests prints for this operation
  CollectiveGroup group;
  std::string algorithm;    // Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT
  std::string protocol;     // LL, LL128, Simple
  double latency_us = 0;    // the latency term
  double bandwidth_us = 0;  // the bandwidth term (bytes / algorithm bandwidth)
  double time_us = 0;       // latency + bandwidth (+ pipeline fill for a rooted Simple chain)
  double algbw_gbps = 0;    // bytes / time, GB/s
  double busbw_gbps = 0;    // algbw x busbw_factor
  // What the bandwidth term rests on (for --explain).
  int channels = 0;  // NCCL channels this size runs on (fewer than the communicator's for small sizes)
  int channels_available = 0;   // the communicator's channels (what NCCL's cost model chose with)
  double link_busbw_gbps = 0;   // achieved bus bandwidth of the bottleneck before protocol caps
  std::string bottleneck;       // "NVLink", "PCIe", "NIC", ...
  int threads_per_channel = 0;  // NCCL's threads per channel at this size (halved for small messages)
  double chunk_bytes = 0;       // payload bytes of one chunk on one channel (calcCollChunking)
  double slice_bytes = 0;       // payload bytes a Simple receiver waits for before it forwards
  int chunks_per_channel = 0;   // chunks one channel moves (per rank's share for ring operations)
  double pipeline_fill_us = 0;  // store-and-forward fill of a rooted Simple chain (in time_us)
  bool available = true;        // false when a forced algorithm/protocol cannot run this operation here
};

[[nodiscard]] Result<CollectiveModel> load_collective_model(const std::string& path);

// One operation of `bytes` (the size nccl-tests prints) on `group`, with NCCL's choice of algorithm and
// protocol: the argmin of latency + bytes / bandwidth over the enabled pairs, where latency is NCCL's own
// model and bandwidth is the achieved bandwidth of the bottleneck link (line rate x measured efficiency)
// under NCCL's protocol caps.
[[nodiscard]] CollectiveEstimate estimate_collective(const PerfHardware& hardware,
                                                     const CollectiveModel& model, CollectiveOp op,
                                                     ByteSize bytes, CollectiveGroup group,
                                                     const CollectiveChoice& choice = {});

}  // namespace gputwin
