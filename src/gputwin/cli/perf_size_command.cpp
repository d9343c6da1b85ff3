// `gputwin perf size`: per accelerator, how many GPUs and which split train a model on T tokens within D
// days, whether it fits, the expected MFU and the cost: at a GPU-hour price list (--prices), or at a designed
// cluster's own TCO per GPU-hour (--cluster SPEC, refused when the cluster is not completely priced).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <variant>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/plan/cluster_price.hpp"
#include "gputwin/plan/sizing_goodput.hpp"
#include "gputwin/report/goodput_report.hpp"
#include "gputwin/report/training_report.hpp"
#include "gputwin/sim/failure_rates.hpp"

namespace gputwin::cli {
namespace {

struct SizeOptions {
  std::string model;
  std::string tokens;
  double days = 0;
  std::string accelerators;  // empty: the cluster's accelerator with --cluster, else kDefaultAccelerators
  int sequence = 8192;
  int global_batch = 0;  // 0: default_global_batch(sequence)
  std::string precision = "bf16";
  std::string prices;
  std::string cluster;         // a cluster spec whose TCO per GPU-hour prices its accelerator
  std::string node_type;       // --node-type: one group of a spec of several (its system or rack system)
  std::string memory_reserve;  // empty: data/perf/memory.yaml's default per accelerator
  std::string gemm_fractions;  // ARCH=F,...: assumed GEMM fractions for architectures with no fitted one
  bool days_exclude_failures = false;  // hold --days against the work days (no failure), as before
  bool json = false;
  CatalogOptions catalog;
};

constexpr const char* kDefaultAccelerators = "h100-sxm,h200-sxm,b200,mi300x";
// The failures every answer is run under (perf goodput answers for one job with any profile and times).
constexpr const char* kGoodputProfile = "llama3-table5";
constexpr int kGoodputSeeds = 10;

double parse_tokens(const std::string& text) {
  const double tokens = parse_parameter_count(text);
  if (tokens <= 0) {
    throw UsageFailure{
        "--tokens: expected a count with a unit suffix (K, M, B or T), such as 15T or 300B, got '" + text +
        "'"};
  }
  return tokens;
}

std::vector<std::string> split_list(const std::string& text, const std::string& option = "--accelerators") {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  if (items.empty()) {
    throw UsageFailure{option == "--accelerators"
                           ? "--accelerators: expected catalog accelerator ids, such as h100-sxm,b200"
                           : option + ": expected a comma-separated list"};
  }
  return items;
}

// A misspelt id is a usage error, not a row that says so under an exit status of 0.
void refuse_unknown_accelerators(const std::vector<std::string>& ids, const Catalog& catalog) {
  for (const auto& id : ids) {
    if (catalog.find<Accelerator>(id) != nullptr) continue;
    std::string known;
    for (const auto& part : catalog.all<Accelerator>()) known += (known.empty() ? "" : ", ") + part.info.id;
    throw UsageFailure{"--accelerators: '" + id + "' is not an accelerator in the catalog; known: " + known};
  }
}

// --gemm-fraction ARCH=0.5: only architectures the data leaves unknown (none in the bundled data since cdna3
// was fitted); a fitted one is never replaced.
std::map<std::string, double> parse_gemm_fractions(const std::string& text,
                                                   const TrainingCalibration& calibration) {
  std::map<std::string, double> fractions;
  if (text.empty()) return fractions;
  for (const std::string& item : split_list(text, "--gemm-fraction")) {
    const auto equals = item.find('=');
    const std::string name = item.substr(0, equals);
    const auto& rows = calibration.gemm.architectures();
    const auto row =
        std::find_if(rows.begin(), rows.end(), [&](const GemmArchitecture& a) { return a.name == name; });
    if (equals == std::string::npos || row == rows.end()) {
      throw UsageFailure{
          "--gemm-fraction: expected ARCHITECTURE=FRACTION with an architecture of "
          "data/perf/gemm-efficiency.yaml whose fraction is not fitted, such as ARCH=0.5, got '" +
          item + "'"};
    }
    if (row->peak_fraction) {
      throw UsageFailure{
          fmt::format("--gemm-fraction: {} has a fitted fraction ({:.3f}); only architectures "
                      "without one can be assumed",
                      name, *row->peak_fraction)};
    }
    char* end = nullptr;
    const std::string number = item.substr(equals + 1);
    const double fraction = std::strtod(number.c_str(), &end);
    if (number.empty() || *end != '\0' || !(fraction > 0) || fraction > 1) {
      throw UsageFailure{"--gemm-fraction: " + name + ": expected a fraction of peak in (0, 1], got '" +
                         number + "'"};
    }
    fractions[name] = fraction;
  }
  return fractions;
}

// One node group of a spec of several, as a spec of that group alone: its count, scalable unit and compute
// appliances, the shared fabrics, management and facility as written (max_nodes_per_rack limits packed
// groups only).
ClusterSpec group_alone(const ClusterSpec& spec, const NodeGroupSpec& group) {
  ClusterSpec alone = spec;
  alone.node_groups.clear();
  alone.node_system = group.node_system;
  alone.rack_system = group.rack_system;
  alone.rack_system_count = group.rack_system.empty() ? 0 : group.count;
  alone.node_count = group.node_count;
  alone.system_field = group.field + ".system";
  alone.compute.scalable_unit_nodes = group.compute_scalable_unit_nodes;
  alone.compute.appliances = group.compute_appliances;
  if (!group.rack_system.empty()) alone.facility.max_nodes_per_rack = 0;
  return alone;
}

// --cluster with several node groups: each group (or the --node-type one) designed and priced as if alone,
// its accelerator sized at that group's TCO per GPU-hour. Returns the cost basis, or empty after printing an
// error.
std::optional<std::string> price_groups(const SizeOptions& o, const Catalog& catalog, const ClusterSpec& spec,
                                        SizingRequest& request, std::string& accelerators) {
  std::string basis;
  std::string own_accelerators;
  std::set<std::string> seen;
  bool found = o.node_type.empty();
  for (const NodeGroupSpec& group : spec.node_groups) {
    if (!o.node_type.empty() && o.node_type != group.system && o.node_type != group.node_system) continue;
    found = true;
    const auto cluster = design_cluster(group_alone(spec, group), catalog);
    if (!cluster.ok()) {
      std::cerr << "perf size: --cluster: node group '" << group.system << "' (" << group.field
                << ") alone: " << cluster.error_text();
      return std::nullopt;
    }
    const auto price = gpu_hour_price_of(cluster.value(), catalog, o.cluster);
    if (!price.ok()) {
      std::cerr << "perf size: --cluster: node group '" << group.system << "' (" << group.field
                << "): " << price.error_text();
      return std::nullopt;
    }
    const GpuHourPrice& own = price.value();
    if (!seen.insert(own.accelerator).second) {
      throw UsageFailure{"--cluster: two node groups carry " + own.accelerator +
                         "; choose one with --node-type"};
    }
    request.gpu_hour_prices[own.accelerator] = own.price;
    own_accelerators += (own_accelerators.empty() ? "" : ",") + own.accelerator;
    basis += (basis.empty() ? "" : "; ") + own.accelerator + " at " + format_money(own.price) +
             " per GPU-hour, the TCO of node group " + group.system + " (" +
             std::to_string(cluster.value().gpus) + " GPUs) of " + o.cluster + " designed alone";
  }
  if (!found) {
    std::string names;
    for (const NodeGroupSpec& group : spec.node_groups) names += (names.empty() ? "" : ", ") + group.system;
    throw UsageFailure{"--node-type: '" + o.node_type + "' is no node group of " + o.cluster + " (" + names +
                       ")"};
  }
  if (o.accelerators.empty()) accelerators = own_accelerators;
  return basis + (o.prices.empty() ? "" : "; others at " + o.prices);
}

// What --days was held against, for the output.
std::string deadline_rule_text(const SizeOptions& o) {
  if (o.days_exclude_failures) {
    return fmt::format(
        "work days within {:g} days (--days-exclude-failures: failures not counted; the time-to-train under "
        "failures below can exceed the days)",
        o.days);
  }
  return fmt::format(
      "time-to-train within {:g} days: work days / ETTR under the failures below (goodput model); "
      "--days-exclude-failures holds the work days instead",
      o.days);
}

// The time-to-train column under --days-exclude-failures: the goodput table's, which the sizing did not
// compute (with failures counted, the sizing's own value is the same function on the same run).
void show_time_to_train(std::vector<SizingRow>& rows, const std::vector<SizingGoodput>& goodput) {
  for (SizingRow& row : rows) {
    if (row.wall_days || row.gpus <= 0) continue;
    for (const SizingGoodput& g : goodput) {
      if (g.accelerator == row.accelerator && g.gpus == row.gpus) row.wall_days = g.wall_days;
    }
  }
}

int run_size(const SizeOptions& o) {
  try {
    const double tokens = parse_tokens(o.tokens);
    if (!(o.days > 0)) throw UsageFailure{"--days: must be greater than zero"};
    const auto inputs = load_training_inputs();
    if (!inputs) return kInputError;
    const TransformerModel* model = preset_or_complain(*inputs, o.model, "perf size");
    if (model == nullptr) return kUsageError;
    const auto catalog = load_catalog(o.catalog);
    if (!catalog) return kInputError;
    SizingRequest request;
    request.model = model;
    request.tokens = tokens;
    request.days = o.days;
    request.base.sequence = o.sequence;
    request.base.global_batch = o.global_batch > 0 ? o.global_batch : default_global_batch(o.sequence);
    const PrecisionRecipe* recipe = find_recipe(inputs->recipes, o.precision);
    if (recipe == nullptr) {
      throw UsageFailure{"--precision: '" + o.precision + "'; known: " + recipe_names(inputs->recipes) +
                         " (data/perf/precision-recipes.yaml)"};
    }
    apply_recipe(*recipe, request.base);
    request.memory_reserve = inputs->memory_reserve;
    request.assumed_gemm_fractions = parse_gemm_fractions(o.gemm_fractions, inputs->calibration);
    auto rack_density = load_rack_density(bundled_data_dir() + "/perf/sizing-racks.yaml", *catalog);
    if (!rack_density.ok()) {
      std::cerr << rack_density.error_text();
      return kInputError;
    }
    request.rack_density = std::move(rack_density).value();
    if (!o.memory_reserve.empty()) {
      const auto parsed = parse_quantity<ByteSize>(o.memory_reserve);
      if (const auto* error = std::get_if<std::string>(&parsed)) {
        throw UsageFailure{"--memory-reserve: " + *error};
      }
      if (std::get<ByteSize>(parsed).base() < 0) throw UsageFailure{"--memory-reserve: must not be negative"};
      request.reserve_override = std::get<ByteSize>(parsed);
    }
    if (!o.prices.empty()) {
      auto prices = load_gpu_hour_prices(o.prices, *catalog);
      if (!prices.ok()) {
        std::cerr << prices.error_text();
        return kInputError;
      }
      request.gpu_hour_prices = std::move(prices).value();
    }
    std::string cost_basis = o.prices.empty() ? "" : "GPU-hour prices of " + o.prices;
    std::string accelerators = o.accelerators.empty() ? kDefaultAccelerators : o.accelerators;
    if (!o.node_type.empty() && o.cluster.empty()) throw UsageFailure{"--node-type: needs --cluster SPEC"};
    std::optional<ClusterSpec> several;
    if (!o.cluster.empty()) {
      auto spec = load_cluster_spec(o.cluster, *catalog);
      if (!spec.ok()) {
        std::cerr << spec.error_text();
        return kInputError;
      }
      if (spec.value().several_groups()) several = std::move(spec).value();
    }
    if (several) {
      const auto basis = price_groups(o, *catalog, *several, request, accelerators);
      if (!basis) return kInputError;
      cost_basis = *basis;
    } else if (!o.cluster.empty()) {
      if (!o.node_type.empty()) throw UsageFailure{"--node-type: " + o.cluster + " has one node group"};
      const auto design = designed_spec(o.cluster, *catalog);
      if (!design) return kInputError;
      const auto price = gpu_hour_price_of(design->cluster, *catalog, o.cluster);
      if (!price.ok()) {
        std::cerr << "perf size: --cluster: " << price.error_text();
        return kInputError;
      }
      const GpuHourPrice& own = price.value();
      request.gpu_hour_prices[own.accelerator] = own.price;
      if (o.accelerators.empty()) accelerators = own.accelerator;
      cost_basis = own.accelerator + " at " + format_money(own.price) + " per GPU-hour, the TCO of " +
                   o.cluster + " (a cluster of " + std::to_string(design->cluster.gpus) + " GPUs)" +
                   (o.prices.empty() ? "" : "; others at " + o.prices);
    }
    request.accelerators = split_list(accelerators);
    refuse_unknown_accelerators(request.accelerators, *catalog);
    auto rates = load_failure_rates(bundled_data_dir() + "/reliability/failure-rates.yaml");
    if (!rates.ok()) {
      std::cerr << rates.error_text();
      return kInputError;
    }
    if (!o.days_exclude_failures)
      request.time_to_train = time_to_train_under_failures(rates.value(), kGoodputProfile, kGoodputSeeds);
    auto rows = size_training(*catalog, inputs->collectives, inputs->calibration, request);
    const auto goodput = goodput_of_sizing(rows, *catalog, rates.value(), kGoodputProfile, kGoodputSeeds);
    show_time_to_train(rows, goodput);
    const std::string deadline_rule = deadline_rule_text(o);
    const std::string goodput_basis = fmt::format(
        "failures of data/reliability/failure-rates.yaml {} (its H100 rates for every accelerator), "
        "checkpoint write {:g} min and restart {:g} min "
        "(assumed), Daly's interval, spares that cover repairs 99 % of the time, {} seeds (perf goodput for "
        "one "
        "job)",
        kGoodputProfile, rates.value().job_defaults.checkpoint_write_hours * 60,
        rates.value().job_defaults.restart_hours * 60, kGoodputSeeds);
    if (o.json) {
      nlohmann::json doc = sizing_json(*model, tokens, o.days, rows, cost_basis, deadline_rule);
      doc["goodput"] = sizing_goodput_json(goodput, goodput_basis);
      std::cout << doc.dump(2) << "\n";
    } else {
      std::cout << sizing_text(*model, tokens, o.days, rows, cost_basis, deadline_rule);
      std::cout << sizing_goodput_text(goodput, goodput_basis);
    }
    return 0;
  } catch (const UsageFailure& failure) {
    std::cerr << "perf size: " << failure.message << "\n";
    return kUsageError;
  }
}

}  // namespace

void add_perf_size_command(CLI::App& perf, int& exit_code) {
  auto o = std::make_shared<SizeOptions>();
  auto* command = perf.add_subcommand(
      "size", "GPUs and split per accelerator to train a model on T tokens within D days");
  command->add_option("--model", o->model, "model preset (data/perf/models.yaml)")->required();
  command->add_option("--tokens", o->tokens, "training tokens with a unit suffix: 15T, 300B")->required();
  command
      ->add_option("--days", o->days, "wall-clock days available: the time-to-train under failures must fit")
      ->required();
  command->add_flag("--days-exclude-failures", o->days_exclude_failures,
                    "hold --days against the failure-free work days (no ETTR), the former meaning");
  command->add_option("--accelerators", o->accelerators,
                      "catalog accelerator ids, comma-separated (default h100-sxm,h200-sxm,b200,mi300x)");
  command->add_option("--seq", o->sequence, "sequence length (default 8192)")->check(positive_number());
  command
      ->add_option("--global-batch", o->global_batch,
                   "sequences per step (default: 16M tokens, Llama 3 405B's final batch)")
      ->check(positive_number());
  command->add_option(
      "--precision", o->precision,
      "bf16 (default) | fp8 | fp8-cs | mxfp8 | nvfp4: a recipe of data/perf/precision-recipes.yaml");
  command->add_option("--prices", o->prices, "YAML price list: gpu_hour: {ACCELERATOR: 2.50 USD, ...}");
  command
      ->add_option(
          "--cluster", o->cluster,
          "cluster spec: cost at its TCO per GPU-hour (needs every part priced); sizes its accelerator "
          "unless --accelerators is given")
      ->check(CLI::ExistingFile);
  command->add_option("--node-type", o->node_type,
                      "with a --cluster of several node groups: size that group only (its system or rack "
                      "system); default every group, each priced as if designed alone");
  command->add_option(
      "--memory-reserve", o->memory_reserve,
      "per-GPU memory not available to the model, e.g. 4GiB (default: data/perf/memory.yaml)");
  command->add_option("--gemm-fraction", o->gemm_fractions,
                      "ARCH=F,...: assume a GEMM fraction of peak for an architecture with no fitted one "
                      "(a user's own data), printed as an assumption");
  command->add_flag("--json", o->json, std::string("print JSON (schema ") + kSizingSchema + ")");
  add_catalog_options(*command, o->catalog);
  command->callback([o, &exit_code] { exit_code = run_size(*o); });
}

}  // namespace gputwin::cli
