// Internal to the collective model (callers use perf/collectives.hpp): what NCCL's cost model sees of a group
// on a cluster, and one small type per NCCL algorithm behind one narrow interface.
//
//   const collectives::Topology topo = collectives::topology_of(hardware, model, CollectiveGroup{16, 8});
//   const collectives::Case c{model, topo, CollectiveOp::all_reduce, 1e9};
//   collectives::AlgorithmCost cost = collectives::algorithm_model(CollectiveAlgorithm::Ring).cost(c,
//   protocol); cost.available(), cost.latency_us, cost.algbw_gbps
#pragma once

#include <string>

#include "gputwin/perf/collectives.hpp"

namespace gputwin::collectives {

// NCCL's view of a group. Its "node" is the set of ranks it fuses into one topology: a host, or under
// multi-node NVLink (MNNVL) the whole NVLink clique (NCCL fuses the clique's XML topologies into one and
// searches rings, trees and NVLS inside it over NVLink). Here that unit is the scale-up domain: inside it
// every path is NVLink (or PCIe when the domain is smaller than the node), between domains every path is a
// NIC.
struct Topology {
  int ranks = 1;
  int ranks_per_domain = 1;  // ranks in each domain the group uses (NCCL's ranks per node)
  int domains = 1;           // domains the group spans (NCCL's nNodes)
  int arch = 1;              // NCCL's architecture row: 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell
  int node_column = 0;       // NCCL's node-count column: 1, 2, more than 2 domains
  bool nvlink = false;       // the path inside a domain is NVLink (else PCIe)
  bool nvswitch = false;
  bool mesh = false;  // a switchless fabric: each GPU has its own links to each peer (no switch)
  std::string mesh_link;  // the mesh's link ("Infinity Fabric", "NVLink")
  CollectiveModel::Link intra_link = CollectiveModel::kPci;
  double intra_gbps = 0;        // achieved one-way bandwidth of one GPU inside the domain
  double inter_gbps = 0;        // achieved one-way bandwidth a ring or tree gets from the domain's NICs
  double all_nics_gbps = 0;     // achieved one-way bandwidth of all the group's NICs in one domain (alltoall)
  double per_gpu_nic_gbps = 0;  // achieved NIC bandwidth one GPU reaches on its own (point to point)
  int nics_used = 0;            // NICs of the group in one domain
  int channels = 1;

  // The bottleneck of a ring: NVLink/PCIe inside a domain, the domain's NICs between domains.
  [[nodiscard]] double ring_gbps() const;
  [[nodiscard]] std::string ring_bottleneck() const;
  [[nodiscard]] std::string intra_name() const {
    if (mesh) return mesh_link + " mesh";
    return nvlink ? "NVLink" : "PCIe";
  }
};

[[nodiscard]] Topology topology_of(const PerfHardware& hardware, const CollectiveModel& model,
                                   CollectiveGroup group);

// One operation to cost: the model's constants, the topology, the operation and its size in bytes.
struct Case {
  const CollectiveModel& model;
  const Topology& topo;
  CollectiveOp op;
  double bytes;

