// `gputwin perf collective`: what nccl-tests would print for one collective on a designed cluster, from the
// collective model (perf/collectives.hpp), in nccl-tests' own layout (out-of-place columns).
#include <fmt/format.h>

#include <cctype>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/perf/collectives.hpp"

namespace gputwin::cli {
namespace {

struct CollectiveOptions {
  std::string cluster;
  std::string op;
  int gpus = 0;
  int gpus_per_node = 0;
  std::string min_size = "8";
  std::string max_size = "8G";
  std::int64_t factor = 2;
  std::string dtype = "float";
  std::string algorithm;
  std::string protocol;
  bool explain = false;
  bool json = false;
  CatalogOptions catalog;
};

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

struct UsageFailure {
  std::string message;
};

// nccl-tests' -b/-e: a whole number of bytes with an optional K, M or G suffix (powers of 1024).
std::int64_t parse_size(const std::string& option, const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string suffix = text.substr(digits);
  const std::string hint =
      "expected bytes with an optional K, M or G suffix (1024-based, as nccl-tests' -b/-e), "
      "e.g. 8, 1K, 256M, 8G";
  if (digits == 0) throw UsageFailure{option + ": '" + text + "' has no number; " + hint};
  std::int64_t unit = 1;
  if (suffix == "K" || suffix == "k")
    unit = std::int64_t{1} << 10;
  else if (suffix == "M" || suffix == "m")
    unit = std::int64_t{1} << 20;
  else if (suffix == "G" || suffix == "g")
    unit = std::int64_t{1} << 30;
  else if (!suffix.empty())
    throw UsageFailure{option + ": '" + text + "' has an unknown unit '" + suffix + "'; " + hint};
  if (digits > 12) throw UsageFailure{option + ": '" + text + "' is too large"};
  return std::stoll(text.substr(0, digits)) * unit;
}

CollectiveOp parse_op(const std::string& name) {
  if (const auto op = collective_from_name(name)) return *op;
  std::string known;
  for (const auto op : kOps) known += (known.empty() ? "" : ", ") + std::string(collective_name(op));
  throw UsageFailure{"--op: unknown collective '" + name + "'; known: " + known};
}

int parse_dtype(const std::string& name) {
  std::string known;
  for (const auto& type : kDataTypes) {
    if (type.name == name) return type.bytes;
    known += (known.empty() ? "" : ", ") + std::string(type.name);
  }
  throw UsageFailure{"--dtype: unknown type '" + name + "'; known: " + known};
}

CollectiveChoice parse_choice(const CollectiveOptions& options) {
  CollectiveChoice choice;
  if (!options.algorithm.empty()) {
    choice.algorithm = algorithm_from_name(options.algorithm);
    if (!choice.algorithm) {
      throw UsageFailure{"--algo: unknown algorithm '" + options.algorithm +
                         "'; known: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT"};
    }
  }
  if (!options.protocol.empty()) {
    choice.protocol = protocol_from_name(options.protocol);
    if (!choice.protocol)
      throw UsageFailure{"--proto: unknown protocol '" + options.protocol + "'; known: LL, LL128, Simple"};
  }
  return choice;
}

// The group nccl-tests would run: --gpus over as many nodes as needed, --gpus-per-node on each.
CollectiveGroup parse_group(const CollectiveOptions& options, const PerfHardware& hw) {
  if (options.gpus > hw.gpus()) {
    throw UsageFailure{fmt::format("--gpus: {} GPUs asked, the cluster has {} ({} node(s) x {} GPUs)",
                                   options.gpus, hw.gpus(), hw.nodes, hw.gpus_per_node)};
  }
  const int per_node =
      options.gpus_per_node > 0 ? options.gpus_per_node : std::min(options.gpus, hw.gpus_per_node);
  if (per_node > hw.gpus_per_node) {
    throw UsageFailure{
        fmt::format("--gpus-per-node: {} asked, a node has {} GPUs", per_node, hw.gpus_per_node)};
  }
  if (options.gpus % per_node != 0) {
    throw UsageFailure{fmt::format("--gpus: {} GPUs do not fill whole nodes of {} GPUs (--gpus-per-node)",
                                   options.gpus, per_node)};
  }
  const CollectiveGroup group{options.gpus, per_node};
  if (group.nodes() > hw.nodes) {
    throw UsageFailure{fmt::format("--gpus: {} GPUs at {} per node need {} nodes, the cluster has {}",
                                   options.gpus, per_node, group.nodes(), hw.nodes)};
  }
  if (group.nodes() > 1 && hw.nics_per_node == 0) {
    throw UsageFailure{"--gpus: the group spans nodes but the cluster's nodes have no compute-fabric NICs"};
  }
  return group;
}

struct Row {
  std::int64_t bytes = 0;
  std::int64_t count = 0;
  CollectiveEstimate estimate;
};

// nccl-tests' size and count: all_gather, reduce_scatter and alltoall count elements per rank and print the
// total.
std::vector<Row> sweep(const PerfHardware& hw, const CollectiveModel& model, CollectiveOp op,
                       CollectiveGroup group, const CollectiveChoice& choice, std::int64_t min_bytes,
                       std::int64_t max_bytes, std::int64_t factor, int type_bytes) {
  const bool per_rank =
      op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter || op == CollectiveOp::alltoall;
  const std::int64_t divisor = type_bytes * (per_rank ? group.ranks : 1);
  std::vector<Row> rows;
  for (std::int64_t size = min_bytes; size <= max_bytes; size *= factor) {
    Row row;
    row.count = size / divisor;
    row.bytes = row.count * divisor;
    row.estimate = estimate_collective(hw, model, op, ByteSize::from_base(static_cast<double>(row.bytes)),
                                       group, choice);
    if (!row.estimate.available) {
      throw UsageFailure{fmt::format("--algo/--proto: {}{}{} cannot run {} on this group",
                                     choice.algorithm ? std::string(algorithm_name(*choice.algorithm)) : "",
                                     choice.algorithm && choice.protocol ? "/" : "",
                                     choice.protocol ? std::string(protocol_name(*choice.protocol)) : "",
                                     collective_name(op))};
    }
    rows.push_back(row);
    if (size > max_bytes / factor) break;
  }
  return rows;
}

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

double average_busbw(const std::vector<Row>& rows) {
  double sum = 0;
  for (const auto& row : rows) sum += row.estimate.busbw_gbps;
  return rows.empty() ? 0 : sum / static_cast<double>(rows.size());
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
      in_gigabits_per_second(hw.nic_speed), hw.fabric_tiers, hw.oversubscription, group.ranks, group.nodes(),
      group.ranks_per_node);
}

std::string explain_text(const Row& row) {
  const auto& e = row.estimate;
  return fmt::format(
      "#   {}/{}: latency {:.2f} us + bandwidth {:.2f} us ({} B at {:.2f} GB/s algbw); bottleneck {} {:.1f} "
      "GB/s bus, "
      "{} channels\n",
      e.algorithm, e.protocol, e.latency_us, e.bandwidth_us, row.bytes,
      e.bandwidth_us > 0 ? static_cast<double>(row.bytes) / e.bandwidth_us / 1e3 : 0.0, e.bottleneck,
      e.link_busbw_gbps, e.channels);
}

std::string table_text(const std::vector<Row>& rows, const CollectiveOptions& options, CollectiveOp op,
                       const PerfHardware& hw, CollectiveGroup group, const CollectiveModel& model,
                       std::int64_t min_bytes, std::int64_t max_bytes) {
  std::string out = fmt::format(
      "# gputwin perf collective: {}_perf predicted by the NCCL {} cost model and measured link efficiencies "
      "(not a measurement)\n",
      collective_name(op), model.nccl_version);
  out += fmt::format(
      "# nRanks {} nNodes {} ranksPerNode {} minBytes {} maxBytes {} step: {}(factor) dtype {}\n",
      group.ranks, group.nodes(), group.ranks_per_node, min_bytes, max_bytes, options.factor, options.dtype);
  out += topology_text(hw, group);
  out += "#\n";
  out += "#                                                              out-of-place\n";
  out += "#       size         count      type   redop    root     time   algbw   busbw #wrong\n";
  out += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n";
  for (const auto& row : rows) {
    const auto& e = row.estimate;
    out += fmt::format("{:12}  {:12}  {:>8}  {:>6}  {:6}  {}  {:6.2f}  {:6.2f}  {:>5}\n", row.bytes,
                       row.count, options.dtype, redop_of(op), root_of(op), time_text(e.time_us),
                       e.algbw_gbps, e.busbw_gbps, "N/A");
    if (options.explain) out += explain_text(row);
  }
  out += "# in-place columns omitted: the model predicts the same time in place\n";
  out += fmt::format("# Avg bus bandwidth    : {:g} \n", average_busbw(rows));
  return out;
}

nlohmann::json table_json(const std::vector<Row>& rows, const CollectiveOptions& options, CollectiveOp op,
                          const PerfHardware& hw, CollectiveGroup group, const CollectiveModel& model) {
  nlohmann::json out;
  out["schema"] = "gputwin.collective/1";
  out["op"] = collective_name(op);
  out["dtype"] = options.dtype;
  out["nccl_version"] = model.nccl_version;
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
                    {"time_us", e.time_us},
                    {"algbw_gbps", e.algbw_gbps},
                    {"busbw_gbps", e.busbw_gbps},
                    {"algorithm", e.algorithm},
                    {"protocol", e.protocol},
                    {"latency_us", e.latency_us},
                    {"bandwidth_us", e.bandwidth_us},
                    {"channels", e.channels},
                    {"bottleneck", e.bottleneck}});
  }
  out["avg_busbw_gbps"] = average_busbw(rows);
  return out;
}

