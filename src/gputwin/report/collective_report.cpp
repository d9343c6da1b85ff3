#include "gputwin/report/collective_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace gputwin {
namespace {

std::string time_text(double us) {
  // nccl-tests' precision: fewer decimals as the time grows.
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

std::string_view redop_of(CollectiveOp op) {
  const bool reduces =
      op == CollectiveOp::all_reduce || op == CollectiveOp::reduce || op == CollectiveOp::reduce_scatter;
  return reduces ? "sum" : "none";
}
int root_of(CollectiveOp op) {
  return op == CollectiveOp::broadcast || op == CollectiveOp::reduce ? 0 : -1;
}

// Only when the NVLink domain spans nodes (NVL72 trays): where the group's NVLink ends.
std::string domain_text(const PerfHardware& hw, CollectiveGroup group) {
  if (!hw.domain_spans_nodes()) return "";
  const int per_domain = ranks_per_domain(hw, group);
  return fmt::format(
      "# scale-up domain: {} GPUs ({} nodes) on one NVLink fabric; group {} per domain, {} domain(s)\n",
      hw.scale_up_domain, hw.nodes_per_domain(), per_domain, (group.ranks + per_domain - 1) / per_domain);
}

std::string topology_text(const PerfHardware& hw, CollectiveGroup group) {
  const std::string scale_up =
      hw.scale_up_bandwidth.base() > 0
          ? fmt::format("{} {:.0f} GB/s one-way per GPU", hw.nvswitch ? "NVLink/NVSwitch" : "NVLink",
                        in_gigabytes_per_second(hw.scale_up_bandwidth))
          : fmt::format("PCIe {:.0f} GB/s one-way per GPU", in_gigabytes_per_second(hw.host_link_bandwidth));
  return fmt::format(
             "# topology: {} GPUs per node ({}), {}; {} x {:.0f} Gb/s NICs per node; {} fabric tier(s), "
             "oversubscription "
             "{:.2g}:1; group {} ranks on {} node(s), {} per node\n",
             hw.gpus_per_node, hw.accelerator.info.id, scale_up, hw.nics_per_node,
             in_gigabits_per_second(hw.nic_speed), hw.fabric_tiers, hw.oversubscription, group.ranks,
             group.nodes(), group.ranks_per_node) +
         domain_text(hw, group);
}

// The measurement's share, only where it differs from one operation: a rooted chain whose consecutive
// operations overlap in nccl-tests' loop (perf/nccl_tests_loop.hpp).
std::string loop_text(const NcclTestsTime& printed, int ranks) {
  if (!printed.pipelined) return "";
  return fmt::format(
      "#   nccl-tests loop: {} back-to-back operations of {:.2f} us alone overlap down the chain: each GPU "
      "busy "
      "{:.2f} us an operation (base + bandwidth), the chain's {} hops of {:.2f} us waited once, {:.2f} us "
      "on average over the ranks / {} = {:.2f} us an iteration\n",
      printed.iters, printed.one_operation_us, printed.per_gpu_us, ranks - 1, printed.hop_us, printed.fill_us,
      printed.iters, printed.time_us);
}

// How NCCL cuts the operation (enqueue.cc calcCollChunking) and the store-and-forward fill it pays (a
// rooted Simple chain, NVLSTree); Ring, Tree and NVLSTree only.
std::string chunk_text(const CollectiveEstimate& e) {
  if (e.chunk_bytes <= 0) return "";
  const bool nvls_tree = e.algorithm == "NVLSTree";
  std::string text =
      fmt::format("#   chunks: {:.0f} B chunk, {:.0f} B slice, {} {}", e.chunk_bytes, e.slice_bytes,
                  e.chunks_per_channel, nvls_tree ? "loops of every channel's heads" : "a channel");
  if (e.threads_per_channel > 0) text += fmt::format(", {} threads a channel", e.threads_per_channel);
  if (e.pipeline_fill_us > 0)
    text += fmt::format(
        "; store-and-forward fill {:.2f} us ({})", e.pipeline_fill_us,
        nvls_tree ? "first loop through the switch and the tree of domains" : "first slice down the chain");
  return text + "\n";
}

std::string explain_text(const CollectiveSweepRow& row) {
  const auto& e = row.estimate;
  return fmt::format(
             "#   {}/{}: latency {:.2f} us + bandwidth {:.2f} us ({} B at {:.2f} GB/s algbw); bottleneck {} "
             "{:.1f} GB/s bus, {} of {} channels\n",
             e.algorithm, e.protocol, e.latency_us, e.bandwidth_us, row.bytes,
             e.bandwidth_us > 0 ? static_cast<double>(row.bytes) / e.bandwidth_us / 1e3 : 0.0, e.bottleneck,
             e.link_busbw_gbps, e.channels, e.channels_available) +
         chunk_text(e) + loop_text(row.printed, e.group.ranks);
}

// One process driving several GPUs (-g): the host's share of every iteration, only when it applies.
std::string host_launch_text(const NcclTestsLoopSettings& loop) {
  if (loop.gpus_per_process <= 1) return "";
  return fmt::format(
      "# one process drives {} GPUs (-g {}): its host issues their {} calls every iteration, {:.2f} us at "
      "{:.2f} us a GPU (fitted: data/perf/nccl-cost-model.yaml); time = {}\n",
      loop.gpus_per_process, loop.gpus_per_process, loop.gpus_per_process,
      loop.gpus_per_process * loop.host_launch_us_per_gpu, loop.host_launch_us_per_gpu,
      loop.blocking ? "host + GPUs" : "max(host, GPUs) + min(host, GPUs) / iters");
}

std::string loop_header(const NcclTestsLoopSettings& loop) {
  if (loop.blocking)
    return "# nccl-tests loop: -z 1 (blocking): each operation completes before the next; time = one "
           "operation\n" +
           host_launch_text(loop);
  return fmt::format(
             "# nccl-tests loop: {} operations back to back on each rank's stream (-n {}), elapsed / {}, mean "
             "over ranks; broadcast and reduce overlap down their chain, other operations print one "
             "operation's time\n",
             loop.iters, loop.iters, loop.iters) +
         host_launch_text(loop);
}

// NVLS (or NVLSTree) on a domain of more ranks than the held-out points check: the stated error found there.
std::string nvls_domain_warning(const CollectiveSweep& sweep, const PerfHardware& hw,
                                const CollectiveModel& model) {
  const int per_domain = ranks_per_domain(hw, sweep.spec.group);
  if (per_domain <= model.nvls_domain_check.checked_up_to_ranks) return "";
  const bool nvls = std::any_of(sweep.rows.begin(), sweep.rows.end(), [](const CollectiveSweepRow& row) {
    return row.estimate.algorithm == "NVLS" || row.estimate.algorithm == "NVLSTree";
  });
  if (!nvls) return "";
  return fmt::format("NVLS on {} ranks of one NVLink domain, more than the {} it is checked on: {}",
                     per_domain, model.nvls_domain_check.checked_up_to_ranks, model.nvls_domain_check.beyond);
}

}  // namespace

std::string collective_text(const CollectiveSweep& sweep, const PerfHardware& hw,
                            const CollectiveModel& model, const CollectiveTextOptions& options) {
  const CollectiveOp op = sweep.spec.op;
  const CollectiveGroup group = sweep.spec.group;
  const auto& rows = sweep.rows;
  std::string out = fmt::format(
      "# gputwin perf collective: {}_perf predicted by the NCCL {} cost model and measured link efficiencies "
      "(not a measurement)\n",
      collective_name(op), model.nccl_version);
  out +=
      fmt::format("# nRanks {} nNodes {} ranksPerNode {} minBytes {} maxBytes {} step: {}(factor) dtype {}\n",
                  group.ranks, group.nodes(), group.ranks_per_node, sweep.spec.min_bytes,
                  sweep.spec.max_bytes, sweep.spec.factor, options.dtype);
  out += topology_text(hw, group);
  out += loop_header(sweep.spec.loop);
  if (const std::string warning = nvls_domain_warning(sweep, hw, model); !warning.empty())
    out += "# warning: " + warning + "\n";
  out += "#\n";
  out += "#                                                              out-of-place\n";
  out +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong  algo/proto      "
      "channels\n";
  out += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n";
  for (const auto& row : rows) {
    const auto& e = row.estimate;
    out +=
        fmt::format("{:12}  {:12}  {:>8}  {:>6}  {:6}  {}  {:6.2f}  {:6.2f}  {:>5}  {:<15} {:>8}\n",
                    row.bytes, row.count, options.dtype, redop_of(op), root_of(op),
                    time_text(row.printed.time_us), row.algbw_gbps, row.busbw_gbps, "N/A",
                    e.algorithm + "/" + e.protocol, fmt::format("{}/{}", e.channels, e.channels_available));
    if (options.explain) out += explain_text(row);
  }
  out += "# in-place columns omitted: the model predicts the same time in place\n";
  out += fmt::format("# Avg bus bandwidth    : {:g} \n", average_busbw(rows));
  return out;
}

nlohmann::json collective_json(const CollectiveSweep& sweep, const PerfHardware& hw,
                               const CollectiveModel& model, const std::string& dtype) {
  const CollectiveOp op = sweep.spec.op;
  const CollectiveGroup group = sweep.spec.group;
  const auto& rows = sweep.rows;
  nlohmann::json out;
  out["schema"] = kCollectiveSchema;
  out["op"] = collective_name(op);
  out["dtype"] = dtype;
  out["nccl_version"] = model.nccl_version;
  out["loop"] = {{"iters", sweep.spec.loop.iters}, {"blocking", sweep.spec.loop.blocking}};
  if (sweep.spec.loop.gpus_per_process > 1) {
    out["loop"]["gpus_per_process"] = sweep.spec.loop.gpus_per_process;
    out["loop"]["host_us"] = sweep.spec.loop.gpus_per_process * sweep.spec.loop.host_launch_us_per_gpu;
  }
  out["group"] = {{"ranks", group.ranks}, {"nodes", group.nodes()}, {"ranks_per_node", group.ranks_per_node}};
  out["topology"] = {{"system", hw.system_id},
                     {"accelerator", hw.accelerator.info.id},
                     {"gpus_per_node", hw.gpus_per_node},
                     {"nvswitch", hw.nvswitch},
                     {"scale_up_gbps_one_way", in_gigabytes_per_second(hw.scale_up_bandwidth)},
                     {"nics_per_node", hw.nics_per_node},
                     {"nic_gbits", in_gigabits_per_second(hw.nic_speed)},
                     {"fabric_tiers", hw.fabric_tiers},
                     {"oversubscription", hw.oversubscription}};
  auto& list = out["rows"] = nlohmann::json::array();
  for (const auto& row : rows) {
    const auto& e = row.estimate;
    list.push_back({{"bytes", row.bytes},
                    {"count", row.count},
                    {"time_us", row.printed.time_us},
                    {"algbw_gbps", row.algbw_gbps},
                    {"busbw_gbps", row.busbw_gbps},
                    {"one_operation_us", e.time_us},
                    {"pipelined", row.printed.pipelined},
                    {"algorithm", e.algorithm},
                    {"protocol", e.protocol},
                    {"latency_us", e.latency_us},
                    {"bandwidth_us", e.bandwidth_us},
                    {"channels", e.channels},
                    {"channels_available", e.channels_available},
                    {"chunk_bytes", e.chunk_bytes},
                    {"pipeline_fill_us", e.pipeline_fill_us},
                    {"bottleneck", e.bottleneck}});
  }
  out["avg_busbw_gbps"] = average_busbw(rows);
  if (const std::string warning = nvls_domain_warning(sweep, hw, model); !warning.empty())
    out["warnings"] = nlohmann::json::array({warning});
  return out;
}

CollectiveCurve collective_curve_from_json(const JsonField& root, const std::string& source) {
  CollectiveCurve collective;
  collective.source = source;
  collective.op = root.child("op").string();
  collective.ranks = static_cast<int>(root.child("group").child("ranks").integer());
  const JsonField rows = root.child("rows");
  for (std::size_t i = 0; i < rows.array_size(); ++i) {
    collective.bytes.push_back(rows.element(i).child("bytes").number());
    collective.busbw_gbps.push_back(rows.element(i).child("busbw_gbps").number());
  }
  return collective;
}

}  // namespace gputwin
