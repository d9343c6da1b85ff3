// `--power-cap W` or `--clock-limit MHz` (and `--run-tokens T` for perf train): the power model's inputs for
// perf train and perf infer, loaded once; the commands hand them to perf/power_model and report/power_report.
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"

namespace gputwin::cli {
namespace {

// "1500", "1500MHz" or "1500 MHz" -> 1500; empty -> none; anything else a usage error.
std::optional<double> parse_clock_limit(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::string number = text;
  if (const auto unit = number.find_first_not_of("0123456789. "); unit != std::string::npos) {
    std::string suffix = number.substr(unit);
    for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (suffix != "mhz") {
      throw UsageFailure{"--clock-limit: expected a clock in MHz, such as 1500MHz, got '" + text + "'"};
    }
    number.resize(unit);
  }
  char* end = nullptr;
  const double mhz = std::strtod(number.c_str(), &end);
  if (end == number.c_str() || mhz <= 0)
    throw UsageFailure{"--clock-limit: expected a clock in MHz above zero, such as 1500MHz, got '" + text +
                       "'"};
  return mhz;
}

}  // namespace

void add_power_options(CLI::App& command, PowerOptions& options, bool training) {
  command.add_option("--power-cap", options.cap,
                     "GPU power limit, e.g. 500W: step time, throughput and energy under it (default: the "
                     "catalog TDP; docs/perf-power.md)");
  command.add_option("--clock-limit", options.clock_limit,
                     "SM clock locked at MHz, e.g. 1500MHz: step time, throughput and energy with the "
                     "clock fraction (parts with a published SM clock range only; docs/perf-power.md)");
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
  const std::optional<double> clock_mhz = parse_clock_limit(options.clock_limit);
  if (clock_mhz && context.cap)
    throw UsageFailure{"--clock-limit and --power-cap: give one (a clock limit sets the power by the model)"};
  auto point = clock_mhz ? clock_limited_operating_point(context.data, hardware.accelerator, *clock_mhz)
                         : power_operating_point(context.data, hardware.accelerator, context.cap);
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
