// What a designed cluster adds to the checks (`validate --cluster SPEC`): the fleet the design describes
// (nodes, GPU model, count and memory), perf's busbw prediction for it and, with a MIG layout, the layout
// intended on its GPU. The bundled collective model and GPU product names are read from the data directory.
//
//   Result<CheckOptions> options = design_check_options("pod.yaml", cluster, catalog, "3g.40gb+4g.40gb");
//   evaluate_checks(fleet, checks, options.value());
#pragma once

#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/validate/checks.hpp"

namespace gputwin::validate {

// Throws std::invalid_argument naming --mig-layout when the layout does not fit the cluster's GPU (or the GPU
// has no MIG profiles); data-file problems come back as errors.
[[nodiscard]] Result<CheckOptions> design_check_options(const std::string& spec, const Cluster& cluster,
                                                        const Catalog& catalog,
                                                        const std::string& mig_layout);

}  // namespace gputwin::validate
