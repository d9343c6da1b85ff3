// `--power-cap W` (and `--run-tokens T` for perf train): the power model's inputs for perf train and perf
// infer, loaded once; the commands hand them to perf/power_model and report/power_report.
#include <iostream>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"

namespace gputwin::cli {

void add_power_options(CLI::App& command, PowerOptions& options, bool training) {
  command.add_option("--power-cap", options.cap,
                     "GPU power limit, e.g. 500W: step time, throughput and energy under it (default: the "
                     "catalog TDP; docs/perf-power.md)");
  if (training) {
    command.add_option("--run-tokens", options.run_tokens,
                       "tokens of the whole training run, e.g. 15T, for its energy (default: per 1T tokens)");
  }
}

std::optional<PowerContext> load_power_context(const PowerOptions& options, const PerfHardware& hardware,
                                               const CatalogOptions& catalog_options,
                                               const std::string& command) {
  PowerContext context;
  if (!options.cap.empty()) {
    const auto parsed = parse_quantity<Power>(options.cap);
    if (const auto* error = std::get_if<std::string>(&parsed)) throw UsageFailure{"--power-cap: " + *error};
    context.cap = std::get<Power>(parsed);
  }
  if (!options.run_tokens.empty()) {
    context.run_tokens = parse_parameter_count(options.run_tokens);
    if (context.run_tokens <= 0) {
      throw UsageFailure{
          "--run-tokens: expected a count with a unit suffix (K, M, B or T), such as 15T, got '" +
          options.run_tokens + "'"};
    }
  }
  const std::string data = bundled_data_dir();
  auto model = load_power_model(data + "/power/power-model.yaml");
  if (!model.ok()) {
    std::cerr << model.error_text();
    return std::nullopt;
  }
  context.data = std::move(model).value();
  auto point = power_operating_point(context.data, hardware.accelerator, context.cap);
  if (!point.ok()) throw UsageFailure{point.errors().front().to_string()};
  context.point = std::move(point).value();
  const auto catalog = load_catalog(catalog_options);
  if (!catalog) return std::nullopt;
  const System* system = catalog->find<System>(hardware.system_id);
  if (system == nullptr) {
    std::cerr << command << ": the catalog has no system '" << hardware.system_id
              << "' for the node's power\n";
    return std::nullopt;
  }
  auto density = load_rack_density(data + "/perf/sizing-racks.yaml", *catalog);
  if (!density.ok()) {
    std::cerr << density.error_text();
    return std::nullopt;
  }
  context.node = node_power_of(*catalog, density.value(), *system, hardware.accelerator);
  context.system_id = hardware.system_id;
  if (const auto found = context.data.systems.find(hardware.system_id); found != context.data.systems.end())
    context.published = found->second;
  return context;
}

}  // namespace gputwin::cli
