// The price of one GPU-hour on a designed cluster: its own TCO per GPU-hour, so that a workload can be sized
// at what the planned cluster costs rather than at a separate price list (`perf size --cluster SPEC`).
//
//   Result<GpuHourPrice> price = gpu_hour_price_of(cluster, catalog, "examples/my-cluster.yaml");
//   if (!price.ok()) { std::cerr << price.error_text(); return 1; }   // no prices, or some parts unpriced
//   request.gpu_hour_prices[price.value().accelerator] = price.value().price;
//
// A TCO that leaves out unpriced parts is no price: the cluster must be priced completely (Costs::complete).
#pragma once

#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/design/cluster.hpp"

namespace gputwin {

struct GpuHourPrice {
  std::string accelerator;  // catalog id of the cluster's GPUs
  Money price;              // TCO per GPU-hour over the cluster's lifetime
};

// Errors name `spec_path` and its costs.prices field: no price list, or the parts it leaves unpriced.
[[nodiscard]] Result<GpuHourPrice> gpu_hour_price_of(const Cluster& cluster, const Catalog& catalog,
                                                     const std::string& spec_path);

}  // namespace gputwin
