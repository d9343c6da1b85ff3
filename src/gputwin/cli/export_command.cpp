// `gputwin export slurm SPEC --out DIR`: slurm.conf lines, gres.conf and topology.conf for a design.
#include <filesystem>
#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/export/slurm_config.hpp"

namespace gputwin::cli {
namespace {

struct ExportOptions {
  CatalogOptions catalog;
  std::string spec;
  std::string out;
};

int run_export_slurm(const ExportOptions& options) {
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return kInputError;
  const auto cluster = load_designed_cluster(options.spec, *catalog);
  if (!cluster) return kInputError;
  const ExportFiles files = slurm_config(*cluster, *catalog);
  if (const auto problem = write_export_files(files, options.out)) {
    std::cerr << *problem << "\n";
    return kInputError;
  }
  const std::filesystem::path dir(options.out);
  std::cout << "wrote " << (dir / "slurm.conf").string() << ", gres.conf and topology.conf for "
            << cluster->nodes << " nodes and " << cluster->gpus << " GPUs\n";
  return 0;
}

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ExportOptions>();
  auto* export_command = app.add_subcommand("export", "write a design as another tool's configuration");
  export_command->require_subcommand(1);
  auto* slurm = export_command->add_subcommand(
      "slurm", "slurm.conf node/partition lines, gres.conf and topology.conf (docs/slurm.md)");
  slurm->add_option("spec", options->spec, "cluster spec (YAML)")->required()->check(CLI::ExistingFile);
  slurm->add_option("--out", options->out, "directory to write the three files into")->required();
  add_catalog_options(*slurm, options->catalog);
  slurm->callback([options, &exit_code] { exit_code = run_export_slurm(*options); });
}

}  // namespace gputwin::cli
