// Subcommands of the gputwin CLI. Each adds itself to the app; its callback sets the process exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/catalog/gpu_systems.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/export/export_files.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/training_inputs.hpp"
#include "gputwin/plan/buy_vs_rent.hpp"
#include "gputwin/plan/load_design.hpp"

namespace gputwin {
struct EngineChoice;
struct ServingEngineDefaults;
}  // namespace gputwin

namespace gputwin::cli {

inline constexpr int kInputError = 1;
inline constexpr int kUsageError = 2;

// Bad usage found while running a command (an option's value, a combination of options): the command prints
// "<command>: <message>" and exits with kUsageError.
struct UsageFailure {
  std::string message;
};

// Option checks with messages that say what is wrong (CLI11's PositiveNumber rejects 0 as "Value 0 not in
// range 0.000000 to 1797...", a range that appears to hold it).
CLI::Validator positive_number();
CLI::Validator non_negative_number();

// "10%", "10 %" or "10" (percent) -> 0.10; anything else, or outside 0% to below 100%, a UsageFailure naming
// the option.
double percentage_option(const std::string& option, const std::string& text);

// The engine generation `--engine GEN` names (its fitted efficiency; empty: the perf model's own timing). An
// unknown id is a UsageFailure; a bad engine data file prints its errors and returns empty.
std::optional<EngineChoice> engine_option(const ServingEngineDefaults& defaults,
                                          const std::string& generation);

struct CatalogOptions {
  std::vector<std::string> extra_dirs;
  bool no_bundled = false;
};

void add_catalog_options(CLI::App& command, CatalogOptions& options);
// Prints the errors and returns empty when the catalog does not load.
std::optional<Catalog> load_catalog(const CatalogOptions& options);
// Loads a cluster spec against the catalog, sizes it for its workload if it names one, and designs it
// (plan/load_design.hpp); prints the errors and returns empty on failure.
std::optional<DesignedSpec> designed_spec(const std::string& spec_path, const Catalog& catalog);
// `--rent PRICES` (plan, report): the cloud price file read and the design's buy-or-rent answer (the
// workload's run when the spec was sized for one); prints the error and returns empty on bad input.
std::optional<BuyVsRent> buy_or_rent(const std::string& prices_path, const std::string& spec_path,
                                     const DesignedSpec& design, const Catalog& catalog);
std::optional<Cluster> load_designed_cluster(const std::string& spec_path, const Catalog& catalog);
// The same, seen as the models of one node type see it when `node_type` names one (`--node-type NAME`: the
// compute nodes of that catalog system, design/node_type_view.hpp); an unknown name prints the error, located
// at the spec and the option, with the design's compute node types, and returns empty.
std::optional<Cluster> load_designed_cluster(const std::string& spec_path, const Catalog& catalog,
                                             const std::string& node_type);
// Adds `--node-type NAME` to a command that takes a designed cluster.
void add_node_type_option(CLI::App& command, std::string& node_type);

// What `--system ID` names for the performance models: a catalog system, or a rack-scale system (catalog
// rack_systems, e.g. gb200-nvl72) read as its compute trays, counted in whole racks (one scale-up domain a
// rack, as a spec's `nodes: {system: gb200-nvl72, count: N}` counts racks); catalog/gpu_systems.hpp resolves
// it.
struct SystemChoice : GpuSystemLookup {
  [[nodiscard]] const std::string& node_id() const { return node->info.id; }
  // GPUs one scale-up domain joins (NVLink across the trays of a rack; a box's own GPUs).
  [[nodiscard]] int domain_gpus() const { return gpus_per_scale_up_domain(*node); }
};
// A UsageFailure naming `option` when the id is neither a GPU system nor a rack system of the catalog.
[[nodiscard]] SystemChoice system_choice(const Catalog& catalog, const std::string& id,
                                         const std::string& option = "--system");
// The nodes one replica of `replica_gpus` GPUs fills on a catalog system (whole racks of a rack system); a
// UsageFailure naming --tp when `tp` GPUs exceed one scale-up domain (tensor parallelism is placed in one).
[[nodiscard]] int replica_nodes(const SystemChoice& choice, int tp, int replica_gpus);

void add_plan_command(CLI::App& app, int& exit_code);
void add_catalog_command(CLI::App& app, int& exit_code);
void add_simulate_command(CLI::App& app, int& exit_code);
void add_trace_command(CLI::App& app, int& exit_code);
void add_perf_command(CLI::App& app, int& exit_code);
void add_perf_roofline_command(CLI::App& perf, int& exit_code);
void add_perf_infer_command(CLI::App& perf, int& exit_code);
void add_perf_collective_command(CLI::App& perf, int& exit_code);
void add_perf_train_command(CLI::App& perf, int& exit_code);
void add_perf_size_command(CLI::App& perf, int& exit_code);
void add_perf_serve_command(CLI::App& perf, int& exit_code);
void add_perf_goodput_command(CLI::App& perf, int& exit_code);

// What `perf infer` and `perf serve` deploy: a model on TP (x EP) GPUs of a cluster or catalog system.
struct InferenceModelOptions {
  CatalogOptions catalog;
  std::string cluster;
  std::string node_type;  // --node-type: the compute nodes of a design that holds several types
  std::string system;
  std::string model;
  int tp = 1;
  int ep = 1;
  int pp = 1;
  std::string precision = "fp8";
  std::string kv_precision;  // default: as the weights
  int input_tokens = 128;
  int output_tokens = 128;
};
struct InferenceInputs {
  PerfHardware hardware;
  CollectiveModel collectives;
  InferenceConstants constants;
  InferenceSetup setup;
};
void add_inference_model_options(CLI::App& command, InferenceModelOptions& options);
// Prints the errors (prefixed with `command`) and returns empty when an input does not load.
std::optional<InferenceInputs> load_inference_inputs(const InferenceModelOptions& options,
                                                     const std::string& command);
// --power-cap (perf train, perf infer) and --run-tokens (perf train): cli/perf_power_options.cpp.
struct PowerOptions {
  std::string cap;          // "500W"; empty: the default limit
  std::string clock_limit;  // "1500" or "1500MHz"; empty: no clock limit
  std::string run_tokens;   // "15T"; empty: per 1T tokens
};
struct PowerContext {
  PowerModelData data;
  std::optional<Power> cap;
  PowerOperatingPoint point;
  NodePower node;
  std::string system_id;
  std::optional<SystemPowerFigure> published;
  double run_tokens = 0;
};
void add_power_options(CLI::App& command, PowerOptions& options, bool training);
// Parses the options (UsageFailure on a bad value or a cap the data refuses, naming the figure), loads the
// power model, the node's catalog system and the rack density; prints the errors and returns empty when a
// file does not load.
std::optional<PowerContext> load_power_context(const PowerOptions& options, const PerfHardware& hardware,
                                               const CatalogOptions& catalog_options,
                                               const std::string& command);
void add_validate_command(CLI::App& app, int& exit_code);
void add_export_command(CLI::App& app, int& exit_code);
void add_sweep_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);

