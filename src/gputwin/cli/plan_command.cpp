#include <fstream>
#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/design/node_type_view.hpp"
#include "gputwin/plan/buy_vs_rent.hpp"
#include "gputwin/report/buy_vs_rent_report.hpp"
#include "gputwin/report/catalog_report.hpp"
#include "gputwin/report/plan_report.hpp"
#include "gputwin/report/training_report.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin::cli {

namespace {
// The number an option's text holds, or empty when it holds none (CLI11 converts it after the checks run).
std::optional<double> number_in(const std::string& text) {
  double value = 0;
  return CLI::detail::lexical_cast(text, value) ? std::optional<double>(value) : std::nullopt;
}
}  // namespace

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto value = number_in(text);
        if (!value) return "expected a number, got '" + text + "'";
        return *value > 0 ? "" : "must be greater than zero, got " + text;
      },
      "POSITIVE");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto value = number_in(text);
        if (!value) return "expected a number, got '" + text + "'";
        return *value >= 0 ? "" : "must not be negative, got " + text;
      },
      "NONNEGATIVE");
}

void add_catalog_options(CLI::App& command, CatalogOptions& options) {
  command.add_option("--catalog", options.extra_dirs, "extra catalog folder of YAML parts (repeatable)")
      ->check(CLI::ExistingDirectory);
  command.add_flag("--no-bundled-catalog", options.no_bundled,
                   "do not load the catalog shipped with gputwin");
}

std::optional<Catalog> load_catalog(const CatalogOptions& options) {
  auto loaded = gputwin::load_catalog({options.extra_dirs, !options.no_bundled});
  if (!loaded.ok()) {
    std::cerr << loaded.error_text();
    return std::nullopt;
  }
  return std::move(loaded).value();
}

std::optional<DesignedSpec> designed_spec(const std::string& spec_path, const Catalog& catalog) {
  auto design = gputwin::load_design(spec_path, catalog);
  if (!design.ok()) {
    std::cerr << design.error_text();
    return std::nullopt;
  }
  return std::move(design).value();
}

std::optional<TrainingInputs> load_training_inputs() {
  auto inputs = gputwin::load_training_inputs();
  if (!inputs.ok()) {
    std::cerr << inputs.error_text();
    return std::nullopt;
  }
  return std::move(inputs).value();
}

const TransformerModel* preset_or_complain(const TrainingInputs& inputs, const std::string& name,
                                           const std::string& command) {
  const TransformerModel* model = find_model(inputs.presets, name);
  if (model == nullptr) {
    std::cerr << command << ": --model: unknown model '" << name
              << "'; known: " << model_names(inputs.presets) << "\n";
  }
  return model;
}

std::optional<Cluster> load_designed_cluster(const std::string& spec_path, const Catalog& catalog) {
  auto design = designed_spec(spec_path, catalog);
  if (!design) return std::nullopt;
  return std::move(design->cluster);
}

std::optional<Cluster> load_designed_cluster(const std::string& spec_path, const Catalog& catalog,
                                             const std::string& node_type) {
  auto cluster = load_designed_cluster(spec_path, catalog);
  if (!cluster || node_type.empty()) return cluster;
  auto view = cluster_of_node_type(*cluster, node_type);
  if (!view) {
    const std::string types = node_counts_text(*cluster, DeviceKind::node);
    std::cerr << spec_path << ": --node-type: no compute nodes of type '" << node_type
              << "'; the design's are " << (types.empty() ? std::string("none") : types) << "\n";
  }
  return view;
}

std::optional<BuyVsRent> buy_or_rent(const std::string& prices_path, const std::string& spec_path,
                                     const DesignedSpec& design, const Catalog& catalog) {
  const auto prices = load_rental_prices(prices_path, catalog);
  if (!prices.ok()) {
    std::cerr << prices.error_text();
    return std::nullopt;
  }
  std::optional<WorkloadRun> run;
  if (design.workload_fit) {
    const WorkloadFit& fit = *design.workload_fit;
    run = WorkloadRun{fit.model.name, fit.answer.gpus, fit.answer.days};
  }
  auto answer = buy_vs_rent(design.cluster, prices.value(), run, spec_path);
  if (!answer.ok()) {
    std::cerr << answer.error_text();
    return std::nullopt;
  }
  return std::move(answer).value();
}

