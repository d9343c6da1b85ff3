// `gputwin perf goodput`: one training job on a cluster that fails. How many interruptions it meets, its
// MTTF, the Young/Daly checkpoint intervals, its effective training time ratio (ETTR) and wall-clock days,
// from a seeded Monte Carlo over the failure processes of its nodes (data/reliability/failure-rates.yaml, or
// one rate given on the command line).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/design/storage_sizing.hpp"
#include "gputwin/report/goodput_report.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/sim/goodput.hpp"

namespace gputwin::cli {
namespace {

struct GoodputOptions {
  CatalogOptions catalog;
  std::string system;
  std::string cluster;
  std::string node_type;  // --node-type: the compute nodes of a design that holds several types
  int gpus = 0;
  double days = 0;
  std::string rates;  // empty: the bundled data/reliability/failure-rates.yaml
  std::string profile = "llama3-table5";
  std::string node_failure_rate;
  std::string node_mtbf;
  std::string mtbf;
  std::string repair_time;
  std::string checkpoint_write;
  std::string restart;
  std::string checkpoint_interval;
  int spare_nodes = 0;
  std::optional<double> weibull_shape;  // empty: each process's own (exponential unless the data gives one)
  int seeds = 20;
  int seed = 1;
  int nodes_per_leaf = 32;
  bool json = false;
};

// The shared readers of sim/failure_options (durations and rates need their units), as usage errors.
double hours_option(const std::string& option, const std::string& text, bool zero_allowed) {
  double hours = 0;
  try {
    hours = parse_duration_s(text, option) / 3600;
  } catch (const std::invalid_argument& error) {
    throw UsageFailure{error.what()};
  }
  if (!zero_allowed && !(hours > 0))
    throw UsageFailure{option + ": '" + text + "': must be greater than zero"};
  return hours;
}

// "6.5/1000/day" (failures per 1000 node-days), "0.0065/day", "2.7e-4/h": failures per node and hour.
double node_rate_per_hour(const std::string& text) {
  try {
    return parse_failure_rate_per_hour(text, "--node-failure-rate");
  } catch (const std::invalid_argument& error) {
    throw UsageFailure{error.what()};
  }
}

struct Where {
  ClusterShape shape;
  std::string system;
  std::string where;
  std::string shape_note;
  int cluster_nodes = 0;  // 0: a catalog system, no limit
  // The checkpoint's write time on the designed storage, when the spec sizes storage for a checkpoint.
  std::optional<double> designed_write_hours;
  std::string designed_write_note;
};

Where shape_of_system(const Catalog& catalog, const GoodputOptions& o) {
  const SystemChoice choice = system_choice(catalog, o.system);  // a rack system: its compute trays
  const System* system = choice.node;
  Where w;
  w.system = choice.node_id();
  w.where = "catalog system " + o.system + (choice.rack != nullptr ? " (its " + w.system + " trays)" : "");
  w.shape.gpus_per_node = system->accelerators;
  const auto compute = system->nics.find(NetworkRole::compute);
  w.shape.nics_per_node = compute == system->nics.end() ? 1 : compute->second.ports;
  w.shape.leaves_per_node = std::max(1, w.shape.nics_per_node);  // rail-optimized: one leaf per rail
  w.shape.nodes_per_leaf = o.nodes_per_leaf;
  w.shape.nodes_per_domain = systems_per_scale_up_domain(*system);
  w.shape_note = fmt::format(
      "{} GPUs, {} compute NIC ports a node; {} nodes a leaf (--nodes-per-leaf, assumed), "
      "{} leaves a node (one a rail); {} node(s) a scale-up domain",
      w.shape.gpus_per_node, w.shape.nics_per_node, w.shape.nodes_per_leaf, w.shape.leaves_per_node,
      w.shape.nodes_per_domain);
  return w;
}

std::optional<Where> shape_of_cluster(const Catalog& catalog, const GoodputOptions& o) {
  const auto cluster = load_designed_cluster(o.cluster, catalog, o.node_type);
  if (!cluster) return std::nullopt;
  const NodeType* node = cluster->sole_node_type();
  if (node == nullptr || node->gpus == 0)
    throw UsageFailure{
        "--cluster: the design has no single GPU node type (choose one with --node-type NAME)"};
  const auto shape = cluster_shape(*cluster, o.nodes_per_leaf);
  Where w;
  w.system = node->system;
  w.cluster_nodes = cluster->nodes;
  w.where = fmt::format("cluster {} ({} nodes)", o.cluster, cluster->nodes);
  w.shape = *shape;
  if (const auto write = designed_checkpoint_write(cluster->storage)) {
    w.designed_write_hours = write->seconds / 3600;
    w.designed_write_note = write->note;
  }
  w.shape_note = fmt::format(
      "{} GPUs, {} compute NIC ports a node; {} nodes a leaf, {} leaves a node; {} node(s) "
      "a scale-up domain (from the design)",
      w.shape.gpus_per_node, w.shape.nics_per_node, w.shape.nodes_per_leaf, w.shape.leaves_per_node,
      w.shape.nodes_per_domain);
  return w;
}

int run_goodput(const GoodputOptions& o) {
  try {
    if (o.system.empty() == o.cluster.empty())
      throw UsageFailure{"give --system ID or --cluster SPEC (one of them)"};
    if (!(o.gpus > 0)) throw UsageFailure{"--gpus: must be greater than zero"};
    if (!(o.days > 0)) throw UsageFailure{fmt::format("--days: must be greater than zero, got {:g}", o.days)};
    if (o.spare_nodes < 0) throw UsageFailure{"--spare-nodes: must not be negative"};
    if (o.seeds < 1) throw UsageFailure{"--seeds: must be at least 1"};
    if (o.weibull_shape && !(*o.weibull_shape > 0))
      throw UsageFailure{
          fmt::format("--weibull-shape: must be greater than zero, got {:g}", *o.weibull_shape)};
    if (static_cast<int>(!o.node_failure_rate.empty()) + static_cast<int>(!o.node_mtbf.empty()) +
            static_cast<int>(!o.mtbf.empty()) >
        1) {
      throw UsageFailure{"give one of --node-failure-rate, --node-mtbf and --mtbf"};
    }
    const auto catalog = load_catalog(o.catalog);
    if (!catalog) return kInputError;
    std::optional<Where> where = o.cluster.empty() ? std::optional<Where>(shape_of_system(*catalog, o))
                                                   : shape_of_cluster(*catalog, o);
    if (!where) return kInputError;
    const std::string rates_path =
        o.rates.empty() ? bundled_data_dir() + "/reliability/failure-rates.yaml" : o.rates;
    auto rates = load_failure_rates(rates_path);
    if (!rates.ok()) {
      std::cerr << rates.error_text();
      return kInputError;
    }

    GoodputRequest request;
    request.gpus = o.gpus;
    request.work_hours = o.days * 24;
    request.shape = where->shape;
    request.spare_nodes = o.spare_nodes;
    request.seeds = o.seeds;
    request.first_seed = static_cast<std::uint64_t>(o.seed);
    const int nodes = job_nodes(o.gpus, request.shape);
    if (where->cluster_nodes > 0 && nodes + o.spare_nodes > where->cluster_nodes) {
      throw UsageFailure{fmt::format("the job's {} nodes and {} spares do not fit the cluster's {} nodes",
                                     nodes, o.spare_nodes, where->cluster_nodes)};
    }
    // 0: not given (a given repair time is greater than zero).
    const double repair_given =
        o.repair_time.empty() ? 0 : hours_option("--repair-time", o.repair_time, false);

    GoodputJob job;
    job.system = where->system;
    job.where = where->where;
    job.shape_note = where->shape_note;
    job.gpus = o.gpus;
    job.work_days = o.days;
    if (!o.node_failure_rate.empty() || !o.node_mtbf.empty()) {
      const bool by_rate = !o.node_failure_rate.empty();
      const std::string given =
          by_rate ? "--node-failure-rate " + o.node_failure_rate : "--node-mtbf " + o.node_mtbf;
      const double rate = by_rate ? node_rate_per_hour(o.node_failure_rate)
                                  : 1 / hours_option("--node-mtbf", o.node_mtbf, false);
      const auto& repair_default = rates.value().node_repair_default;
      if (repair_given <= 0 && !repair_default) {
        throw UsageFailure{"--repair: give how long a failed node is out (" + rates_path +
                           " has no node_repair_default)"};
      }
      const double repair_hours = repair_given > 0 ? repair_given : repair_default->repair_hours;
      request.processes.push_back({.cause = "node-failure",
                                   .category = "All",
                                   .scope = FailureScope::node,
                                   .rate_per_unit_hour = rate,
                                   .weibull_shape = 1,
                                   .repair_hours = repair_hours,
                                   .source = given});
      job.failure_model = fmt::format("{} ({:.3g} per node-hour), repair {:g} h{}", given, rate, repair_hours,
                                      repair_given > 0 ? "" : " (assumed default; --repair-time)");
    } else if (!o.mtbf.empty()) {
      const double mtbf = hours_option("--mtbf", o.mtbf, false);
      request.processes.push_back({.cause = "job-failure",
                                   .category = "All",
                                   .scope = FailureScope::job_on_node,
                                   .rate_per_unit_hour = 1.0 / (mtbf * nodes),
                                   .weibull_shape = 1,
                                   .repair_hours = 0,
                                   .source = "--mtbf " + o.mtbf});
      job.failure_model = "--mtbf " + o.mtbf + " for the whole job (restart only: no node goes to repair)";
    } else {
      const FailureProfile* profile = rates.value().profile(o.profile);
      if (profile == nullptr) {
        throw UsageFailure{
            "--profile: unknown profile '" + o.profile + "'; known: " + rates.value().profile_names() + " (" +
            (o.rates.empty() ? std::string("data/reliability/failure-rates.yaml") : o.rates) + ")"};
      }
      request.processes = failure_processes(*profile, request.shape);
      const double every_repair = repair_given;
      if (every_repair > 0) {
        for (auto& process : request.processes) {
          if (process.scope != FailureScope::job_on_node) process.repair_hours = every_repair;
        }
      }
      job.failure_model =
          o.profile + " (" + profile->description + ")" +
          (every_repair > 0 ? fmt::format("; every repair {:g} h (--repair-time)", every_repair)
                            : "; repair times assumed (data/reliability/failure-rates.yaml)");
    }

    if (o.weibull_shape) {
      for (auto& process : request.processes) process.weibull_shape = *o.weibull_shape;
      job.failure_model +=
          fmt::format("; times between failures Weibull, shape {:g} (--weibull-shape)", *o.weibull_shape);
    } else if (std::any_of(request.processes.begin(), request.processes.end(),
                           [](const FailureProcess& p) { return p.weibull_shape != 1; })) {
      job.failure_model += "; Weibull shapes from the data";
    }

    const JobDefaults& defaults = rates.value().job_defaults;
    const bool designed_write = o.checkpoint_write.empty() && where->designed_write_hours.has_value();
    request.checkpoint_write_hours = !o.checkpoint_write.empty()
                                         ? hours_option("--checkpoint-write", o.checkpoint_write, true)
                                     : designed_write ? *where->designed_write_hours
                                                      : defaults.checkpoint_write_hours;
    request.restart_hours =
        o.restart.empty() ? defaults.restart_hours : hours_option("--restart", o.restart, true);
    if (!o.checkpoint_interval.empty()) {
      request.checkpoint_interval_hours = hours_option("--checkpoint-interval", o.checkpoint_interval, false);
    }
    job.checkpoint_write_hours = request.checkpoint_write_hours;
    job.restart_hours = request.restart_hours;
    job.interval_given = request.checkpoint_interval_hours.has_value();
    job.checkpoint_note = o.checkpoint_write.empty() || o.restart.empty()
                              ? "defaults are assumed, not measured: " + defaults.source
                              : "as given";
    if (designed_write) {
      job.checkpoint_note =
          where->designed_write_note +
          (o.restart.empty() ? "; restart assumed, not measured: " + defaults.source : "; restart as given");
    }

    const auto result = simulate_goodput(request);
    if (!result.ok()) {
      std::cerr << "perf goodput: " << result.error_text();
      return kInputError;
    }
    if (o.json) {
      std::cout << goodput_json(job, result.value()).dump(2) << "\n";
    } else {
      std::cout << goodput_text(job, result.value());
    }
    return 0;
  } catch (const UsageFailure& failure) {
    std::cerr << "perf goodput: " << failure.message << "\n";
    return kUsageError;
  }
}

}  // namespace

void add_perf_goodput_command(CLI::App& perf, int& exit_code) {
  auto o = std::make_shared<GoodputOptions>();
  auto* command = perf.add_subcommand(
      "goodput",
      "one job under failures: interruptions, MTTF, checkpoint interval, ETTR and wall-clock days");
  command->add_option(
      "--system", o->system,
      "catalog system of the job's nodes, e.g. dgx-h100, or a rack system (gb200-nvl72: its trays)");
  command->add_option("--cluster", o->cluster, "cluster spec: its node type, leaves and scale-up domains")
      ->check(CLI::ExistingFile);
  add_node_type_option(*command, o->node_type);
  command->add_option("--gpus", o->gpus, "GPUs of the job")->required();
  command->add_option("--days", o->days, "days of work at 100 % ETTR (no failure, no checkpoint)")
      ->required();
  // The names `simulate replay` uses (--failure-rates, --failure-profile, --node-mtbf, --repair) and the
  // command's first names (--rates, --profile, --repair-time) as aliases.
  command
      ->add_option("--failure-rates,--rates", o->rates,
                   "failure-rate file (default data/reliability/failure-rates.yaml)")
      ->check(CLI::ExistingFile);
  command->add_option("--failure-profile,--profile", o->profile,
                      "failure profile of the rate file (default llama3-table5)");
  command->add_option("--node-failure-rate", o->node_failure_rate,
                      "one rate for every cause instead, per node: 6.5/1000/day, 0.0065/day, 2.7e-4/hour");
  command->add_option("--node-mtbf", o->node_mtbf,
                      "or: each node fails on average once in this time, e.g. 3000h (a node-scope rate)");
  command->add_option("--mtbf", o->mtbf,
                      "the job's mean time between failures instead, e.g. 3h (restart only)");
  command->add_option("--repair,--repair-time", o->repair_time,
                      "every hardware repair takes this long, e.g. 48h (default with a single node rate: "
                      "data/reliability/failure-rates.yaml node_repair_default)");
  command->add_option("--checkpoint-write", o->checkpoint_write, "time to write a checkpoint, e.g. 2min");
  command->add_option("--restart", o->restart, "time from a failure to training again, e.g. 10min");
  command->add_option("--checkpoint-interval", o->checkpoint_interval,
                      "compute time between checkpoints (default: Daly's optimum)");
  command->add_option("--spare-nodes", o->spare_nodes,
                      "hot-spare nodes that replace failed ones (default 0)");
  command->add_option("--weibull-shape", o->weibull_shape,
                      "times between failures of each node Weibull with this shape (< 1: failures cluster "
                      "early; 1: exponential) and the same mean; default: the data's (exponential)");
  command->add_option("--seeds", o->seeds, "Monte Carlo runs (default 20)");
  command->add_option("--seed", o->seed, "first seed (default 1); run i uses seed + i");
  command
      ->add_option("--nodes-per-leaf", o->nodes_per_leaf,
                   "with --system: nodes one leaf switch serves (default 32, a DGX SuperPOD scalable unit)")
      ->check(positive_number());
  command->add_flag("--json", o->json, std::string("print JSON (schema ") + kGoodputSchema + ")");
  add_catalog_options(*command, o->catalog);
  command->callback([o, &exit_code] { exit_code = run_goodput(*o); });
}

}  // namespace gputwin::cli
