#include "gputwin/plan/sweep_inputs.hpp"

#include <utility>

#include "gputwin/sim/simulated_cluster.hpp"
#include "gputwin/trace/trace_file.hpp"

namespace gputwin {
namespace {

// The catalog, read the first time a design needs it.
class LazyCatalog {
 public:
  explicit LazyCatalog(const CatalogSources& sources) : sources_(sources) {}
  [[nodiscard]] Result<const Catalog*> get() {
    if (!catalog_) {
      auto loaded = load_catalog(sources_);
      if (!loaded.ok()) return loaded.errors();
      catalog_ = std::move(loaded).value();
    }
    return &*catalog_;
  }

 private:
  const CatalogSources& sources_;
  std::optional<Catalog> catalog_;
};

Result<SimulatedCluster> design_cluster(const SweepDesign& design, LazyCatalog& catalog) {
  if (design.spec_path.empty()) return uniform_simulated_cluster(design.nodes, design.gpus_per_node);
  const auto loaded = catalog.get();
  if (!loaded.ok()) return loaded.errors();
  auto designed = load_design(design.spec_path, *loaded.value());
  if (!designed.ok()) return designed.errors();
  return simulated_cluster(designed.value().cluster, *loaded.value());
}

}  // namespace

Result<SweepInputs> load_sweep_inputs(const std::string& sweep_file, const CatalogSources& catalog_sources,
                                      std::optional<int> only_design) {
  auto spec = load_sweep(sweep_file);
  if (!spec.ok()) return spec.errors();
  SweepInputs inputs{std::move(spec).value(), {}, 0, {}, {}};
  auto trace = read_trace(inputs.spec.trace_path, inputs.spec.trace_format);
  if (!trace.ok()) return trace.errors();
  for (const auto& [reason, rows] : trace.value().skipped) inputs.reader_skipped += rows;
  inputs.jobs = std::move(trace).value().jobs;
  LazyCatalog catalog(catalog_sources);
  for (int d = 0; d < static_cast<int>(inputs.spec.designs.size()); ++d) {
    if (only_design && d != *only_design) {
      inputs.pools.push_back(GpuPool::uniform(1, 1));  // never used
      inputs.topologies.emplace_back();
      continue;
    }
    auto cluster = design_cluster(inputs.spec.designs[d], catalog);
    if (!cluster.ok()) return cluster.errors();
    SimulatedCluster built = std::move(cluster).value();
    const int nodes = static_cast<int>(built.topology.leaf_of_node.size());
    if (auto error = spare_pool_error(inputs.spec, inputs.spec.designs[d], nodes)) return InputErrors{*error};
    inputs.pools.push_back(std::move(built.whole));
    inputs.topologies.push_back(std::move(built.topology));
  }
  return inputs;
}

}  // namespace gputwin
