#include "gputwin/validate/design_inputs.hpp"

#include <stdexcept>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/validate/designed_fleet.hpp"
#include "gputwin/validate/nccl_busbw.hpp"

namespace gputwin::validate {
namespace {

IntendedMig intended_mig_on(const Accelerator& gpu, const Catalog& catalog, const std::string& layout) {
  const MigProfileSet* set = catalog.find<MigProfileSet>(gpu.mig_profile_set);
  if (set == nullptr)
    throw std::invalid_argument("--mig-layout: the cluster's GPU (" + gpu.info.id +
                                ") has no MIG profiles in the catalog");
  try {
    return intended_mig(layout, *set);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(std::string("--mig-layout: ") + error.what());
  }
}

}  // namespace

Result<CheckOptions> design_check_options(const std::string& spec, const Cluster& cluster,
                                          const Catalog& catalog, const std::string& mig_layout) {
  auto hardware = perf_hardware(cluster, catalog);
  auto model = load_collective_model(bundled_data_dir() + "/perf/nccl-cost-model.yaml");
  const auto names = load_gpu_product_names(bundled_data_dir() + "/validate/gpu-names.yaml");
  const auto pcie_rates = load_pcie_lane_rates(bundled_data_dir() + "/validate/pcie-links.yaml");
  InputErrors errors;
  for (const InputErrors* each :
       {hardware.ok() ? nullptr : &hardware.errors(), model.ok() ? nullptr : &model.errors(),
        names.ok() ? nullptr : &names.errors(), pcie_rates.ok() ? nullptr : &pcie_rates.errors()}) {
    if (each != nullptr) errors.insert(errors.end(), each->begin(), each->end());
  }
  if (!errors.empty()) return errors;
  CheckOptions options;
  options.design = designed_fleet(spec, cluster, catalog, names.value(), pcie_rates.value());
  if (!mig_layout.empty()) options.mig = intended_mig_on(hardware.value().accelerator, catalog, mig_layout);
  options.predict_busbw = design_busbw_predictor(std::move(hardware).value(), std::move(model).value());
  return options;
}

}  // namespace gputwin::validate