int run_collective(const CollectiveOptions& options) {
  try {
    const CollectiveOp op = parse_op(options.op);
    const int type_bytes = parse_dtype(options.dtype);
    const CollectiveChoice choice = parse_choice(options);
    const std::int64_t min_bytes = parse_size("--min", options.min_size);
    const std::int64_t max_bytes = parse_size("--max", options.max_size);
    if (min_bytes < 1) throw UsageFailure{"--min: must be at least 1 byte"};
    if (min_bytes > max_bytes) throw UsageFailure{"--min: larger than --max"};
    if (options.factor < 2) throw UsageFailure{"--factor: must be at least 2"};
    const auto hw = load_perf_hardware(options.cluster, options.catalog);
    if (!hw) return kInputError;
    const CollectiveGroup group = parse_group(options, *hw);
    const auto model = load_collective_model(bundled_data_dir() + "/perf/nccl-cost-model.yaml");
    if (!model.ok()) {
      std::cerr << model.error_text();
      return kInputError;
    }
    const auto rows =
        sweep(*hw, model.value(), op, group, choice, min_bytes, max_bytes, options.factor, type_bytes);
    if (options.json) {
      std::cout << table_json(rows, options, op, *hw, group, model.value()).dump(2) << "\n";
    } else {
      std::cout << table_text(rows, options, op, *hw, group, model.value(), min_bytes, max_bytes);
    }
    return 0;
  } catch (const UsageFailure& failure) {
    std::cerr << "perf collective: " << failure.message << "\n";
    return kUsageError;
  }
}

}  // namespace

