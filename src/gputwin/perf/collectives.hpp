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

// NCCL cost-model constants (latencies, bandwidth caps, efficiencies) for one pinned NCCL version, read from
// data/perf/nccl-cost-model.yaml where each carries its source. Its fields are defined by collectives.cpp's author.
struct CollectiveModel;

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
