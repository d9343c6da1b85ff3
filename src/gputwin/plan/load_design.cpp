#include "gputwin/plan/load_design.hpp"

#include <utility>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/training_inputs.hpp"
#include "gputwin/plan/typical_power.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

Result<Catalog> load_catalog(const CatalogSources& sources) {
  std::vector<std::string> dirs;
  if (sources.with_bundled) dirs.push_back(bundled_data_dir() + "/catalog");
  dirs.insert(dirs.end(), sources.extra_dirs.begin(), sources.extra_dirs.end());
  auto catalog = Catalog::load(dirs);
  if (!catalog.ok()) return catalog;
  const auto model = load_power_model(bundled_data_dir() + "/power/power-model.yaml");
  if (!model.ok()) return model.errors();
  Catalog filled = std::move(catalog).value();
  const auto done = fill_typical_power(filled, model.value());
  if (!done.ok()) return done.errors();
  return filled;
}

Result<DesignedSpec> load_design(const std::string& spec_path, const Catalog& catalog) {
  auto spec = load_cluster_spec(spec_path, catalog);
  if (!spec.ok()) return spec.errors();
  ClusterSpec sized = std::move(spec).value();
  std::optional<WorkloadFit> workload_fit;
  std::optional<Catalog> capped;  // the chosen GPU power cap of a spec planned within a power budget
  if (sized.workload) {
    const auto inputs = load_training_inputs();
    if (!inputs.ok()) return inputs.errors();
    const auto power = load_power_model(bundled_data_dir() + "/power/power-model.yaml");
    if (!power.ok()) return power.errors();
    const TrainingInputs& data = inputs.value();
    auto fit = fit_workload(sized, catalog,
                            {&data.presets, &data.collectives, &data.calibration, 131072, data.memory_reserve,
                             &data.recipes, &power.value()});
    if (!fit.ok()) return fit.errors();
    workload_fit = std::move(fit).value();
    if (workload_fit->budget && workload_fit->budget->cap) {
      auto done = result_of<Catalog>(
          [&] { return capped_catalog(catalog, power.value(), sized, *workload_fit->budget->cap); });
      if (!done.ok()) return done.errors();
      capped = std::move(done).value();
    }
  }
  auto cluster = design_cluster(sized, capped ? *capped : catalog);
  if (!cluster.ok()) return cluster.errors();
  return DesignedSpec{std::move(cluster).value(), std::move(workload_fit)};
}

}  // namespace gputwin
