// What a measured fleet should be, as the design says: node names and count, GPUs per node, the GPU model
// (with the product names the tools print for it) and its memory. `gputwin validate --cluster` compares the
// fleet with it (check_against_design).
//
//   Result<GpuProductNames> names = load_gpu_product_names(bundled_data_dir() + "/validate/gpu-names.yaml");
//   DesignedFleet design = designed_fleet(cluster, catalog, names.value());
//   design.reported_names;   // {"NVIDIA H100 80GB HBM3"} for an h100-sxm design
//
// nvidia-smi, dcgm-exporter and nccl-tests print a product name ("NVIDIA H100 80GB HBM3") that is not the
// catalog's id or name ("h100-sxm", "H100 SXM 80GB"): data/validate/gpu-names.yaml maps one to the other,
// each name with where it was seen. A designed GPU with no known names is said, not guessed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/validate/pcie_links.hpp"

namespace gputwin::validate {

// Catalog accelerator id -> the product names tools print for it.
using GpuProductNames = std::map<std::string, std::vector<std::string>>;

[[nodiscard]] Result<GpuProductNames> load_gpu_product_names(const std::string& path);

struct DesignedFleet {
  std::string spec;                     // the cluster spec compared with
  std::vector<std::string> node_names;  // "node-001", ... as the design names them
  int gpus_per_node = 0;
  std::string accelerator;       // catalog id, "h100-sxm"
  std::string accelerator_name;  // "H100 SXM 80GB"
  ByteSize gpu_memory;
  std::vector<std::string> reported_names;  // empty when gpu-names.yaml lists none for the accelerator
  std::string host_link;          // the catalog GPU's host_link type ("PCIe Gen5 x16"); may be empty
  PcieLaneRates pcie_lane_rates;  // data/validate/pcie-links.yaml, to judge links by
};

[[nodiscard]] DesignedFleet designed_fleet(const std::string& spec, const Cluster& cluster,
                                           const Catalog& catalog, const GpuProductNames& names,
                                           const PcieLaneRates& pcie_lane_rates);

}  // namespace gputwin::validate