// The bundled perf data (perf/training_inputs.hpp); prints the errors and returns empty when a file does not
// load.
std::optional<TrainingInputs> load_training_inputs();
// The preset of that name, or empty after printing "unknown model 'x'; known: ..." prefixed with `command`.
const TransformerModel* preset_or_complain(const TrainingInputs& inputs, const std::string& name,
                                           const std::string& command);

// Loads the catalog and a cluster spec, designs the cluster and returns its performance view; prints the
// errors and returns empty when any step fails. `node_type` (--node-type) chooses one node type of a design
// that holds several.
std::optional<PerfHardware> load_perf_hardware(const std::string& spec_path,
                                               const CatalogOptions& catalog_options,
                                               const std::string& node_type = "");

// A Slurm job array's folder (export/slurm_array.hpp): DIR/results and DIR/logs created (false, with the
// reason printed, when they cannot be), then its files written and, unless `no_submit`, submitted with
// sbatch. `who` names the command in messages ("sweep", "perf serve"), `merge` the command that merges the
// results.
[[nodiscard]] bool make_array_dirs(const std::filesystem::path& dir);
struct ArraySubmission {
  std::string script;
  std::size_t tasks = 0;
  bool no_submit = false;
  bool wait = false;
  std::string who;
  std::string merge;
};
[[nodiscard]] int write_and_submit_array(const ExportFiles& files, const std::filesystem::path& dir,
                                         const ArraySubmission& submission);

}  // namespace gputwin::cli
