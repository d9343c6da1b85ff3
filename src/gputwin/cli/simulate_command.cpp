#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/cli/replay_power.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/core/input_file.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/design/storage_sizing.hpp"
#include "gputwin/report/packing_report.hpp"
#include "gputwin/report/replay_report.hpp"
#include "gputwin/sim/checkpoint_policies.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/sim/failure_setup.hpp"
#include "gputwin/sim/maintenance.hpp"
#include "gputwin/sim/mig.hpp"
#include "gputwin/sim/out_of_service.hpp"
#include "gputwin/sim/packing.hpp"
#include "gputwin/sim/process_failures.hpp"
#include "gputwin/sim/replay.hpp"
#include "gputwin/sim/replay_energy.hpp"
#include "gputwin/sim/replay_engine.hpp"
#include "gputwin/sim/simulated_cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"
#include "gputwin/trace/job_traces.hpp"
#include "gputwin/trace/openb.hpp"
#include "gputwin/trace/priority_class.hpp"
#include "gputwin/trace/trace_file.hpp"

namespace gputwin::cli {
namespace {

struct ReplayCommandOptions {
  CatalogOptions catalog;
  std::string jobs;
  std::string format = "auto";
  std::string cluster_spec;
  std::string node_type;  // --node-type: the compute nodes of a design that holds several types
  int nodes = 0;
  int gpus_per_node = 8;
  std::string policy = "fifo";
  double interval = 3600;
  int scan_depth = 500;
  std::string fair_share_by = "group";
  bool json = false;
  std::string csv;
  int mig_nodes = 0;
  std::string mig_profile_set;
  std::string mig_layout;
  double runtime_estimate_factor = 0;  // 0 = the data default (data/reference/runtime-estimates.yaml)
  // Failures, checkpoints, spares and maintenance (docs/simulate.md, "Failures").
  std::string node_mtbf;
  std::string node_failure_rate;
  std::string failure_profile;  // a profile of the failure-rate data (data/reliability/failure-rates.yaml)
  std::string failure_rates;    // another rate file of the same form
  std::string repair;
  std::uint64_t failure_seed = 1;
  std::string checkpoint_interval;  // a duration, or "young-daly"
  std::string checkpoint_write;
  std::string restart;
  int spare_nodes = 0;
  int mig_spare_nodes = 0;
  std::string maintenance;
  std::string out_of_service;  // gputwin validate --json output
  // Power (docs/simulate.md, "Energy and a power budget"): an IT budget and the policy that holds it.
  std::string power_budget;
  std::string power_policy;
  bool compare_power_policies = false;
  std::vector<std::string> low_priority_qos;  // the trace's classes cap-low-priority caps first
};

FailureSetup failure_setup(const ReplayCommandOptions& options) {
  FailureSetup setup;
  setup.node_mtbf = options.node_mtbf;
  setup.node_failure_rate = options.node_failure_rate;
  setup.failure_profile = options.failure_profile;
  setup.failure_rates = options.failure_rates;
  setup.repair = options.repair;
  setup.failure_seed = options.failure_seed;
  setup.checkpoint_interval = options.checkpoint_interval;
  setup.checkpoint_write = options.checkpoint_write;
  setup.restart = options.restart;
  setup.spare_nodes = options.spare_nodes;
  setup.mig_spare_nodes = options.mig_spare_nodes;
  setup.maintenance = options.maintenance;
  return setup;
}

// What the MIG options ask for: nothing (`setup` empty), a setup, or an error already printed (`ok` false).
struct MigChoice {
  bool ok = true;
  std::optional<MigNodes> setup;
};

MigChoice mig_failure(const std::string& message) {
  std::cerr << "simulate replay: " << message << "\n";
  return {false, std::nullopt};
}

// The designed cluster's GPU, whose MIG profiles are the default; nullptr for a node count (or after an
// error, printed, with `ok` false).
const Accelerator* cluster_gpu(const ReplayCommandOptions& options, const Catalog& catalog, bool& ok) {
  if (options.cluster_spec.empty()) return nullptr;
  const auto spec = load_cluster_spec(options.cluster_spec, catalog);
  if (!spec.ok()) {
    std::cerr << spec.error_text();
    ok = false;
    return nullptr;
  }
  if (spec.value().candidates.empty() && !spec.value().several_groups() && options.node_type.empty())
    return catalog.find<Accelerator>(catalog.get<System>(spec.value().node_system).accelerator);
  // A spec that chooses among systems: the GPU is the chosen one's, known once it is sized and designed.
  const auto cluster = load_designed_cluster(options.cluster_spec, catalog, options.node_type);
  const NodeType* type = cluster ? cluster->sole_node_type() : nullptr;
  ok = type != nullptr;
  return type == nullptr ? nullptr : catalog.find<Accelerator>(type->accelerator);
}

MigChoice resolve_mig(const ReplayCommandOptions& options) {
  const MigRequest request{options.mig_nodes, options.mig_profile_set, options.mig_layout};
  if (options.mig_spare_nodes > 0 && options.mig_spare_nodes >= request.nodes) {
    return mig_failure("--mig-spare-nodes " + std::to_string(options.mig_spare_nodes) +
                       ": the spares are held out of the --mig-nodes (" + std::to_string(request.nodes) +
                       "), so at least one MIG-mode node must be left to run jobs");
  }
  if (request.nodes == 0 && request.profile_set.empty() && request.layout.empty()) return {};
  if (request.nodes > 0 && options.cluster_spec.empty() && options.nodes == 0) {
    return mig_failure("--mig-nodes needs the cluster as --cluster SPEC or --nodes N");
  }
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return {false, std::nullopt};
  bool ok = true;
  const Accelerator* gpu =
      request.nodes > 0 && request.profile_set.empty() ? cluster_gpu(options, *catalog, ok) : nullptr;
  if (!ok) return {false, std::nullopt};
  try {
    return {true, mig_nodes_of(request, *catalog, gpu)};
  } catch (const std::invalid_argument& error) {
    return mig_failure(error.what());
  }
}

std::vector<std::string> profile_names(const std::optional<MigNodes>& mig) {
  std::vector<std::string> names;
  if (mig) {
    for (const auto& profile : mig->set.profiles) names.push_back(profile.name);
  }
  return names;
}

std::optional<LoadedTrace> load_jobs(const ReplayCommandOptions& options,
                                     const std::optional<MigNodes>& mig) {
  auto trace = read_trace(options.jobs, options.format, profile_names(mig));
  if (!trace.ok()) {
    std::cerr << trace.error_text();
    return std::nullopt;
  }
  return std::move(trace).value();
}

// The cluster replayed, and the checkpoint write time its designed storage gives (a --cluster spec that sizes
// storage for a checkpoint).
struct ReplayCluster {
  SimulatedCluster simulated;
  std::optional<DesignedCheckpointWrite> checkpoint_write;
  std::optional<ReplayPowerProfile> power;  // the system's power figures, when energy can be modelled
  std::string power_unmodelled;             // else why not
};

std::optional<ReplayCluster> build_cluster(const ReplayCommandOptions& options, const LoadedTrace& jobs,
                                           const std::optional<MigNodes>& mig) {
  try {
    if (!options.cluster_spec.empty()) {
      const auto catalog = load_catalog(options.catalog);
      if (!catalog) return std::nullopt;
      const auto cluster = load_designed_cluster(options.cluster_spec, *catalog, options.node_type);
      if (!cluster) return std::nullopt;
      ReplayCluster built{simulated_cluster(*cluster, *catalog, mig),
                          designed_checkpoint_write(cluster->storage), std::nullopt, ""};
      if (mig) {
        built.power_unmodelled = "MIG-mode GPUs are not modelled for power";
      } else {
        built.power = replay_power_profile(*cluster, *catalog, built.simulated.whole.node_count(),
                                           built.power_unmodelled);
      }
      return built;
    }
    if (options.nodes > 0)
      return ReplayCluster{uniform_simulated_cluster(options.nodes, options.gpus_per_node, mig), std::nullopt,
                           std::nullopt, "no system is known (give the cluster as --cluster SPEC)"};
  } catch (const std::invalid_argument& error) {
    // A MIG request the cluster cannot host, or a design of several node types without --node-type.
    std::cerr << "simulate replay: " << (mig ? "--mig-nodes: " : "--cluster: ") << error.what() << "\n";
    return std::nullopt;
  }
  if (jobs.swf_max_procs > 0) {
    return ReplayCluster{uniform_simulated_cluster(jobs.swf_max_procs, 1), std::nullopt, std::nullopt,
                         "no system is known (give the cluster as --cluster SPEC)"};  // a processor a node
  }
  std::cerr << "simulate replay: give the cluster with --cluster SPEC or --nodes N [--gpus-per-node G]\n";
  return std::nullopt;
}

// The estimate EASY plans with for jobs without a requested time: the user's factor, or the data default.
std::optional<RunTimeEstimate> run_time_estimate(double factor) {
  auto estimate = run_time_estimate_or_default(factor > 0 ? std::optional<double>(factor) : std::nullopt);
  if (!estimate.ok()) {
    std::cerr << estimate.error_text();
    return std::nullopt;
  }
  return std::move(estimate).value();
}

// The IT budget --power-budget gives, if any; the power options without one, or a budget where energy is not
// modelled, are usage errors.
std::optional<double> power_budget_of(const ReplayCommandOptions& options, const ReplayCluster& built) {
  if (options.power_budget.empty()) {
    if (!options.power_policy.empty())
      throw UsageFailure{"--power-policy: give the budget it holds with --power-budget, e.g. 2.5MW"};
    if (options.compare_power_policies)
      throw UsageFailure{"--compare-power-policies: give the budget with --power-budget, e.g. 2.5MW"};
    return std::nullopt;
  }
  const double budget_w = parse_power_budget(options.power_budget);
  if (!built.power) {
    throw UsageFailure{"--power-budget: energy and power are not modelled in this replay: " +
                       built.power_unmodelled};
  }
  return budget_w;
}

// Marks the low-priority jobs (the classes --low-priority-qos names, else the format's own) and says why
// cap-low-priority cannot run when there are none; --low-priority-qos without a policy that reads it is a
// usage error.
std::optional<std::string> mark_low_priority_jobs(const ReplayCommandOptions& options, LoadedTrace& trace) {
  if (!options.low_priority_qos.empty() && options.power_policy != "cap-low-priority" &&
      !options.compare_power_policies) {
    throw UsageFailure{
        "--low-priority-qos: only --power-policy cap-low-priority (or --compare-power-policies) reads it"};
  }
  const auto low = low_priority_classes(trace.format, options.low_priority_qos);
  const LowPriorityMarking marking = mark_low_priority(trace.jobs, low);
  if (marking.low_jobs > 0) return std::nullopt;
  return no_low_priority_reason(marking, trace.format, low);
}

// The same replay under each policy that can hold the budget; a policy that cannot says why.
template <class RunWith>
std::vector<PowerPolicyRun> compare_power_policies(const RunWith& run_with) {
  std::vector<PowerPolicyRun> rows;
  for (const std::string name : {"none", "cap-all", "admit-fewer", "cap-low-priority"}) {
    PowerPolicyRun row;
    row.policy = name;
    try {
      const ReplayResult run = run_with(name);
      const ReplayEnergyMetrics& energy = *run.energy;
      row.completed = run.completed;
      row.completed_work_gpu_hours = energy.completed_work_gpu_hours;
      row.work_by_last_arrival_gpu_hours = energy.work_by_last_arrival_gpu_hours;
      row.mean_wait_s = run.wait.mean;
      row.makespan_s = run.makespan;
      row.it_kwh = energy.it_kwh;
      row.facility_kwh = energy.facility_kwh;
      row.peak_it_kw = energy.peak_it_kw;
      row.lowest_cap_w = energy.lowest_cap_w;
      if (energy.budget) {
        row.low_priority_gpu_hours = energy.budget->low_priority_gpu_hours;
        row.low_priority_mean_throughput = energy.budget->low_priority_mean_throughput;
        row.other_mean_throughput = energy.budget->other_mean_throughput;
      }
    } catch (const UsageFailure& failure) {
      row.refused = failure.message;
    }
    rows.push_back(row);
  }
  return rows;
}

int run_replay(const ReplayCommandOptions& options) {
  const MigChoice mig = resolve_mig(options);
  if (!mig.ok) return kUsageError;
  auto jobs = load_jobs(options, mig.setup);
  if (!jobs) return kInputError;
  std::optional<std::string> no_low_priority;
  try {
    no_low_priority = mark_low_priority_jobs(options, *jobs);
  } catch (const UsageFailure& failure) {
    std::cerr << "simulate replay: " << failure.message << "\n";
    return kUsageError;
  }
  auto built = build_cluster(options, *jobs, mig.setup);
  if (!built) return kInputError;
  SimulatedCluster* cluster = &built->simulated;
  // The designed storage's write time counts only when checkpoints are taken and no time is given.
  const bool designed_write =
      built->checkpoint_write && options.checkpoint_write.empty() && !options.checkpoint_interval.empty();
  std::unique_ptr<QueuePolicy> policy;
  try {
    policy = make_queue_policy(options.policy);
  } catch (const std::invalid_argument& error) {
    std::cerr << "simulate replay: --policy: " << error.what() << "\n";
    return kUsageError;
  }
  ReplayOptions replay_options;
  replay_options.interval = options.interval;
  replay_options.scan_depth = options.scan_depth;
  replay_options.fair_share_by_user = options.fair_share_by == "user";
  const auto estimate = run_time_estimate(options.runtime_estimate_factor);
  if (!estimate) return kInputError;
  replay_options.run_time_estimate = *estimate;
  ReplayResult result;
  std::vector<std::pair<int, std::string>> out_of_service;
  if (!options.out_of_service.empty()) {
    const auto nodes = result_of<std::vector<std::pair<int, std::string>>>([&] {
      const std::string text = read_input_file(options.out_of_service);
      auto read = out_of_service_nodes(text, options.out_of_service, cluster->topology);
      if (!read.ok()) throw InputFailure(read.errors().front());
      return std::move(read).value();
    });
    if (!nodes.ok()) {
      std::cerr << nodes.error_text();
      return kInputError;
    }
    out_of_service = nodes.value();
  }
  const std::optional<double> write_s =
      designed_write ? std::optional<double>(built->checkpoint_write->seconds) : std::nullopt;
  std::optional<double> budget_w;
  try {
    budget_w = power_budget_of(options, *built);
    // Every run of the command replays the same pool from the start: a copy per run.
    const auto run_with = [&](const std::string& power_policy) {
      ReplayModels models = make_replay_models(failure_setup(options), cluster->topology, write_s);
      models.out_of_service = out_of_service;
      std::shared_ptr<const PowerPolicy> power;
      if (budget_w && power_policy == "cap-low-priority" && no_low_priority) {
        throw UsageFailure{"--power-policy cap-low-priority: " + options.jobs + ": " + *no_low_priority};
      }
      if (built->power) {
        try {
          power = make_power_policy(budget_w ? power_policy : "none", *built->power, budget_w.value_or(0));
        } catch (const std::invalid_argument& error) {
          throw UsageFailure{"--power-budget " + options.power_budget + " --power-policy " + power_policy +
                             ": " + error.what()};
        }
      }
      if (budget_w) models.power = power;  // only a budget changes the replay; energy is only watched
      ReplayEngine engine(jobs->jobs, cluster->whole, cluster->mig, *policy, replay_options,
                          std::move(models));
      std::optional<ReplayEnergy> energy;
      if (power) {
        energy.emplace(jobs->jobs, power, options.interval);
        engine.add_observer(*energy);
      }
      ReplayResult run = engine.run();
      if (energy) energy->summarize(run);  // facility energy by the design's curve: built->power->facility
      return run;
    };
    result = run_with(options.power_policy.empty() ? "cap-all" : options.power_policy);
    if (options.compare_power_policies) result.energy->compared = compare_power_policies(run_with);
  } catch (const UsageFailure& failure) {
    std::cerr << "simulate replay: " << failure.message << "\n";
    return kUsageError;
  } catch (const std::invalid_argument& error) {  // models, spares and out-of-service nodes that collide
    std::cerr << "simulate replay: " << error.what() << "\n";
    return kUsageError;
  }
  add_reader_skips(result, jobs->skipped);
  if (designed_write && result.failures) {
    result.failures->checkpoint_write_note =
        fmt::format("{:.3g} s, {}", built->checkpoint_write->seconds, built->checkpoint_write->note);
  }
  if (const auto refusal = no_job_can_run(result)) {
    std::cerr << "simulate replay: " << options.jobs << ": " << *refusal << "\n";
    return kInputError;
  }
  if (!options.csv.empty()) {
    std::ofstream csv(options.csv);
    csv << replay_intervals_csv(result);
    if (!csv) {
      std::cerr << options.csv << ": cannot write the metrics table\n";
      return kInputError;
    }
  }
  std::cout << (options.json ? replay_json(result).dump(2) + "\n" : replay_text(result, options.jobs));
  return 0;
}

void add_failure_options(CLI::App& command, ReplayCommandOptions& options) {
  command.add_option("--node-mtbf", options.node_mtbf,
                     "each node fails on average once in this time, e.g. 3000h");
  command.add_option("--node-failure-rate", options.node_failure_rate,
                     "or: node failures per nodes and time, e.g. 6.5/1000/day");
  command.add_option(
      "--failure-profile", options.failure_profile,
      "or: the failure data's profile (data/reliability/failure-rates.yaml), e.g. llama3-table5: "
      "every component's rate, scope and repair time");
  command.add_option("--failure-rates", options.failure_rates,
                     "a failure-rate file of the same form (default: the bundled one)");
  command.add_option("--repair", options.repair,
                     "how long a failed node is out, e.g. 48h (needed with failures)");
  command.add_option("--failure-seed", options.failure_seed, "seed of the failure times (default 1)");
  command.add_option("--checkpoint-interval", options.checkpoint_interval,
                     "work between checkpoints, e.g. 30min, or young-daly (Daly's optimum per job)");
  command.add_option("--checkpoint-write", options.checkpoint_write,
                     "time one checkpoint takes to write, e.g. 1min (default with --cluster: the checkpoint "
                     "over the designed storage's write rate, when the spec sizes storage for one)");
  command.add_option("--restart", options.restart,
                     "time a job takes to restart after an interruption, e.g. 10min");
  command
      .add_option("--spare-nodes", options.spare_nodes, "hold this many nodes (the last ones) as hot spares")
      ->check(non_negative_number());
  command
      .add_option("--mig-spare-nodes", options.mig_spare_nodes,
                  "hold this many MIG-mode nodes (the last ones, partitioned like the others) as hot spares "
                  "for MIG-mode nodes (needs --mig-nodes)")
      ->check(non_negative_number());
  command.add_option("--maintenance", options.maintenance,
                     "planned windows: every=90d,duration=8h,mode=rolling|all");
  command
      .add_option(
          "--out-of-service", options.out_of_service,
          "gputwin validate --json output: nodes with an uncorrectable ECC error, a row-remap failure or a "
          "failed DCGM diagnostic are out of service from the start")
      ->check(CLI::ExistingFile);
}

void add_replay_command(CLI::App& simulate, int& exit_code) {
  auto options = std::make_shared<ReplayCommandOptions>();
  auto* command =
      simulate.add_subcommand("replay", "replay a job trace: arrivals, queueing, gang starts, departures");
  command->add_option("--jobs", options->jobs, "job trace file")->required()->check(CLI::ExistingFile);
  command
      ->add_option("--format", options->format,
                   "philly | swf | helios | jobs | sacct | openb (default: detect)")
      ->check(CLI::IsMember({"auto", "philly", "swf", "helios", "jobs", "sacct", "openb"}));
  command->add_option("--cluster", options->cluster_spec, "cluster spec (YAML) to replay on")
      ->check(CLI::ExistingFile);
  add_node_type_option(*command, options->node_type);
  command->add_option("--nodes", options->nodes, "or: this many identical nodes")->check(positive_number());
  command->add_option("--gpus-per-node", options->gpus_per_node, "GPUs per node with --nodes (default 8)")
      ->check(positive_number());
  command->add_option("--policy", options->policy, "queue policy: fifo | sjf | easy | fair (default fifo)");
  command->add_option("--interval", options->interval, "seconds per row of the metrics table (default 3600)")
      ->check(positive_number());
  command
      ->add_option("--scan-depth", options->scan_depth,
                   "waiting jobs a pass looks at past the head (default 500)")
      ->check(non_negative_number());
  command->add_option("--fair-share-by", options->fair_share_by, "group | user (default group)")
      ->check(CLI::IsMember({"group", "user"}));
  command
      ->add_option("--runtime-estimate-factor", options->runtime_estimate_factor,
                   "EASY: jobs without a requested time are expected to run this x their run time (default: "
                   "data/reference/runtime-estimates.yaml; 1 = perfect foresight)")
      ->check(positive_number());
  command->add_flag("--json", options->json, std::string("print JSON (schema ") + kReplaySchema + ")");
  command->add_option("--csv", options->csv, "write the metrics over time as CSV to this file");
  command
      ->add_option("--mig-nodes", options->mig_nodes,
                   "this many nodes (the last ones) run their GPUs in MIG mode, for jobs with a mig_profile")
      ->check(non_negative_number());
  command->add_option(
      "--mig-profile-set", options->mig_profile_set,
      "MIG profiles of those GPUs (data/catalog/mig.yaml, e.g. a100-80gb; default: the cluster's GPU)");
  command->add_option(
      "--mig-layout", options->mig_layout,
      "pre-partition every MIG GPU, e.g. \"3g.40gb+2g.20gb+1g.10gb+1g.10gb\" (default: slices on demand)");
  add_failure_options(*command, *options);
  command->add_option("--power-budget", options->power_budget,
                      "an IT power budget for the compute nodes, with its unit, e.g. 2.5MW (--cluster only)");
  command
      ->add_option("--power-policy", options->power_policy,
                   "how the budget is held: cap-all (default) | admit-fewer | cap-low-priority")
      ->check(CLI::IsMember({"none", "cap-all", "admit-fewer", "cap-low-priority"}));
  command->add_flag(
      "--compare-power-policies", options->compare_power_policies,
      "also replay under none, cap-all, admit-fewer and cap-low-priority at the budget and print "
      "the trade-off");
  command
      ->add_option("--low-priority-qos", options->low_priority_qos,
                   "the trace's priority classes (QOS) cap-low-priority caps first, comma-separated, e.g. "
                   "scavenger,standby (default: openb's BE; none for other traces)")
      ->delimiter(',');
  add_catalog_options(*command, options->catalog);
  command->callback([options, &exit_code] { exit_code = run_replay(*options); });
}

struct PackingCommandOptions {
  std::string nodes;
  std::string pods;
  std::string policy = "fgd";
  std::vector<std::string> seeds;
  double inflate = 0;
  bool json = false;
};

// "42", "42-51" or "42,43" -> the seeds.
std::optional<std::vector<std::uint64_t>> parse_seeds(const std::vector<std::string>& texts) {
  std::vector<std::uint64_t> seeds;
  for (const auto& text : texts) {
    const auto dash = text.find('-');
    try {
      if (dash == std::string::npos) {
        seeds.push_back(std::stoull(text));
      } else {
        const auto first = std::stoull(text.substr(0, dash));
        const auto last = std::stoull(text.substr(dash + 1));
        if (last < first || last - first > 10000) return std::nullopt;
        for (auto seed = first; seed <= last; ++seed) seeds.push_back(seed);
      }
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return seeds;
}

int run_packing_command(const PackingCommandOptions& options) {
  const auto parameters = load_packing_parameters(bundled_data_dir() + "/reference/fgd-simulator.yaml");
  if (!parameters.ok()) {
    std::cerr << parameters.error_text();
    return kInputError;
  }
  const auto nodes = read_openb_nodes(options.nodes);
  if (!nodes.ok()) {
    std::cerr << nodes.error_text();
    return kInputError;
  }
  const auto pods = read_openb_pods(options.pods);
  if (!pods.ok()) {
    std::cerr << pods.error_text();
    return kInputError;
  }
  const auto seeds = parse_seeds(options.seeds.empty() ? std::vector<std::string>{"42"} : options.seeds);
  if (!seeds || seeds->empty()) {
    std::cerr << "simulate packing: --seed: expected whole numbers such as 42, 42-51 or 42,43\n";
    return kUsageError;
  }
  const double inflate = options.inflate > 0 ? options.inflate : parameters.value().inflate;
  std::vector<PackingResult> runs;
  try {
    for (const auto seed : *seeds) {
      runs.push_back(run_packing(nodes.value().rows, pods.value().rows, parameters.value(), options.policy,
                                 seed, inflate));
    }
  } catch (const std::invalid_argument& error) {
    std::cerr << "simulate packing: --policy: " << error.what() << "\n";
    return kUsageError;
  }
  for (const auto& [reason, count] : pods.value().skipped) {
    std::cerr << options.pods << ": " << count << " pods skipped: " << reason << "\n";
  }
  std::cout << (options.json ? packing_json(runs).dump(2) + "\n" : packing_text(runs, options.pods));
  return 0;
}

void add_packing_command(CLI::App& simulate, int& exit_code) {
  auto options = std::make_shared<PackingCommandOptions>();
  auto* command = simulate.add_subcommand(
      "packing", "the FGD paper's packing experiment: pods placed one by one, none leave");
  command->add_option("--nodes", options->nodes, "openb node list CSV")->required()->check(CLI::ExistingFile);
  command->add_option("--pods", options->pods, "openb pod list CSV")->required()->check(CLI::ExistingFile);
  command->add_option("--policy", options->policy,
                      "random | dotprod | clustering | packing | bestfit | fgd (default fgd)");
  command->add_option("--seed,--seeds", options->seeds, "seed, range 42-51 or list 42,43 (default 42)")
      ->delimiter(',');
  command
      ->add_option("--inflate", options->inflate,
                   "arrived GPU demand as a multiple of capacity (default 1.3)")
      ->check(positive_number());
  command->add_flag("--json", options->json, std::string("print JSON (schema ") + kPackingSchema + ")");
  command->callback([options, &exit_code] { exit_code = run_packing_command(*options); });
}

}  // namespace

void add_simulate_command(CLI::App& app, int& exit_code) {
  auto* simulate = app.add_subcommand("simulate", "discrete-event simulation of a cluster's scheduling");
  simulate->require_subcommand(1);
  add_replay_command(*simulate, exit_code);
  add_packing_command(*simulate, exit_code);
}

}  // namespace gputwin::cli
