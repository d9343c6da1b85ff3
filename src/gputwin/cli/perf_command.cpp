// `gputwin perf`: the performance models on a designed cluster. Each subcommand lives in its own file
// (perf_<name>_command.cpp) and is registered here.
#include <fmt/format.h>

#include <iostream>

#include "gputwin/cli/commands.hpp"

namespace gputwin::cli {

std::optional<PerfHardware> load_perf_hardware(const std::string& spec_path,
                                               const CatalogOptions& catalog_options,
                                               const std::string& node_type) {
  const auto catalog = load_catalog(catalog_options);
  if (!catalog) return std::nullopt;
  const auto cluster = load_designed_cluster(spec_path, *catalog, node_type);
  if (!cluster) return std::nullopt;
  auto hardware = perf_hardware(*cluster, *catalog);
  if (!hardware.ok()) {
    std::cerr << hardware.error_text();
    return std::nullopt;
  }
  return std::move(hardware).value();
}

void add_node_type_option(CLI::App& command, std::string& node_type) {
  command.add_option(
      "--node-type", node_type,
      "with --cluster: the catalog system of the compute nodes to model, when the design holds "
      "several");
}

SystemChoice system_choice(const Catalog& catalog, const std::string& id, const std::string& option) {
  const SystemChoice choice{find_gpu_system(catalog, id)};
  if (!choice.has_gpus()) {
    throw UsageFailure{option + ": '" + id +
                       "' is neither a GPU system nor a rack system of the catalog (gputwin catalog list "
                       "--kind system, --kind rack_system)"};
  }
  return choice;
}

int replica_nodes(const SystemChoice& choice, int tp, int replica_gpus) {
  if (tp > choice.domain_gpus()) {
    throw UsageFailure{fmt::format(
        "--tp: TP {} is more than the {} GPUs of one scale-up domain of {}; tensor parallelism is placed "
        "inside one domain (more GPUs a replica: --pp, or --ep for a mixture of experts)",
        tp, choice.domain_gpus(), choice.rack != nullptr ? choice.rack->info.id : choice.node_id())};
  }
  const int gpus_per_node = choice.node->accelerators;
  const int nodes = std::max(1, (replica_gpus + gpus_per_node - 1) / gpus_per_node);
  const int unit = choice.nodes_per_unit();
  return (nodes + unit - 1) / unit * unit;
}

void add_perf_command(CLI::App& app, int& exit_code) {
  auto* perf =
      app.add_subcommand("perf", "performance models: collectives, training, sizing, inference, serving");
  perf->require_subcommand(1);
  // Subcommands register here, one line each:
  add_perf_roofline_command(*perf, exit_code);
  add_perf_infer_command(*perf, exit_code);
  add_perf_collective_command(*perf, exit_code);
  add_perf_train_command(*perf, exit_code);
  add_perf_size_command(*perf, exit_code);
  add_perf_serve_command(*perf, exit_code);
  add_perf_goodput_command(*perf, exit_code);
}

}  // namespace gputwin::cli
