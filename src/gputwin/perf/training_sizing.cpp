#include "gputwin/perf/training_sizing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

#include "gputwin/catalog/gpu_systems.hpp"
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
  // A recipe's GEMM precision reads the dense rate it runs at (mxfp8 on the fp8 rate).
  const GemmPrecision* gemm = calibration.gemm.precision(request.base.precision);
  const std::string rate = gemm != nullptr ? gemm->peak_key : request.base.precision;
  const auto peak = gpu->dense_compute.find(rate);
  if (peak == gpu->dense_compute.end() || !peak->second) {
    row.note = "no dense " + rate + " rate in the catalog";
    return row;
  }
  const System* system = system_for_accelerator(catalog, accelerator);
  if (system == nullptr) {
    // Superchips are sold only inside rack-scale systems (GB200/GB300 NVL72 compute trays).
    row.note = gpu->form_factor == "superchip"
                   ? "no catalog system carries it (a superchip: no NVL72 system in the catalog)"
                   : "no catalog system carries it";
    return row;
  }
  row.system = system->info.id;
  TrainingCalibration own_calibration = calibration;
  if (const GemmArchitecture* architecture = calibration.gemm.architecture_of(*gpu);
      architecture != nullptr && !architecture->peak_fraction) {
    const auto assumed = request.assumed_gemm_fractions.find(architecture->name);
    if (assumed == request.assumed_gemm_fractions.end()) {
      row.note = "no step time: " + architecture->name + " has no fitted GEMM fraction (--gemm-fraction " +
                 architecture->name + "=F assumes one)";
      return row;
    }
    own_calibration.gemm.set_peak_fraction(architecture->name, assumed->second);
    row.assumed_gemm_fraction = assumed->second;
  }
  TrainingConfig base = request.base;
  base.memory_reserve = request.reserve_override.value_or(request.memory_reserve.per_gpu(gpu->memory));
  base.fsdp_blocks = request.memory_reserve.fsdp_blocks;
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
    tried.estimate = search_training(hw.value(), collectives, own_calibration, *request.model, base,
                                     tried.gpus, fastest_only())
                         .best;
    if (tried.estimate) tried.days = training_days(request.tokens, *tried.estimate);
    count_failures(tried, *system, request.days, request.time_to_train);
    return tried;
  };
  const auto search = smallest_node_count(request.max_gpus / system->accelerators, request.days, trial);
  if (!hardware_error.empty()) {
    row.note = hardware_error;
    return row;
  }
  if (search.answer) {
    SizingTrial answer = *search.answer;
    // A scale-up domain that spans several systems (an NVL72's 18 trays) is bought whole: the answer is
    // rounded up to whole domains and timed there (more GPUs never take longer).
    if (scale_up_domain_spans_systems(*system)) {
      const int per_domain = systems_per_scale_up_domain(*system);
      const int whole = (answer.nodes + per_domain - 1) / per_domain * per_domain;
      if (whole != answer.nodes) {
        SizingTrial rounded = trial(whole);
        if (rounded.in_time(request.days)) answer = rounded;
      }
    }
    row.estimate = answer.estimate;
    row.gpus = answer.gpus;
    row.nodes = answer.nodes;
    row.days = answer.days;
    row.wall_days = answer.wall_days;
    row.failures_uncounted = answer.failures_uncounted;
    row.per_rack = systems_per_rack(catalog, request.rack_density, *system);
    row.racks = (row.nodes + row.per_rack.systems - 1) / row.per_rack.systems;
    row.power_kw = row.nodes * in_kilowatts(system->power_max);
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
                       std::to_string(static_cast<int>(largest_fitting->deadline_days())) + " days there" +
                       (largest_fitting->wall_days ? " with failures)" : ")");
  return row;
}

}  // namespace

int default_global_batch(int sequence) {
  constexpr int kLlama3FinalBatchTokens = 16 * 1024 * 1024;
  return std::max(1, kLlama3FinalBatchTokens / sequence);
}

void count_failures(SizingTrial& trial, const System& system, double limit,
                    const TimeToTrain& time_to_train) {
  trial.wall_days.reset();
  trial.failures_uncounted = false;
  if (!time_to_train || !trial.estimate || trial.days > limit) return;
  trial.wall_days = time_to_train(system, trial.gpus, trial.days);
  trial.failures_uncounted = !trial.wall_days;
}

double training_days(double tokens, const TrainingEstimate& estimate) {
  return tokens / estimate.tokens_per_second / kSecondsPerDay;
}

