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
#include "gputwin/perf/collective_sweep.hpp"
#include "gputwin/report/collective_report.hpp"

namespace gputwin::cli {
namespace {

struct CollectiveOptions {
  std::string cluster;
  std::string node_type;
  std::string op;
  int gpus = 0;
  int gpus_per_node = 0;
  std::string min_size = "8";
  std::string max_size = "8G";
  std::int64_t factor = 2;
  std::string dtype = "float";
  std::string algorithm;
  std::string protocol;
  int iters = 0;  // 0: nccl-tests' default, from the data
  bool blocking = false;
  int gpus_per_process = 1;  // nccl-tests' -g
  bool explain = false;
  bool json = false;
  CatalogOptions catalog;
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
  throw UsageFailure{"--op: unknown collective '" + name + "'; known: " + collective_names()};
}

int parse_dtype(const std::string& name) {
  if (const auto bytes = nccl_type_bytes(name)) return *bytes;
  throw UsageFailure{"--dtype: unknown type '" + name + "'; known: " + nccl_type_names()};
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
    const auto hw = load_perf_hardware(options.cluster, options.catalog, options.node_type);
    if (!hw) return kInputError;
    const CollectiveGroup group = nccl_tests_group(*hw, options.gpus, options.gpus_per_node);
    const auto model = load_collective_model(bundled_data_dir() + "/perf/nccl-cost-model.yaml");
    if (!model.ok()) {
      std::cerr << model.error_text();
      return kInputError;
    }
    if (group.ranks_per_node % options.gpus_per_process != 0)
      throw UsageFailure{"--gpus-per-process: " + std::to_string(options.gpus_per_process) +
                         " does not divide the group's " + std::to_string(group.ranks_per_node) +
                         " GPUs per node (a process drives GPUs of one node)"};
    const NcclTestsLoopSettings loop{options.iters > 0 ? options.iters : model.value().nccl_tests_loop.iters,
                                     options.blocking, options.gpus_per_process,
                                     model.value().nccl_tests_loop.host_launch_us_per_gpu};
    const CollectiveSweep sweep = sweep_collective(
        *hw, model.value(), {op, group, choice, min_bytes, max_bytes, options.factor, type_bytes, loop});
    if (options.json) {
      std::cout << collective_json(sweep, *hw, model.value(), options.dtype).dump(2) << "\n";
    } else {
      std::cout << collective_text(sweep, *hw, model.value(), {options.dtype, options.explain});
    }
    return 0;
  } catch (const UsageFailure& failure) {
    std::cerr << "perf collective: " << failure.message << "\n";
    return kUsageError;
  } catch (const std::invalid_argument& bad_request) {
    std::cerr << "perf collective: " << bad_request.what() << "\n";
    return kUsageError;
  }
}

}  // namespace

void add_perf_collective_command(CLI::App& perf, int& exit_code) {
  auto options = std::make_shared<CollectiveOptions>();
  auto* command =
      perf.add_subcommand("collective", "nccl-tests-shaped table of one collective on a designed cluster");
  command->add_option("--cluster", options->cluster, "cluster spec (YAML)")->required();
  add_node_type_option(*command, options->node_type);
  command
      ->add_option("--op", options->op,
                   "all_reduce | all_gather | reduce_scatter | broadcast | reduce | alltoall | sendrecv")
      ->required();
  command->add_option("--gpus", options->gpus, "GPUs in the group (nccl-tests' ranks)")
      ->required()
      ->check(positive_number());
  command
      ->add_option("--gpus-per-node", options->gpus_per_node,
                   "GPUs of the group on each node (default: full nodes)")
      ->check(positive_number());
  command->add_option("--min", options->min_size, "smallest size, nccl-tests' -b (default 8)");
  command->add_option("--max", options->max_size, "largest size, nccl-tests' -e (default 8G)");
  command->add_option("--factor", options->factor, "size multiplier per step, nccl-tests' -f (default 2)");
  command->add_option("--dtype", options->dtype, "element type, nccl-tests' -d (default float)");
  command->add_option("--algo", options->algorithm,
                      "force an algorithm, as NCCL_ALGO (default: NCCL's choice)");
  command->add_option("--proto", options->protocol,
                      "force a protocol, as NCCL_PROTO (default: NCCL's choice)");
  command
      ->add_option("--iters", options->iters,
                   "operations timed back to back per size, nccl-tests' -n (default 20, its own default)")
      ->check(positive_number());
  command->add_flag(
      "--blocking", options->blocking,
      "each operation completes before the next, as nccl-tests' -z 1: prints one operation's time");
  command
      ->add_option("--gpus-per-process", options->gpus_per_process,
                   "GPUs one process drives, nccl-tests' -g (default 1): its host issues their calls each "
                   "iteration, at the fitted cost per GPU of data/perf/nccl-cost-model.yaml")
      ->check(positive_number());
  command->add_flag("--explain", options->explain,
                    "per size: algorithm, protocol, latency and bandwidth terms");
  command->add_flag("--json", options->json, std::string("print JSON (schema ") + kCollectiveSchema + ")");
  add_catalog_options(*command, options->catalog);
  command->callback([options, &exit_code] { exit_code = run_collective(*options); });
}

}  // namespace gputwin::cli