  [[nodiscard]] double hop_us(CollectiveModel::Link link, CollectiveAlgorithm a, CollectiveProtocol p) const;
  [[nodiscard]] double base_us(CollectiveAlgorithm a, CollectiveProtocol p) const;
  [[nodiscard]] double ll_max_gbps() const;  // NCCL's LL bandwidth cap for this GPU / node count
};

struct AlgorithmCost {
  double latency_us = 0;
  double algbw_gbps = 0;  // achieved algorithm bandwidth; 0 = NCCL does not run this here
  double link_gbps = 0;   // the bottleneck's achieved bus bandwidth before protocol caps
  std::string bottleneck;
  [[nodiscard]] bool available() const { return algbw_gbps > 0; }
};

class AlgorithmModel {
 public:
  virtual ~AlgorithmModel() = default;
  [[nodiscard]] virtual AlgorithmCost cost(const Case& c, CollectiveProtocol protocol) const = 0;
};

[[nodiscard]] const AlgorithmModel& ring_model();
[[nodiscard]] const AlgorithmModel& tree_model();
[[nodiscard]] const AlgorithmModel& nvls_model();
[[nodiscard]] const AlgorithmModel& nvls_tree_model();
[[nodiscard]] const AlgorithmModel& pat_model();
[[nodiscard]] const AlgorithmModel& collnet_model();
[[nodiscard]] const AlgorithmModel& algorithm_model(CollectiveAlgorithm algorithm);

// The channels NCCL runs one operation of this size on with the chosen algorithm and protocol
// (enqueue.cc's channel tuning and scheduler): all of the topology's channels for large messages, fewer
// for small ones; NVLS and NVLSTree keep theirs.
[[nodiscard]] int channels_for_size(const Case& c, CollectiveAlgorithm algorithm,
                                    CollectiveProtocol protocol);
// The topology as an operation on `channels` of its channels sees it: each channel carries its share of the
// links inside and between domains.
[[nodiscard]] Topology with_channels(const Topology& topology, int channels);

// The data threads NCCL gives one channel of a ring at this size (topoGetAlgoInfo: halved, while a multiple
// of 128, as long as the message is under channels x threads x the per-thread threshold); 0 for the other
// algorithms, whose thread counts NCCL sets otherwise.
[[nodiscard]] int ring_threads_for_size(const Case& c, CollectiveAlgorithm algorithm,
                                        CollectiveProtocol protocol);

// How NCCL cuts one channel's share of an operation (enqueue.cc calcCollChunking): chunk and slice payload
// bytes, and how many chunks the channel pipelines through a rank (for a ring: loops of ranks x chunk).
// Modelled for Ring, Tree and NVLSTree (whose chunk_rounds are loops of NVLS channels x heads x chunk);
// chunk_bytes 0 for NVLS, PAT and CollNet (their own rules, not modelled).
struct ChunkPlan {
  double chunk_bytes = 0;
  double slice_bytes = 0;
  double loop_bytes = 0;  // NVLSTree: bytes one loop of every channel's heads moves (loopSize)
  int chunk_rounds = 0;
  bool store_and_forward = false;  // Simple: a receiver forwards a slice only once all of it has arrived
};
[[nodiscard]] ChunkPlan chunk_plan(const Case& c, CollectiveAlgorithm algorithm, CollectiveProtocol protocol,
                                   int channels);

// The extra time of one rooted Simple chain (broadcast, reduce) over its bandwidth term: the first slice
// crosses every hop before the chain streams, store-and-forward, at each hop's per-channel bandwidth (NVLink
// inside a domain, the NICs between domains), less the one slice time the bandwidth term already counts.
// 0 for every other case (rings stream each step's piece; LL and LL128 forward line by line).
[[nodiscard]] double chain_fill_us(const Case& c, CollectiveAlgorithm algorithm, CollectiveProtocol protocol,
                                   const ChunkPlan& plan, int channels);

// Microseconds to move `bytes` at `gbps` GB/s (0 when there is no rate).
[[nodiscard]] double transfer_us(double bytes, double gbps);

// The NVLS heads of a domain (connectNvls): one GPU with its NIC each, at most NCCL_MAX_NVLS_ARITY.
[[nodiscard]] int nvls_heads(const Case& c);

// The extra time of one NVLSTree all_reduce over its latency and bandwidth terms: every hand-off of a chunk
// (into the switch, up and down the tree of domains over the NICs, out of the switch) is store-and-forward,
// so the first loop of chunks crosses every stage before the pipeline streams; the bandwidth term counts the
// slowest stage once. 0 for every other algorithm.
[[nodiscard]] double nvls_tree_fill_us(const Case& c, const ChunkPlan& plan);

// Ring steps of NCCL's model: 2(n-1) for all_reduce, n-1 for all_gather / reduce_scatter, n otherwise.
[[nodiscard]] int ring_steps(CollectiveOp op, int ranks);

// alltoall and sendrecv, which NCCL's tuning model does not cover: point to point over the bottleneck.
[[nodiscard]] AlgorithmCost point_to_point_cost(const Case& c);

}  // namespace gputwin::collectives