NodeCountSearch smallest_node_count(int max_nodes, double days,
                                    const std::function<SizingTrial(int nodes)>& trial) {
  NodeCountSearch search;
  std::map<int, std::size_t> tried_at;  // count -> its trial (a trial's nodes need not be the count)
  const auto in_time = [&](int count) {
    tried_at[count] = search.trials.size();
    search.trials.push_back(trial(count));
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
  search.answer = search.trials[tried_at.at(candidates[answer])];
  return search;
}

const System* system_for_accelerator(const Catalog& catalog, const std::string& accelerator_id) {
  const System* chosen = nullptr;
  for (const auto& system : catalog.all<System>()) {
    if (system.accelerator != accelerator_id) continue;
    if (system.info.id.rfind("dgx-", 0) == 0) return &system;
    if (chosen == nullptr || system.scale_up_domain > chosen->scale_up_domain) chosen = &system;
  }
  return chosen;
}

SystemsPerRack systems_per_rack(const Catalog& catalog, const RackDensity& density, const System& system) {
  if (const auto published = density.published_per_rack.find(system.info.id);
      published != density.published_per_rack.end()) {
    return {published->second, fmt::format("{} per rack (published design)", published->second)};
  }
  if (scale_up_domain_spans_systems(system)) {
    const int trays = systems_per_scale_up_domain(system);
    return {trays, fmt::format("{} per rack (one {}-GPU scale-up domain a rack)", trays,
                               gpus_per_scale_up_domain(system))};
  }
  int systems = std::numeric_limits<int>::max();
  std::vector<std::string> limits;
  if (const auto* cooling = catalog.find<Cooling>(density.default_cooling);
      cooling != nullptr && in_kilowatts(system.power_max) > 0) {
    systems =
        static_cast<int>(std::floor(in_kilowatts(cooling->max_rack_power) / in_kilowatts(system.power_max)));
    limits.push_back(fmt::format("{} {:g} kW a rack / {:g} kW", cooling->info.id,
                                 in_kilowatts(cooling->max_rack_power), in_kilowatts(system.power_max)));
  }
  if (const auto* facility = catalog.find<FacilityDefaults>(density.default_facility);
      facility != nullptr && in_rack_units(system.rack_units) > 0) {
    const int by_space =
        static_cast<int>(std::floor(in_rack_units(facility->rack_units) / in_rack_units(system.rack_units)));
    limits.push_back(fmt::format("{:g} U / {:g} U", in_rack_units(facility->rack_units),
                                 in_rack_units(system.rack_units)));
    systems = std::min(systems, by_space);
  }
  if (limits.empty()) return {1, "1 per rack (no rack limits in the catalog)"};
  systems = std::max(1, systems);
  std::string rule = fmt::format("{} per rack (", systems);
  for (std::size_t i = 0; i < limits.size(); ++i) rule += (i == 0 ? "" : ", ") + limits[i];
  return {systems, rule + ")"};
}

Result<RackDensity> load_rack_density(const std::string& path, const Catalog& catalog) {
  return result_of<RackDensity>([&] {
    RackDensity density;
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"default_cooling", "default_facility", "systems"});
    const YamlField cooling = root.child("default_cooling");
    density.default_cooling = cooling.text();
    if (catalog.find<Cooling>(density.default_cooling) == nullptr)
      cooling.fail("no cooling '" + density.default_cooling + "' in the catalog");
    const YamlField facility = root.child("default_facility");
    density.default_facility = facility.text();
    if (catalog.find<FacilityDefaults>(density.default_facility) == nullptr)
      facility.fail("no facility_defaults '" + density.default_facility + "' in the catalog");
    for (const YamlField& row : root.child("systems").items()) {
      row.expect_keys({"system", "per_rack", "source"});
      const YamlField id = row.child("system");
      const std::string system = id.text();
      if (catalog.find<System>(system) == nullptr) id.fail("no system '" + system + "' in the catalog");
      if (density.published_per_rack.count(system) > 0) id.fail("system '" + system + "' listed twice");
      density.published_per_rack[system] = static_cast<int>(row.child("per_rack").positive_integer());
      density.sources[system] = row.child("source").text_or_list();
    }
    return density;
  });
}

std::vector<SizingRow> size_training(const Catalog& catalog, const CollectiveModel& collectives,
                                     const TrainingCalibration& calibration, const SizingRequest& request) {
  const std::size_t count = request.accelerators.size();
  std::vector<SizingRow> rows(count);
  std::vector<std::exception_ptr> failures(count);
  std::atomic<std::size_t> next{0};
  // Each accelerator is sized on its own into its own slot, so the rows do not depend on the threads.
  const auto work = [&] {
    for (std::size_t k = next++; k < count; k = next++) {
      try {
        rows[k] = size_one(catalog, collectives, calibration, request, request.accelerators[k]);
      } catch (...) {
        failures[k] = std::current_exception();
      }
    }
  };
  // One thread per accelerator up to the machine's concurrency; request.time_to_train is then called from
  // several threads at once (the goodput model keeps no shared state).
  const auto wanted = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t threads = std::min<std::size_t>(count, wanted);
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);  // the first in the request's order, as one thread would
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
