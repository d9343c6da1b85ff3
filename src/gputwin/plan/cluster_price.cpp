#include "gputwin/plan/cluster_price.hpp"

namespace gputwin {

Result<GpuHourPrice> gpu_hour_price_of(const Cluster& cluster, const Catalog& /*catalog*/,
                                       const std::string& spec_path) {
  const Costs& costs = cluster.costs;
  const SourceLocation where{spec_path, 0, 0};
  if (!costs.priced) {
    return InputError{
        where, "costs.prices",
        "the cluster has no price list, so it has no TCO per GPU-hour; add costs.prices (or give "
        "--prices)"};
  }
  if (!costs.complete() || !costs.cost_per_gpu_hour) {
    std::string missing;
    for (const auto& part : costs.unpriced_parts) missing += (missing.empty() ? "" : ", ") + part;
    return InputError{where, "costs.prices",
                      "the cluster's prices are incomplete (no price for " + missing +
                          "), so its TCO per GPU-hour would leave them out; price every part"};
  }
  const NodeType* type = cluster.sole_node_type();
  if (type == nullptr) {
    return InputError{where, "nodes.system",
                      several_node_types_text(cluster) + "; one TCO per GPU-hour prices one accelerator"};
  }
  if (type->accelerator.empty()) {
    return InputError{where, "nodes.system", "'" + type->system + "' carries no accelerator"};
  }
  return GpuHourPrice{type->accelerator, *costs.cost_per_gpu_hour};
}

}  // namespace gputwin
