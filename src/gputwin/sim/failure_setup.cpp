#include "gputwin/sim/failure_setup.hpp"

#include <cmath>
#include <stdexcept>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/sim/checkpoint_policies.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/failure_rates.hpp"
#include "gputwin/sim/maintenance.hpp"
#include "gputwin/sim/process_failures.hpp"

namespace gputwin {
namespace {

// The processes of a profile of the failure data, on the replay's cluster.
std::vector<FailureProcess> profile_processes(const FailureSetup& options, const ReplayTopology& topology) {
  const std::string path = options.failure_rates.empty()
                               ? bundled_data_dir() + "/reliability/failure-rates.yaml"
                               : options.failure_rates;
  auto rates = load_failure_rates(path);
  if (!rates.ok()) throw std::invalid_argument(rates.error_text());
  const std::string name = options.failure_profile.empty() ? "llama3-table5" : options.failure_profile;
  const FailureProfile* profile = rates.value().profile(name);
  if (profile == nullptr) {
    throw std::invalid_argument(
        "--failure-profile: unknown profile '" + name + "'; known: " + rates.value().profile_names() + " (" +
        (options.failure_rates.empty() ? "data/reliability/failure-rates.yaml" : options.failure_rates) +
        ")");
  }
  return failure_processes(*profile, cluster_shape(topology));
}

// The checkpoint write time is --checkpoint-write, else the designed storage's (`designed_write_s`, when the
// --cluster spec sizes storage for a checkpoint), else 0.
std::unique_ptr<CheckpointPolicy> checkpoint_policy(const FailureSetup& options,
                                                    const std::vector<FailureProcess>& processes,
                                                    const ReplayTopology& topology,
                                                    std::optional<double> designed_write_s) {
  CheckpointSettings settings;
  if (!options.checkpoint_write.empty()) {
    settings.write_s = parse_duration_s(options.checkpoint_write, "--checkpoint-write");
  } else if (designed_write_s) {
    settings.write_s = *designed_write_s;
  }
  if (!options.restart.empty()) settings.restart_s = parse_duration_s(options.restart, "--restart");
  if (options.checkpoint_interval.empty()) {
    if (!options.checkpoint_write.empty()) {
      throw std::invalid_argument("--checkpoint-write: give --checkpoint-interval T or young-daly");
    }
    if (settings.restart_s > 0) {
      // Restarts without checkpoints: every interruption starts the job over, after the restart time.
      settings.interval_s = INFINITY;
      return make_checkpoint_policy("interval", settings);
    }
    return make_checkpoint_policy("none");
  }
  if (options.checkpoint_interval == "young-daly") {
    if (processes.empty())
      throw std::invalid_argument(
          "--checkpoint-interval young-daly: give a failure rate (--node-mtbf, --node-failure-rate or "
          "--failure-profile)");
    settings.failures_per_hour = [processes, topology](const JobSpec& job) {
      return failures_per_hour_seen(processes, topology, job.gpus);
    };
    return make_checkpoint_policy("young-daly", settings);
  }
  settings.interval_s = parse_duration_s(options.checkpoint_interval, "--checkpoint-interval");
  return make_checkpoint_policy("interval", settings);
}

}  // namespace

// The failure processes the options give: a profile of the failure data (--failure-profile/--failure-rates)
// or one node-scope process from --node-mtbf or --node-failure-rate with --repair.
std::vector<FailureProcess> failure_processes(const FailureSetup& options, const ReplayTopology& topology) {
  const bool from_data = !options.failure_profile.empty() || !options.failure_rates.empty();
  if (from_data) {
    if (!options.node_mtbf.empty() || !options.node_failure_rate.empty() || !options.repair.empty()) {
      throw std::invalid_argument(
          "--failure-profile/--failure-rates: the data gives rates and repair times; drop --node-mtbf, "
          "--node-failure-rate and --repair");
    }
    return profile_processes(options, topology);
  }
  if (options.node_mtbf.empty() && options.node_failure_rate.empty()) {
    if (!options.repair.empty())
      throw std::invalid_argument(
          "--repair: give the failures it repairs (--node-mtbf or --node-failure-rate)");
    return {};
  }
  if (!options.node_mtbf.empty() && !options.node_failure_rate.empty()) {
    throw std::invalid_argument("--node-mtbf and --node-failure-rate say the same thing: give one");
  }
  FailureProcess node;
  node.cause = "node";
  node.category = "node";
  node.scope = FailureScope::node;
  if (!options.node_mtbf.empty()) {
    const double mtbf_s = parse_duration_s(options.node_mtbf, "--node-mtbf");
    if (!(mtbf_s > 0)) throw std::invalid_argument("--node-mtbf: must be > 0");
    node.rate_per_unit_hour = 3600 / mtbf_s;
    node.source = "--node-mtbf " + options.node_mtbf;
  } else {
    node.rate_per_unit_hour = parse_failure_rate_per_hour(options.node_failure_rate, "--node-failure-rate");
    node.source = "--node-failure-rate " + options.node_failure_rate;
  }
  if (options.repair.empty())
    throw std::invalid_argument("--repair: give how long a failed node is out (e.g. --repair 48h)");
  node.repair_hours = parse_duration_s(options.repair, "--repair") / 3600;
  if (!(node.repair_hours > 0)) {
    throw std::invalid_argument("--repair: '" + options.repair + "': a failed node is out for a time > 0");
  }
  return {node};
}

// The models the failure options ask for; throws std::invalid_argument naming the option that is wrong.
ReplayModels make_replay_models(const FailureSetup& options, const ReplayTopology& topology,
                                std::optional<double> designed_write_s) {
  ReplayModels models;
  const std::vector<FailureProcess> processes = failure_processes(options, topology);
  if (!processes.empty()) models.failures = make_process_failures(processes, topology, options.failure_seed);
  if (!options.maintenance.empty()) {
    models.failures = merge_failure_models(
        std::move(models.failures), make_maintenance(parse_maintenance(options.maintenance), topology));
  }
  models.checkpoints = checkpoint_policy(options, processes, topology, designed_write_s);
  if (options.spare_nodes >= static_cast<int>(topology.leaf_of_node.size()) && options.spare_nodes > 0) {
    throw std::invalid_argument("--spare-nodes: " + std::to_string(options.spare_nodes) +
                                " spares leave no node of " + std::to_string(topology.leaf_of_node.size()) +
                                " to run jobs");
  }
  models.spare_nodes = options.spare_nodes;
  models.mig_spare_nodes = options.mig_spare_nodes;
  return models;
}

}  // namespace gputwin
