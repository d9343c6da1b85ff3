#include "gputwin/plan/sizing_goodput.hpp"

#include <algorithm>

#include "gputwin/sim/goodput.hpp"

namespace gputwin {

std::vector<SizingGoodput> goodput_of_sizing(const std::vector<SizingRow>& rows, const Catalog& catalog,
                                             const FailureRates& rates, const std::string& profile_name,
                                             int seeds) {
  std::vector<SizingGoodput> out;
  const FailureProfile* profile = rates.profile(profile_name);
  if (profile == nullptr) return out;
  for (const SizingRow& row : rows) {
    if (row.gpus <= 0 || row.system.empty()) continue;
    const System* system = catalog.find<System>(row.system);
    if (system == nullptr || system->accelerators == 0) continue;
    GoodputRequest request;
    request.gpus = row.gpus;
    request.work_hours = row.days * 24;
    request.shape.gpus_per_node = system->accelerators;
    request.shape.nodes_per_domain = std::max(1, system->scale_up_domain / system->accelerators);
    request.processes = failure_processes(*profile, request.shape);
    request.checkpoint_write_hours = rates.job_defaults.checkpoint_write_hours;
    request.restart_hours = rates.job_defaults.restart_hours;
    request.seeds = 1;
    const auto probe = simulate_goodput(request);  // the spares the job needs do not depend on the seeds
    if (!probe.ok()) continue;
    request.spare_nodes = probe.value().spare_nodes_p99;
    request.seeds = seeds;
    const auto result = simulate_goodput(request);
    if (!result.ok()) continue;
    const GoodputResult& r = result.value();
    out.push_back({row.accelerator, row.gpus, row.days, r.mttf_hours, r.used_interval_hours * 60, r.ettr.mean,
                   r.wall_hours.mean / 24, r.spare_nodes});
  }
  return out;
}

}  // namespace gputwin