void add_perf_collective_command(CLI::App& perf, int& exit_code) {
  auto options = std::make_shared<CollectiveOptions>();
  auto* command =
      perf.add_subcommand("collective", "nccl-tests-shaped table of one collective on a designed cluster");
  command->add_option("--cluster", options->cluster, "cluster spec (YAML)")->required();
  command
      ->add_option("--op", options->op,
                   "all_reduce | all_gather | reduce_scatter | broadcast | reduce | alltoall | sendrecv")
      ->required();
  command->add_option("--gpus", options->gpus, "GPUs in the group (nccl-tests' ranks)")
      ->required()
      ->check(CLI::PositiveNumber);
  command
      ->add_option("--gpus-per-node", options->gpus_per_node,
                   "GPUs of the group on each node (default: full nodes)")
      ->check(CLI::PositiveNumber);
  command->add_option("--min", options->min_size, "smallest size, nccl-tests' -b (default 8)");
  command->add_option("--max", options->max_size, "largest size, nccl-tests' -e (default 8G)");
  command->add_option("--factor", options->factor, "size multiplier per step, nccl-tests' -f (default 2)");
  command->add_option("--dtype", options->dtype, "element type, nccl-tests' -d (default float)");
  command->add_option("--algo", options->algorithm,
                      "force an algorithm, as NCCL_ALGO (default: NCCL's choice)");
  command->add_option("--proto", options->protocol,
                      "force a protocol, as NCCL_PROTO (default: NCCL's choice)");
  command->add_flag("--explain", options->explain,
                    "per size: algorithm, protocol, latency and bandwidth terms");
  command->add_flag("--json", options->json, "print JSON (schema gputwin.collective/1)");
  add_catalog_options(*command, options->catalog);
  command->callback([options, &exit_code] { exit_code = run_collective(*options); });
}

}  // namespace gputwin::cli
