#include "gputwin/perf/training_sizing.hpp"

#include "gputwin/perf/training_search.hpp"

namespace gputwin {
namespace {

constexpr double kSecondsPerDay = 86400;

SizingRow size_one(const Catalog& catalog, const CollectiveModel& collectives,
                   const TrainingCalibration& calibration, const SizingRequest& request,
                   const std::string& accelerator) {
  SizingRow row;
  row.accelerator = accelerator;
  const auto* gpu = catalog.find<Accelerator>(accelerator);
  if (gpu == nullptr) {
    row.note = "not in the catalog";
    return row;
  }
  const auto peak = gpu->dense_compute.find(request.base.precision);
  if (peak == gpu->dense_compute.end() || !peak->second) {
    row.note = "no dense " + request.base.precision + " rate in the catalog";
    return row;
  }
  const System* system = system_for_accelerator(catalog, accelerator);
  if (system == nullptr) {
    row.note = "no catalog system carries it";
    return row;
  }
  row.system = system->info.id;
  std::optional<TrainingEstimate> last;
  int last_gpus = 0;
  for (int nodes = 1; nodes * system->accelerators <= request.max_gpus; nodes *= 2) {
    const int gpus = nodes * system->accelerators;
    const auto hw = perf_hardware_of_system(catalog, system->info.id, nodes);
    if (!hw.ok()) {
      row.note = hw.error_text();
      return row;
    }
    const auto search =
        search_training(hw.value(), collectives, calibration, *request.model, request.base, gpus);
    if (!search.best) continue;
    last = search.best;
    last_gpus = gpus;
    const double days = request.tokens / search.best->tokens_per_second / kSecondsPerDay;
    if (days <= request.days) {
      row.estimate = search.best;
      row.gpus = gpus;
      row.days = days;
      const auto price = request.gpu_hour_prices.find(accelerator);
      if (price != request.gpu_hour_prices.end()) row.cost_usd = in_usd(price->second) * gpus * days * 24;
      return row;
    }
  }
  row.note =
      last ? "not within the days on " + std::to_string(last_gpus) + " GPUs (" +
                 std::to_string(static_cast<int>(request.tokens / last->tokens_per_second / kSecondsPerDay)) +
                 " days there)"
           : "does not fit in memory on up to " + std::to_string(request.max_gpus) + " GPUs";
  return row;
}

}  // namespace

const System* system_for_accelerator(const Catalog& catalog, const std::string& accelerator_id) {
  const System* first = nullptr;
  for (const auto& system : catalog.all<System>()) {
    if (system.accelerator != accelerator_id) continue;
    if (system.info.id.rfind("dgx-", 0) == 0) return &system;
    if (first == nullptr) first = &system;
  }
  return first;
}

std::vector<SizingRow> size_training(const Catalog& catalog, const CollectiveModel& collectives,
                                     const TrainingCalibration& calibration, const SizingRequest& request) {
  std::vector<SizingRow> rows;
  for (const auto& accelerator : request.accelerators) {
    rows.push_back(size_one(catalog, collectives, calibration, request, accelerator));
  }
  return rows;
}

}  // namespace gputwin
