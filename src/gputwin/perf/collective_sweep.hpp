// What nccl-tests would measure for one collective, from the collective model: its sizes (-b/-e/-f), element
// counts (-d) and the group of ranks it runs on, each size estimated by estimate_collective.
//
//   CollectiveGroup group = nccl_tests_group(hw, /*gpus=*/64, /*gpus_per_node=*/0);   // 8 nodes of 8
//   CollectiveSweep sweep = sweep_collective(hw, model, {CollectiveOp::all_reduce, group, {}, 8, 8LL << 30,
//   2,
//                                                        *nccl_type_bytes("float"), {20, false}});
//   double average = average_busbw(sweep.rows);                // nccl-tests' "Avg bus bandwidth"
//
// Bad requests (more GPUs than the cluster has, a group that does not fill whole nodes, an algorithm that
// cannot run on the group) throw std::invalid_argument saying which option is wrong and why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/nccl_tests_loop.hpp"

namespace gputwin {

// nccl-tests' element type names (-d) and their sizes in bytes; empty for a name it does not know.
[[nodiscard]] std::optional<int> nccl_type_bytes(std::string_view name);
[[nodiscard]] std::string nccl_type_names();  // "int8, uint8, ..." for messages
// "all_reduce, all_gather, ..." for messages.
[[nodiscard]] std::string collective_names();

// The group nccl-tests would run: `gpus` ranks over as many nodes as needed, `gpus_per_node` on each (0: full
// nodes, or all the ranks on one node when they fit).
[[nodiscard]] CollectiveGroup nccl_tests_group(const PerfHardware& hw, int gpus, int gpus_per_node);

struct CollectiveSweepSpec {
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveGroup group;
  CollectiveChoice choice;  // forced algorithm/protocol, as NCCL_ALGO/NCCL_PROTO
  std::int64_t min_bytes = 8;
  std::int64_t max_bytes = std::int64_t{8} << 30;
  std::int64_t factor = 2;
  int type_bytes = 4;
  NcclTestsLoopSettings loop;  // how nccl-tests times each size (-n, -z)
};

struct CollectiveSweepRow {
  std::int64_t bytes = 0;  // nccl-tests' size column: the count times the element size (times the ranks for
                           // the collectives that count per rank)
  std::int64_t count = 0;  // elements
  CollectiveEstimate estimate;  // one operation alone
  NcclTestsTime printed;        // what nccl-tests' loop prints for it
  double algbw_gbps = 0;        // from the printed time, as nccl-tests computes them
  double busbw_gbps = 0;
};

struct CollectiveSweep {
  CollectiveSweepSpec spec;
  std::vector<CollectiveSweepRow> rows;
};

[[nodiscard]] CollectiveSweep sweep_collective(const PerfHardware& hw, const CollectiveModel& model,
                                               const CollectiveSweepSpec& spec);
[[nodiscard]] double average_busbw(const std::vector<CollectiveSweepRow>& rows);

}  // namespace gputwin
