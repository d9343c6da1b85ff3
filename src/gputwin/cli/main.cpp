// gputwin: a digital twin for GPU clusters. Thin command-line layer over the library.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/report/catalog_report.hpp"
#include "gputwin/report/plan_report.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace {

constexpr int kInputError = 1;
constexpr int kUsageError = 2;

struct CatalogOptions {
  std::vector<std::string> extra_dirs;
  bool no_bundled = false;
};

void add_catalog_options(CLI::App& command, CatalogOptions& options) {
  command.add_option("--catalog", options.extra_dirs, "extra catalog folder of YAML parts (repeatable)")
      ->check(CLI::ExistingDirectory);
  command.add_flag("--no-bundled-catalog", options.no_bundled,
                   "do not load the catalog shipped with gputwin");
}

std::optional<gputwin::Catalog> load_catalog(const CatalogOptions& options) {
  std::vector<std::string> dirs;
  if (!options.no_bundled) dirs.push_back(gputwin::bundled_data_dir() + "/catalog");
  dirs.insert(dirs.end(), options.extra_dirs.begin(), options.extra_dirs.end());
  auto loaded = gputwin::Catalog::load(dirs);
  if (!loaded.ok()) {
    std::cerr << loaded.error_text();
    return std::nullopt;
  }
  return std::move(loaded).value();
}

int run_plan(const std::string& spec_path, const CatalogOptions& catalog_options, bool json,
             const std::string& bom_path) {
  const auto catalog = load_catalog(catalog_options);
  if (!catalog) return kInputError;
  const auto spec = gputwin::load_cluster_spec(spec_path, *catalog);
  if (!spec.ok()) {
    std::cerr << spec.error_text();
    return kInputError;
  }
  const auto cluster = gputwin::design_cluster(spec.value(), *catalog);
  if (!cluster.ok()) {
    std::cerr << cluster.error_text();
    return kInputError;
  }
  if (!bom_path.empty()) {
    std::ofstream bom(bom_path);
    bom << gputwin::bom_csv(cluster.value());
    if (!bom) {
      std::cerr << bom_path << ": cannot write the bill of materials\n";
      return kInputError;
    }
  }
  if (json) {
    std::cout << gputwin::plan_json(cluster.value()).dump(2) << "\n";
  } else {
    std::cout << gputwin::plan_text(cluster.value());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gputwin: a digital twin for GPU clusters (plan, perf, simulate, validate)"};
  app.require_subcommand(1);

  CatalogOptions catalog_options;
  std::string spec_path;
  bool json = false;
  std::string bom_path;
  auto* plan =
      app.add_subcommand("plan", "design a cluster from a spec: racks, power, fabrics, cabling, BOM, TCO");
  plan->add_option("spec", spec_path, "cluster spec (YAML)")->required()->check(CLI::ExistingFile);
  plan->add_flag("--json", json, "print the design as JSON (schema gputwin.plan/1, docs/plan-json.md)");
  plan->add_option("--bom-csv", bom_path, "also write the bill of materials as CSV to this file");
  add_catalog_options(*plan, catalog_options);

  auto* catalog = app.add_subcommand("catalog", "list or show the parts gputwin knows");
  catalog->require_subcommand(1);
  std::string kind;
  auto* list = catalog->add_subcommand("list", "one line per part");
  list->add_option("--kind", kind,
                   "only parts of this kind (accelerator, system, switch, transceiver, cable, ...)");
  add_catalog_options(*list, catalog_options);
  std::string part_id;
  auto* show = catalog->add_subcommand("show", "every figure of one part, with its source");
  show->add_option("part", part_id, "part id")->required();
  add_catalog_options(*show, catalog_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : kUsageError;
  }

  if (plan->parsed()) return run_plan(spec_path, catalog_options, json, bom_path);
  const auto loaded = load_catalog(catalog_options);
  if (!loaded) return kInputError;
  if (list->parsed()) {
    std::cout << gputwin::catalog_list(*loaded, kind);
    return 0;
  }
  const std::string text = gputwin::catalog_show(*loaded, part_id);
  if (text.empty()) {
    std::cerr << "catalog: no part with id '" << part_id << "' (see `gputwin catalog list`)\n";
    return kInputError;
  }
  std::cout << text;
  return 0;
}
