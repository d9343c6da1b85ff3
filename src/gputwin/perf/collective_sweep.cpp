#include "gputwin/perf/collective_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace gputwin {
namespace {

struct DataType {
  std::string_view name;
  int bytes;
};
// nccl-tests' type names (-d) and their sizes.
constexpr std::array<DataType, 12> kDataTypes = {{{"int8", 1},
                                                  {"uint8", 1},
                                                  {"int32", 4},
                                                  {"uint32", 4},
                                                  {"int64", 8},
                                                  {"uint64", 8},
                                                  {"half", 2},
                                                  {"float", 4},
                                                  {"double", 8},
                                                  {"bfloat16", 2},
                                                  {"f8e4m3", 1},
                                                  {"f8e5m2", 1}}};
constexpr std::array<CollectiveOp, 7> kOps = {
    CollectiveOp::all_reduce, CollectiveOp::all_gather, CollectiveOp::reduce_scatter, CollectiveOp::broadcast,
    CollectiveOp::reduce,     CollectiveOp::alltoall,   CollectiveOp::sendrecv};

std::string choice_text(const CollectiveChoice& choice) {
  return (choice.algorithm ? std::string(algorithm_name(*choice.algorithm)) : "") +
         (choice.algorithm && choice.protocol ? "/" : "") +
         (choice.protocol ? std::string(protocol_name(*choice.protocol)) : "");
}

}  // namespace

std::optional<int> nccl_type_bytes(std::string_view name) {
  for (const auto& type : kDataTypes) {
    if (type.name == name) return type.bytes;
  }
  return std::nullopt;
}

std::string nccl_type_names() {
  std::string known;
  for (const auto& type : kDataTypes) known += (known.empty() ? "" : ", ") + std::string(type.name);
  return known;
}

std::string collective_names() {
  std::string known;
  for (const auto op : kOps) known += (known.empty() ? "" : ", ") + std::string(collective_name(op));
  return known;
}

CollectiveGroup nccl_tests_group(const PerfHardware& hw, int gpus, int gpus_per_node) {
  if (gpus > hw.gpus()) {
    throw std::invalid_argument(
        fmt::format("--gpus: {} GPUs asked, the cluster has {} ({} node(s) x {} GPUs)", gpus, hw.gpus(),
                    hw.nodes, hw.gpus_per_node));
  }
  const int per_node = gpus_per_node > 0 ? gpus_per_node : std::min(gpus, hw.gpus_per_node);
  if (per_node > hw.gpus_per_node) {
    throw std::invalid_argument(
        fmt::format("--gpus-per-node: {} asked, a node has {} GPUs", per_node, hw.gpus_per_node));
  }
  if (gpus % per_node != 0) {
    throw std::invalid_argument(
        fmt::format("--gpus: {} GPUs do not fill whole nodes of {} GPUs (--gpus-per-node)", gpus, per_node));
  }
  const CollectiveGroup group{gpus, per_node};
  if (group.nodes() > hw.nodes) {
    throw std::invalid_argument(
        fmt::format("--gpus: {} GPUs at {} per node need {} nodes, the cluster has {}", gpus, per_node,
                    group.nodes(), hw.nodes));
  }
  if (ranks_per_domain(hw, group) < gpus && hw.nics_per_node == 0) {
    throw std::invalid_argument(
        "--gpus: the group spans scale-up domains but the cluster's nodes have no compute-fabric NICs");
  }
  return group;
}

// nccl-tests' size and count: all_gather, reduce_scatter and alltoall count elements per rank and print the
// total.
CollectiveSweep sweep_collective(const PerfHardware& hw, const CollectiveModel& model,
                                 const CollectiveSweepSpec& spec) {
  const CollectiveOp op = spec.op;
  const bool per_rank =
      op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter || op == CollectiveOp::alltoall;
  const std::int64_t divisor = spec.type_bytes * (per_rank ? spec.group.ranks : 1);
  CollectiveSweep sweep{spec, {}};
  for (std::int64_t size = spec.min_bytes; size <= spec.max_bytes; size *= spec.factor) {
    CollectiveSweepRow row;
    row.count = size / divisor;
    row.bytes = row.count * divisor;
    row.estimate = estimate_collective(hw, model, op, ByteSize::from_base(static_cast<double>(row.bytes)),
                                       spec.group, spec.choice);
    if (!row.estimate.available) {
      throw std::invalid_argument(fmt::format("--algo/--proto: {} cannot run {} on this group",
                                              choice_text(spec.choice), collective_name(op)));
    }
    row.printed = nccl_tests_time(row.estimate, model, spec.loop);
    row.algbw_gbps = row.printed.algbw_gbps(static_cast<double>(row.bytes));
    row.busbw_gbps = row.algbw_gbps * busbw_factor(op, spec.group.ranks);
    sweep.rows.push_back(row);
    if (size > spec.max_bytes / spec.factor) break;
  }
  return sweep;
}

double average_busbw(const std::vector<CollectiveSweepRow>& rows) {
  double sum = 0;
  for (const auto& row : rows) sum += row.busbw_gbps;
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
}

}  // namespace gputwin
