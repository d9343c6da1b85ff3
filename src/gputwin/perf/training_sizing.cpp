#include "gputwin/perf/training_sizing.hpp"

#include <algorithm>

#include "gputwin/core/yaml_input.hpp"
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
  TrainingConfig base = request.base;
  base.memory_reserve = request.reserve_override.value_or(request.memory_reserve.per_gpu(gpu->memory));
  std::string hardware_error;
  const auto trial = [&](int nodes) {
    SizingTrial tried;
    tried.nodes = nodes;
    tried.gpus = nodes * system->accelerators;
    const auto hw = perf_hardware_of_system(catalog, system->info.id, nodes);
    if (!hw.ok()) {
      hardware_error = hw.error_text();
      return tried;
    }
    tried.estimate = search_training(hw.value(), collectives, calibration, *request.model, base, tried.gpus,
                                     fastest_only())
                         .best;
    if (tried.estimate) tried.days = training_days(request.tokens, *tried.estimate);
    return tried;
  };
  const auto search = smallest_node_count(request.max_gpus / system->accelerators, request.days, trial);
  if (!hardware_error.empty()) {
    row.note = hardware_error;
    return row;
  }
  if (search.answer) {
    row.estimate = search.answer->estimate;
    row.gpus = search.answer->gpus;
    row.days = search.answer->days;
    const auto price = request.gpu_hour_prices.find(accelerator);
    if (price != request.gpu_hour_prices.end())
      row.cost_usd = in_usd(price->second) * row.gpus * row.days * 24;
    return row;
  }
  const SizingTrial* largest_fitting = nullptr;
  for (const SizingTrial& tried : search.trials) {
    if (tried.estimate && (largest_fitting == nullptr || tried.gpus > largest_fitting->gpus)) {
      largest_fitting = &tried;
    }
  }
  row.note = largest_fitting == nullptr
                 ? "does not fit in memory on up to " + std::to_string(request.max_gpus) + " GPUs"
                 : "not within the days on " + std::to_string(largest_fitting->gpus) + " GPUs (" +
                       std::to_string(static_cast<int>(largest_fitting->days)) + " days there)";
  return row;
}

}  // namespace

int default_global_batch(int sequence) {
  constexpr int kLlama3FinalBatchTokens = 16 * 1024 * 1024;
  return std::max(1, kLlama3FinalBatchTokens / sequence);
}

double training_days(double tokens, const TrainingEstimate& estimate) {
  return tokens / estimate.tokens_per_second / kSecondsPerDay;
}

NodeCountSearch smallest_node_count(int max_nodes, double days,
                                    const std::function<SizingTrial(int nodes)>& trial) {
  NodeCountSearch search;
  const auto in_time = [&](int nodes) {
    search.trials.push_back(trial(nodes));
    return search.trials.back().in_time(days);
  };
  int too_few = 0;  // the largest count tried that is not in time
  int enough = 0;   // the smallest count tried that is
  for (int nodes = 1; nodes <= max_nodes; nodes *= 2) {
    if (in_time(nodes)) {
      enough = nodes;
      break;
    }
    too_few = nodes;
  }
  if (enough == 0) return search;
  search.unit_nodes = search.trials.back().unit_nodes;
  // Between the two: whole units, then `enough` itself (a power of two need not be a whole unit).
  std::vector<int> candidates;
  for (int nodes = (too_few / search.unit_nodes + 1) * search.unit_nodes; nodes < enough;
       nodes += search.unit_nodes) {
    candidates.push_back(nodes);
  }
  candidates.push_back(enough);
  int below = -1;  // index of the largest candidate known not in time (-1: too_few)
  int answer = static_cast<int>(candidates.size()) - 1;
  while (answer - below > 1) {
    const int middle = below + (answer - below) / 2;
    (in_time(candidates[middle]) ? answer : below) = middle;
  }
  for (const SizingTrial& tried : search.trials) {
    if (tried.nodes == candidates[answer]) search.answer = tried;
  }
  return search;
}

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

Result<std::map<std::string, Money>> load_gpu_hour_prices(const std::string& path, const Catalog& catalog) {
  return result_of<std::map<std::string, Money>>([&] {
    std::map<std::string, Money> prices;
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"gpu_hour", "source", "notes"});
    for (const auto& [id, price] : root.child("gpu_hour").entries()) {
      if (catalog.find<Accelerator>(id) == nullptr) price.fail("no accelerator '" + id + "' in the catalog");
      prices[id] = price.quantity<Money>();
    }
    return prices;
  });
}

}  // namespace gputwin
