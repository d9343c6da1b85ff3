// From files to a designed cluster: the catalog (bundled and the user's folders), a spec read against it,
// sized for its workload when it asks for one (plan/workload_fit.hpp; within a facility power budget,
// plan/power_budget.hpp, with the chosen GPU power cap applied to its systems' power), and designed
// (design/design.hpp).
// Every command that starts from a spec goes through here.
//
//   Result<Catalog> catalog = load_catalog({"my-parts/"});
//   Result<DesignedSpec> design = load_design("examples/dgx-h100-superpod-4su.yaml", catalog.value());
//   if (design.ok() && design.value().workload_fit) ...   // the spec named a workload; how it was sized
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/plan/workload_fit.hpp"

namespace gputwin {

struct CatalogSources {
  std::vector<std::string> extra_dirs;  // the user's part folders, read after the bundled catalog
  bool with_bundled = true;
};

// The catalog, every system without a typical power in its file given one from the power model
// (plan/typical_power.hpp: a published measured draw, else modelled; each with its source).
[[nodiscard]] Result<Catalog> load_catalog(const CatalogSources& sources);

// A designed spec; when the spec asked for a workload, how its node count was sized.
struct DesignedSpec {
  Cluster cluster;
  std::optional<WorkloadFit> workload_fit;
};

[[nodiscard]] Result<DesignedSpec> load_design(const std::string& spec_path, const Catalog& catalog);

}  // namespace gputwin
