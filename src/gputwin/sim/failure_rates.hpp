// Failure rates as data: data/reliability/failure-rates.yaml loaded into typed rows, and those rows turned
// into the FailureProcess list (sim/failure_process.hpp) of a given cluster shape.
//
//   Result<FailureRates> rates = load_failure_rates(bundled_data_dir() + "/reliability/failure-rates.yaml");
//   ClusterShape shape{.gpus_per_node = 8, .nics_per_node = 8, .nodes_per_leaf = 32};
//   std::vector<FailureProcess> processes = failure_processes(rates.value(), "llama3-table5", shape);
//   // processes[0]: faulty-gpu, scope node, rate per node-hour = 148 / (16384 x 1296) x 8
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/sim/failure_process.hpp"

namespace gputwin {

// What a rate is counted per: one GPU, node, NIC, switch or scale-up domain.
enum class CountedUnit : std::uint8_t { gpu, node, nic, switch_, domain };

struct FailureRate {
  std::string id;         // the cause, e.g. "faulty-gpu"
  std::string component;  // gpu, gpu_memory, nic, network, host, software
  std::string category;   // e.g. "GPU", "Host", "Dependency"
  FailureScope scope = FailureScope::node;
  double rate_per_unit_hour = 0;  // events per `counted` unit per hour
  CountedUnit counted = CountedUnit::node;
  double count = 0;  // the source's event count when the rate is count / exposure; 0 otherwise
  double weibull_shape = 1;
  double repair_hours = 0;
  std::string source;
  std::string confidence;
};

struct FailureProfile {
  std::string name;
  std::string description;
  std::string set;  // "fit" or "evaluation"
  std::vector<FailureRate> rows;
};

struct ReplacementThreshold {
  std::string generation;
  std::string mechanism;
  int limit = 0;
  std::string source;
};

struct JobDefaults {
  double checkpoint_write_hours = 0;
  double restart_hours = 0;
  std::string source;
};

// The repair time of a node struck by one rate given on the command line, when no repair is given.
struct NodeRepairDefault {
  double repair_hours = 0;
  std::string source;
  std::string confidence;
};

struct FailureRates {
  std::vector<FailureProfile> profiles;
  std::vector<ReplacementThreshold> replacement_thresholds;
  JobDefaults job_defaults;
  std::optional<NodeRepairDefault> node_repair_default;  // empty when the file gives none

  [[nodiscard]] const FailureProfile* profile(std::string_view name) const;
  [[nodiscard]] std::string profile_names() const;  // "a, b, c"
};

// The cluster around a job, as far as failures care: what one node holds and how nodes share switches and
// scale-up domains.
struct ClusterShape {
  int gpus_per_node = 8;
  int nics_per_node = 8;     // compute-fabric NIC ports
  int nodes_per_leaf = 32;   // nodes one leaf switch serves (a scalable unit on a rail-optimized fabric)
  int leaves_per_node = 1;   // leaf switches one node is cabled to (its rails on a rail-optimized fabric)
  int nodes_per_domain = 1;  // nodes of one scale-up domain (1 for an 8-GPU HGX node, 18 for an NVL72 rack)
};

struct Cluster;
struct ReplayTopology;

// The shape of a designed cluster: its sole GPU node type's GPUs and compute NIC ports, its compute fabric's
// nodes a leaf and leaves a node (a rail-optimized fabric cables each node to one leaf a rail), its first
// scale-up domain's nodes. `nodes_per_leaf` when the design has no compute leaves. Empty when the design has
// no single GPU node type.
[[nodiscard]] std::optional<ClusterShape> cluster_shape(const Cluster& cluster, int nodes_per_leaf);
// The shape of a replay's topology: nodes a leaf group and a scale-up domain counted on it (the largest);
// one compute NIC a GPU is assumed (the topology does not carry NICs); the leaf group is one unit, so a leaf
// failure takes its nodes out.
[[nodiscard]] ClusterShape cluster_shape(const ReplayTopology& topology);

// Loads and checks the file: located errors for a rate without its unit, a zero repair on a hardware scope,
// an unknown scope, component, counted unit or exposure.
[[nodiscard]] Result<FailureRates> load_failure_rates(const std::string& path);
[[nodiscard]] Result<FailureRates> parse_failure_rates(const std::string& text, const std::string& name);

// The processes of one profile on a cluster shape, each rate per unit of its scope (a GPU rate times the GPUs
// of a node for a node-scope failure, a node rate times the nodes of a leaf for a leaf-scope one, ...).
[[nodiscard]] std::vector<FailureProcess> failure_processes(const FailureProfile& profile,
                                                            const ClusterShape& shape);

// "3h", "90min", "45 s", "2d", "1.5 h" -> hours; empty on anything else (a bare number has no unit).
[[nodiscard]] std::optional<double> parse_hours(std::string_view text);

[[nodiscard]] const char* scope_name(FailureScope scope);

}  // namespace gputwin