namespace {

struct PlanOptions {
  CatalogOptions catalog;
  std::string spec;
  bool json = false;
  std::string bom_csv;
  std::string rent;  // a cloud GPU-hour price file: buy or rent
};

int run_plan(const PlanOptions& options) {
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return kInputError;
  const auto design = designed_spec(options.spec, *catalog);
  if (!design) return kInputError;
  const Cluster& cluster = design->cluster;
  if (!options.bom_csv.empty()) {
    std::ofstream bom(options.bom_csv);
    bom << bom_csv(cluster);
    if (!bom) {
      std::cerr << options.bom_csv << ": cannot write the bill of materials\n";
      return kInputError;
    }
  }
  std::optional<BuyVsRent> rent;
  if (!options.rent.empty()) {
    rent = buy_or_rent(options.rent, options.spec, *design, *catalog);
    if (!rent) return kInputError;
  }
  if (options.json) {
    auto document = plan_json(cluster);
    if (design->workload_fit) document["workload_fit"] = workload_fit_json(*design->workload_fit);
    if (rent) document["buy_vs_rent"] = buy_vs_rent_json(*rent);
    std::cout << document.dump(2) << "\n";
  } else {
    if (design->workload_fit) std::cout << workload_fit_text(*design->workload_fit) << "\n";
    std::cout << plan_text(cluster);
    if (rent) std::cout << "\n" << buy_vs_rent_text(*rent);
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PlanOptions>();
  auto* plan =
      app.add_subcommand("plan", "design a cluster from a spec: racks, power, fabrics, cabling, BOM, TCO");
  plan->add_option("spec", options->spec, "cluster spec (YAML)")->required()->check(CLI::ExistingFile);
  plan->add_flag("--json", options->json,
                 "print the design as JSON (schema gputwin.plan/1, docs/plan-json.md)");
  plan->add_option("--bom-csv", options->bom_csv, "also write the bill of materials as CSV to this file");
  plan->add_option(
          "--rent", options->rent,
          "cloud prices per GPU-hour (YAML: on-demand and reserved tiers): buy or rent, the break-even "
          "utilisation and the workload's cost both ways (docs/plan.md)")
      ->check(CLI::ExistingFile);
  add_catalog_options(*plan, options->catalog);
  plan->callback([options, &exit_code] { exit_code = run_plan(*options); });
}

void add_catalog_command(CLI::App& app, int& exit_code) {
  struct Options {
    CatalogOptions catalog;
    std::string kind;
    std::string part;
  };
  auto options = std::make_shared<Options>();
  auto* catalog = app.add_subcommand("catalog", "list or show the parts gputwin knows");
  catalog->require_subcommand(1);
  auto* list = catalog->add_subcommand("list", "one line per part");
  list->add_option("--kind", options->kind,
                   "only parts of this kind (the first column of the listing)")
      ->check(CLI::IsMember(catalog_kinds()));
  add_catalog_options(*list, options->catalog);
  list->callback([options, &exit_code] {
    const auto loaded = load_catalog(options->catalog);
    if (!loaded) {
      exit_code = kInputError;
      return;
    }
    std::cout << catalog_list(*loaded, options->kind);
  });
  auto* show = catalog->add_subcommand("show", "every figure of one part, with its source");
  show->add_option("part", options->part, "part id")->required();
  add_catalog_options(*show, options->catalog);
  show->callback([options, &exit_code] {
    const auto loaded = load_catalog(options->catalog);
    if (!loaded) {
      exit_code = kInputError;
      return;
    }
    const std::string text = catalog_show(*loaded, options->part);
    if (text.empty()) {
      std::cerr << "catalog: no part with id '" << options->part << "' (see `gputwin catalog list`)\n";
      exit_code = kInputError;
      return;
    }
    std::cout << text;
  });
}

}  // namespace gputwin::cli
