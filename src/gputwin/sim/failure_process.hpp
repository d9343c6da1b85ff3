// One independent kind of failure as the simulators see it: what it strikes, how often, what it takes out and
// for how long. The failure data (issue 17 item 2) is turned into a list of these for a given cluster shape;
// `simulate replay`'s failure model and `perf goodput` both draw their events from the same list, so the two
// can never disagree on what a rate means.
//
//   FailureProcess gpu{.cause = "faulty-gpu", .category = "GPU", .scope = FailureScope::node,
//                      .rate_per_unit_hour = 8 * 1.1e-5, .repair_hours = 48};  // 8 GPUs a node
//   double per_cluster_hour = gpu.rate_per_unit_hour * nodes;                  // expected strikes an hour
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gputwin {

// The unit a failure strikes. Everything in the unit is out of service until it is repaired.
enum class FailureScope : std::uint8_t {
  node,             // one node (a GPU, NIC, host part: the node is drained)
  leaf_switch,      // every node cabled to one leaf switch drops off the fabric
  scale_up_domain,  // every node of one NVLink / Infinity Fabric domain (an NVLink switch tray)
  job_on_node,      // the job running on one node fails (software, NCCL timeout); the node stays in service
};

struct FailureProcess {
  std::string cause;     // the name reported per interruption, e.g. "faulty-gpu", "network-switch-cable"
  std::string category;  // a coarser group for by-cause tables, e.g. "GPU", "Network", "Host", "Dependency"
  FailureScope scope = FailureScope::node;
  double rate_per_unit_hour = 0;  // expected failures per unit of `scope` per hour (per node for job_on_node)
  double weibull_shape = 1;       // 1 = exponential (memoryless) times between failures of one unit
  double repair_hours = 0;        // how long the unit stays out (0 for job_on_node: restart only)
  std::string source;             // where the rate came from (data file entry, or "--node-mtbf" etc.)
};

}  // namespace gputwin
