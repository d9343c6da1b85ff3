#include "gputwin/plan/sizing_goodput.hpp"

#include <algorithm>

#include "gputwin/catalog/gpu_systems.hpp"
#include "gputwin/sim/goodput.hpp"

namespace gputwin {

std::optional<SizingGoodput> goodput_of_run(const System& system, const std::string& accelerator, int gpus,
                                            double work_days, const FailureRates& rates,
                                            const std::string& profile_name, int seeds) {
  const FailureProfile* profile = rates.profile(profile_name);
  if (profile == nullptr || gpus <= 0 || system.accelerators <= 0) return std::nullopt;
  GoodputRequest request;
  request.gpus = gpus;
  request.work_hours = work_days * 24;
  request.shape.gpus_per_node = system.accelerators;
  request.shape.nodes_per_domain = systems_per_scale_up_domain(system);
  request.processes = failure_processes(*profile, request.shape);
  request.checkpoint_write_hours = rates.job_defaults.checkpoint_write_hours;
  request.restart_hours = rates.job_defaults.restart_hours;
  request.seeds = 1;
  const auto probe = simulate_goodput(request);  // the spares the job needs do not depend on the seeds
  if (!probe.ok()) return std::nullopt;
  request.spare_nodes = probe.value().spare_nodes_p99;
  request.seeds = seeds;
  const auto result = simulate_goodput(request);
  if (!result.ok()) return std::nullopt;
  const GoodputResult& r = result.value();
  return SizingGoodput{accelerator,
                       gpus,
                       work_days,
                       r.mttf_hours,
                       r.used_interval_hours * 60,
                       r.ettr.mean,
                       r.wall_hours.mean / 24,
                       r.spare_nodes};
}

TimeToTrain time_to_train_under_failures(const FailureRates& rates, const std::string& profile, int seeds) {
  return [&rates, profile, seeds](const System& system, int gpus, double work_days) -> std::optional<double> {
    const auto goodput = goodput_of_run(system, system.accelerator, gpus, work_days, rates, profile, seeds);
    if (!goodput) return std::nullopt;
    return goodput->wall_days;
  };
}

std::vector<SizingGoodput> goodput_of_sizing(const std::vector<SizingRow>& rows, const Catalog& catalog,
                                             const FailureRates& rates, const std::string& profile_name,
                                             int seeds) {
  std::vector<SizingGoodput> out;
  for (const SizingRow& row : rows) {
    if (row.gpus <= 0 || row.system.empty()) continue;
    const System* system = catalog.find<System>(row.system);
    if (system == nullptr) continue;
    auto goodput = goodput_of_run(*system, row.accelerator, row.gpus, row.days, rates, profile_name, seeds);
    if (goodput) out.push_back(std::move(*goodput));
  }
  return out;
}

}  // namespace gputwin
