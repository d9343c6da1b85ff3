#include "gputwin/serve/capacity_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "gputwin/catalog/gpu_systems.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/serve/disaggregated.hpp"

namespace gputwin {
namespace {

// The target that binds most: the largest ratio of achieved to targeted latency, at the nearest percentile
// the summary holds at or below the targets' (p99, p90 or p50; named in the text, so a p95 target reads
// "p90").
std::string binding_target(const ServeSummary& s, const LatencyTargets& t) {
  std::vector<std::pair<double, std::string>> over;  // ratio of the achieved percentile to the target
  const std::string name = t.percentile >= 0.99 ? "p99" : t.percentile >= 0.9 ? "p90" : "p50";
  const auto at = [&](const LatencyStats& stats) {
    return t.percentile >= 0.99 ? stats.p99 : t.percentile >= 0.9 ? stats.p90 : stats.p50;
  };
  if (t.ttft_s)
    over.push_back({at(s.ttft_s) / *t.ttft_s, fmt::format("TTFT {} {:.0f} ms against {:.0f} ms", name,
                                                          at(s.ttft_s) * 1e3, *t.ttft_s * 1e3)});
  if (t.tpot_s)
    over.push_back({at(s.tpot_s) / *t.tpot_s, fmt::format("TPOT {} {:.1f} ms against {:.1f} ms", name,
                                                          at(s.tpot_s) * 1e3, *t.tpot_s * 1e3)});
  if (t.e2e_s)
    over.push_back({at(s.e2e_s) / *t.e2e_s, fmt::format("E2E {} {:.0f} ms against {:.0f} ms", name,
                                                        at(s.e2e_s) * 1e3, *t.e2e_s * 1e3)});
  if (over.empty()) return "";
  const auto worst = std::max_element(over.begin(), over.end());
  return worst->second;
}

// The fewest replicas (or disaggregated instances) meeting the targets, by doubling then bisection on the
// count, from `first` (1; 2 for a disaggregated deployment, one instance per pool). `run` simulates a count.
class ReplicaSearch {
 public:
  ReplicaSearch(std::function<ServeSummary(int)> run, int first) : run_(std::move(run)), first_(first) {}

  // Fewest up to `cap` that meet the targets; empty when none does (the last tried in `largest`).
  std::optional<std::pair<int, ServeSummary>> fewest(int cap, ServeSummary& largest) {
    int low = first_ - 1;  // known not to meet (or below the smallest count)
    int high = first_;
    ServeSummary at_high = run_(high);
    while (!at_high.meets_targets) {
      largest = at_high;
      if (high >= cap) return std::nullopt;
      low = high;
      high = std::min(cap, high * 2);
      at_high = run_(high);
    }
    return bisect(low, high, std::move(at_high));
  }

  // Fewer than `replicas`, which meet: empty when replicas - 1 misses (one simulation).
  std::optional<std::pair<int, ServeSummary>> fewer_than(int replicas) {
    if (replicas <= first_) return std::nullopt;
    ServeSummary at = run_(replicas - 1);
    if (!at.meets_targets) return std::nullopt;
    return bisect(first_ - 1, replicas - 1, std::move(at));
  }

 private:
  // `low` misses (or is below the smallest count), `high` meets: the fewest between.
  std::pair<int, ServeSummary> bisect(int low, int high, ServeSummary at_high) {
    while (high - low > 1) {
      const int mid = (low + high) / 2;
      ServeSummary at_mid = run_(mid);
      if (at_mid.meets_targets) {
        high = mid;
        at_high = std::move(at_mid);
      } else {
        low = mid;
      }
    }
    return {high, std::move(at_high)};
  }

  std::function<ServeSummary(int)> run_;
  int first_ = 1;
};

// One aggregated deployment of `replicas` replicas. A PP replica runs pp batches in flight (serving.hpp's
// pipelined). A data-parallel attention group is an engine core of its own in vLLM, so the limits apply per
// group: ep times them for the replica.
ServeSummary run_replicas(const DeploymentCandidate& candidate, const IterationModel& model,
                          const std::vector<ServeRequest>& requests, const LatencyTargets& targets,
                          const EngineLimits& limits, double engine_efficiency, int concurrency, int replicas,
                          bool give_up_when_missed) {
  ServingSetup setup;
  setup.replicas = replicas;
  setup.gpus_per_replica = candidate.tp * candidate.ep;
  setup.limits = limits;
  setup.limits.max_batched_tokens *= candidate.ep;
  setup.limits.max_sequences *= candidate.ep;
  setup.limits.kv_capacity_tokens = model.kv_capacity_tokens();
  setup.targets = targets;
  setup.options.sample_every_s = 60;
  setup.options.concurrency = concurrency;
  setup.engine_efficiency = engine_efficiency;
  setup.give_up_when_missed = give_up_when_missed;
  return simulate_serving(model, requests, pipelined(setup, candidate.pp)).summary;
}

// A disaggregated deployment of a budget of instances, the split searched (searched_pool_split); the splits
// found by budget, for the row.
class DisaggregatedBudgets {
 public:
  DisaggregatedBudgets(const CapacityInputs& inputs, const System& system,
                       const DeploymentCandidate& candidate, const IterationModel& prefill_model,
                       const IterationModel& decode_model, const std::vector<ServeRequest>& requests,
                       const LatencyTargets& targets, const EngineLimits& limits, int& simulations)
      : inputs_(inputs),
        system_(system),
        candidate_(candidate),
        prefill_model_(prefill_model),
        decode_model_(decode_model),
        requests_(requests),
        simulations_(simulations) {
    setup_.prefill = {1, candidate.tp, limits, candidate.ep, candidate.pp};
    setup_.decode = {1, candidate.decode_pool_tp(), limits, candidate.ep, candidate.pp};
    setup_.targets = targets;
    setup_.sample_every_s = 60;
    setup_.engine_efficiency = inputs.engine_efficiency;
    setup_.concurrency = inputs.concurrency;
  }

  ServeSummary run(int instances) {
    const auto transfer = transfer_for(instances);
    if (!transfer.ok()) throw std::runtime_error(transfer.errors().front().message);
    const PoolSplit split =
        searched_pool_split(prefill_model_, decode_model_, transfer.value(), requests_, setup_, instances);
    simulations_ += static_cast<int>(split.trials.size());
    const PoolSplitTrial& best = split.trials[split.best];
    splits_[instances] = {best.prefill_instances, best.decode_instances};
    return best.summary;
  }

  [[nodiscard]] std::pair<int, int> split_of(int instances) const { return splits_.at(instances); }

 private:
  // The hardware the transfers of `instances` instances cross: as many nodes of the system as the
  // fullest placement of any split fills, at least two (so a transfer between domains has the NICs' path).
  Result<KvTransferModel> transfer_for(int instances) const {
    const int domain = gpus_per_scale_up_domain(system_);
    int domains = 1;
    for (int p = 1; p < instances; ++p) {
      PoolSetup prefill = setup_.prefill, decode = setup_.decode;
      prefill.instances = p;
      decode.instances = instances - p;
      const PoolPlacement placement = place_pools(domain, prefill, decode);
      domains =
          std::max(domains, 1 + std::max(placement.prefill_domain.back(), placement.decode_domain.back()));
    }
    auto hardware = perf_hardware_of_system(inputs_.catalog, system_.info.id,
                                            std::max(2, domains * systems_per_scale_up_domain(system_)));
    if (!hardware.ok()) return hardware.errors();
    return KvTransferModel(std::move(hardware).value(), inputs_.collectives, inputs_.model,
                           inputs_.kv_bytes_per_element, candidate_.tp, candidate_.decode_pool_tp(),
                           candidate_.pp, candidate_.pp);
  }

  const CapacityInputs& inputs_;
  const System& system_;
  const DeploymentCandidate& candidate_;
  const IterationModel& prefill_model_;
  const IterationModel& decode_model_;
  const std::vector<ServeRequest>& requests_;
  DisaggregatedSetup setup_;
  int& simulations_;
  std::map<int, std::pair<int, int>> splits_;
};

void price(CapacityRow& row, const std::map<std::string, Money>& prices) {
  const auto found = prices.find(row.accelerator);
  if (found == prices.end() || row.bought.gpus == 0) return;
  row.cost_per_hour = Money::from_base(found->second.base() * row.bought.gpus);
  const double tokens_per_hour = row.summary.output_tokens_per_s * 3600;
  if (tokens_per_hour > 0) row.cost_per_million_tokens = row.cost_per_hour->base() / tokens_per_hour * 1e6;
}

// The instances of a meeting row, in placement order (a disaggregated row's prefill pool first).
std::vector<int> instance_sizes(const CapacityRow& row) {
  const DeploymentCandidate& c = row.candidate;
  if (!c.disaggregated) return std::vector<int>(static_cast<std::size_t>(row.replicas), c.gpus());
  std::vector<int> sizes(static_cast<std::size_t>(row.prefill_instances), c.gpus());
  sizes.insert(sizes.end(), static_cast<std::size_t>(row.decode_instances), c.decode_instance_gpus());
  return sizes;
}

void buy(CapacityRow& row, const PurchaseUnit& unit) {
  row.unit = unit.by_rack ? (unit.rack_system.empty() ? std::string("rack") : "rack " + unit.rack_system)
                          : std::string("node");
  if (row.meets) row.bought = purchase_for(unit, instance_sizes(row));
}

InferenceSetup inference_setup(const CapacityInputs& inputs, const DeploymentCandidate& candidate) {
  InferenceSetup setup{
      inputs.model,        candidate.tp,         inputs.precision, inputs.kv_bytes_per_element,
      inputs.input_tokens, inputs.output_tokens, candidate.ep};
  setup.pp = candidate.pp;
  return setup;
}

Result<PerfHardware> hardware_for(const CapacityInputs& inputs, const System& system,
                                  const DeploymentCandidate& candidate) {
  const int nodes = (candidate.widest_instance_gpus() + system.accelerators - 1) / system.accelerators;
  return perf_hardware_of_system(inputs.catalog, system.info.id, nodes);
}

// Whether the candidate's weights (and one sequence) fit its GPUs; false on any setup error.
bool weights_fit(const CapacityInputs& inputs, const System& system, const DeploymentCandidate& candidate) {
  const auto hardware = hardware_for(inputs, system, candidate);
  if (!hardware.ok()) return false;
  const auto estimate = estimate_inference(hardware.value(), inputs.collectives, inputs.constants,
                                           inference_setup(inputs, candidate), 1);
  return estimate.ok() && estimate.value().weights_fit;
}

std::vector<int> tp_sizes(const TransformerModel& model, int domain) {
  std::vector<int> sizes;
  for (int tp = 1; tp <= domain; tp *= 2)
    if (model.heads % tp == 0) sizes.push_back(tp);
  return sizes;
}

// Layouts of `domains` scale-up domains: dense TP within one (domains 1), TP x PP over several; for MoE
// models data-parallel attention groups with the experts spread over the whole expert-parallel group.
std::vector<DeploymentCandidate> layouts(const CapacityInputs& inputs, const std::string& system,
                                         const std::vector<int>& tps, int domain, int domains) {
  std::vector<DeploymentCandidate> out;
  if (domains == 1)
    for (const int tp : tps) out.push_back({system, tp, 1, 1});
  else
    out.push_back({system, tps.back(), 1, domains});
  if (!inputs.model.is_moe()) return out;
  const int experts = inputs.model.moe.experts;
  for (const int tp : tps) {
    for (int dp = 2; tp * dp <= domain * domains; dp *= 2) {
      if (domains > 1 && tp * dp <= domain * (domains - 1)) continue;  // fits fewer domains: tried already
      if (experts % (tp * dp) == 0) out.push_back({system, tp, dp, 1});
    }
  }
  return out;
}

}  // namespace

PurchaseUnit purchase_unit_of(const Catalog& catalog, const System& system,
                              const std::optional<RackDensity>& density) {
  PurchaseUnit unit;
  unit.gpus_per_node = std::max(1, system.accelerators);
  unit.domain_gpus = gpus_per_scale_up_domain(system);
  unit.by_rack = scale_up_domain_spans_systems(system);
  if (unit.by_rack) {
    if (const RackSystem* rack = rack_system_holding(catalog, system); rack != nullptr)
      unit.rack_system = rack->info.id;
    unit.nodes_per_rack = systems_per_scale_up_domain(system);
    unit.rack_rule = fmt::format("one {}-GPU scale-up domain a rack", unit.domain_gpus);
  } else if (density) {
    const SystemsPerRack per_rack = systems_per_rack(catalog, *density, system);
    unit.nodes_per_rack = per_rack.systems;
    unit.rack_rule = per_rack.rule;
  }
  return unit;
}

Purchase purchase_for(const PurchaseUnit& unit, const std::vector<int>& instance_gpus) {
  const int domain = unit.domain_gpus;
  int domains = 0;  // domains opened so far
  int room = 0;     // GPUs left in the last one
  for (const int gpus : instance_gpus) {
    if (gpus > domain) {  // a pipeline over whole domains of its own
      domains += (gpus + domain - 1) / domain;
      room = 0;
    } else if (gpus > room) {
      ++domains;
      room = domain - gpus;
    } else {
      room -= gpus;
    }
  }
  Purchase bought;
  if (unit.by_rack) {
    bought.racks = domains;
    bought.nodes = domains * unit.nodes_per_rack;
    bought.gpus = domains * domain;
  } else {
    bought.nodes = domains * (domain / unit.gpus_per_node);
    bought.gpus = bought.nodes * unit.gpus_per_node;
    if (unit.nodes_per_rack > 0)
      bought.racks = (bought.nodes + unit.nodes_per_rack - 1) / unit.nodes_per_rack;
  }
  return bought;
}

std::string layout_text(const DeploymentCandidate& candidate) {
  std::string text = candidate.decode_pool_tp() == candidate.tp
                         ? fmt::format("TP {}", candidate.tp)
                         : fmt::format("TP {}/{}", candidate.tp, candidate.decode_pool_tp());
  if (candidate.ep > 1) text += fmt::format(" x DP {} (EP {})", candidate.ep, candidate.ep * candidate.tp);
  if (candidate.pp > 1) text += fmt::format(" x PP {}", candidate.pp);
  if (candidate.disaggregated) text += ", P/D";
  return text;
}

std::string row_layout_text(const CapacityRow& row) {
  if (!row.candidate.disaggregated || row.prefill_instances == 0) return layout_text(row.candidate);
  DeploymentCandidate instance = row.candidate;
  instance.disaggregated = false;
  return fmt::format("{}, P:D {}:{}", layout_text(instance), row.prefill_instances, row.decode_instances);
}

std::vector<DeploymentCandidate> candidates_for(const CapacityInputs& inputs, const std::string& system) {
  const System* found = inputs.catalog.find<System>(system);
  if (found == nullptr || found->accelerators == 0) return {};
  const int domain = gpus_per_scale_up_domain(*found);
  const std::vector<int> tps = tp_sizes(inputs.model, domain);
  if (tps.empty()) return {};
  std::vector<DeploymentCandidate> candidates = layouts(inputs, system, tps, domain, 1);
  const auto fits = [&](const DeploymentCandidate& c) { return weights_fit(inputs, *found, c); };
  // More than one domain only for weights no layout of one domain holds; the fewest domains that do (or, when
  // none up to max_domains does, the largest tried, refused with the memory it would need).
  for (int domains = 2; domains <= inputs.max_domains; ++domains) {
    if (std::any_of(candidates.begin(), candidates.end(), fits)) break;
    candidates = layouts(inputs, system, tps, domain, domains);
  }
  if (!inputs.disaggregation) return candidates;
  const std::size_t aggregated = candidates.size();
  std::vector<int> pool_tps;  // TP layouts whose instance fits a domain and holds the weights
  for (std::size_t k = 0; k < aggregated; ++k) {
    if (candidates[k].gpus() > domain) continue;  // an instance across domains is not placed
    DeploymentCandidate disaggregated = candidates[k];
    disaggregated.disaggregated = true;
    candidates.push_back(disaggregated);
    if (candidates[k].ep == 1 && candidates[k].pp == 1 && fits(candidates[k]))
      pool_tps.push_back(candidates[k].tp);
  }
  // Each pool's TP chosen on its own: a prefill pool of wide instances (TTFT) feeding a decode pool of
  // narrow ones (throughput per GPU), or the reverse.
  for (const int prefill_tp : pool_tps)
    for (const int decode_tp : pool_tps)
      if (prefill_tp != decode_tp) candidates.push_back({system, prefill_tp, 1, 1, true, decode_tp});
  return candidates;
}

std::vector<BatchLimits> searched_batch_limits(const CapacityInputs& inputs, const Accelerator& gpu) {
  if (!inputs.batch_limits.empty()) return inputs.batch_limits;
  const EngineLimits own = engine_limits_for(inputs.engine, gpu, 0);
  std::vector<BatchLimits> limits{{own.max_batched_tokens, own.max_sequences}};
  const BatchLimits large{inputs.engine.large_max_batched_tokens, inputs.engine.large_max_sequences};
  const BatchLimits small{inputs.engine.small_max_batched_tokens, inputs.engine.small_max_sequences};
  limits.push_back(limits.front() == large ? small : large);
  if (limits.back() == limits.front()) limits.pop_back();
  return limits;
}

CapacityRow search_candidate(const CapacityInputs& inputs, const DeploymentCandidate& candidate,
                             const std::vector<ServeRequest>& requests, const LatencyTargets& targets,
                             int max_gpus, int& simulations) {
  CapacityRow row;
  row.candidate = candidate;
  const System* system = inputs.catalog.find<System>(candidate.system);
  if (system == nullptr || system->accelerators == 0) {
    row.why = "not a GPU system of the catalog";
    return row;
  }
  row.accelerator = system->accelerator;
  const auto hardware = hardware_for(inputs, *system, candidate);
  if (!hardware.ok()) {
    row.why = hardware.errors().front().message;
    return row;
  }
  const InferenceSetup setup = inference_setup(inputs, candidate);
  const auto estimate = estimate_inference(hardware.value(), inputs.collectives, inputs.constants, setup, 1);
  if (estimate.ok() && !estimate.value().weights_fit)
    row.memory_needed_bytes =
        hardware.value().accelerator.memory.base() + estimate.value().missing_bytes_per_gpu;
  auto model = IterationModel::make(hardware.value(), inputs.collectives, inputs.constants, setup);
  if (!model.ok()) {
    row.why = model.errors().front().message;
    return row;
  }
  std::optional<IterationModel> decode_model;  // a decode pool of its own TP
  if (candidate.decode_pool_tp() != candidate.tp) {
    InferenceSetup decode_setup = setup;
    decode_setup.tp = candidate.decode_pool_tp();
    auto made = IterationModel::make(hardware.value(), inputs.collectives, inputs.constants, decode_setup);
    if (!made.ok()) {
      row.why = made.errors().front().message;
      return row;
    }
    decode_model = std::move(made).value();
  }
  const int widest = candidate.widest_instance_gpus();
  const int cap = max_gpus / widest;
  const int first = candidate.disaggregated ? 2 : 1;
  if (candidate.disaggregated) {
    const int domain = gpus_per_scale_up_domain(*system);
    if (widest > domain) {
      row.why = fmt::format("an instance of {} GPUs does not fit a scale-up domain of {}", widest, domain);
      return row;
    }
  }
  if (cap < first) {
    row.why = candidate.disaggregated
                  ? fmt::format("needs {} GPUs (one instance per pool), more than --max-gpus {}",
                                candidate.gpus() + candidate.decode_instance_gpus(), max_gpus)
                  : fmt::format("needs {} GPUs per replica, more than --max-gpus {}", widest, max_gpus);
    return row;
  }
  ServeSummary largest;
  int largest_count = 0;
  for (const BatchLimits& limits : searched_batch_limits(inputs, hardware.value().accelerator)) {
    EngineLimits engine = engine_limits_for(inputs.engine, hardware.value().accelerator, 0);
    engine.max_batched_tokens = limits.max_batched_tokens;
    engine.max_sequences = limits.max_sequences;
    DisaggregatedBudgets budgets(inputs, *system, candidate, model.value(),
                                 decode_model ? *decode_model : model.value(), requests, targets, engine,
                                 simulations);
    std::function<ServeSummary(int)> run = [&](int count) {
      largest_count = std::max(largest_count, count);
      if (candidate.disaggregated) return budgets.run(count);
      ++simulations;
      // A run that misses is only needed whole at the cap (its summary says what binds); below it the search
      // asks only whether it meets, so it may stop as soon as it cannot (the rows are the same).
      return run_replicas(candidate, model.value(), requests, targets, engine, inputs.engine_efficiency,
                          inputs.concurrency, count, count < cap);
    };
    ReplicaSearch search(run, first);
    auto found = row.meets ? search.fewer_than(row.replicas) : search.fewest(cap, largest);
    if (!found) {
      if (!row.meets && row.summary.requests == 0) {
        row.summary = largest;
        row.limits = limits;
        if (candidate.disaggregated)
          std::tie(row.prefill_instances, row.decode_instances) = budgets.split_of(largest_count);
      }
      continue;
    }
    row.replicas = found->first;
    row.gpus = found->first * candidate.gpus();
    row.meets = true;
    row.limits = limits;
    row.summary = std::move(found->second);
    if (candidate.disaggregated) {
      std::tie(row.prefill_instances, row.decode_instances) = budgets.split_of(found->first);
      row.gpus =
          row.prefill_instances * candidate.gpus() + row.decode_instances * candidate.decode_instance_gpus();
    }
  }
  if (!row.meets)
    row.why = fmt::format("misses the targets even on {} GPUs: {}", cap * widest,
                          binding_target(row.summary, targets));
  buy(row, purchase_unit_of(inputs.catalog, *system, inputs.rack_density));
  price(row, inputs.gpu_hour_prices);
  return row;
}

CapacitySearch rank_capacity_rows(std::vector<CapacityRow> rows, int simulations) {
  CapacitySearch search;
  search.rows = std::move(rows);
  search.simulations = simulations;
  const bool all_priced = std::all_of(search.rows.begin(), search.rows.end(), [](const CapacityRow& r) {
    return !r.meets || r.cost_per_hour.has_value();
  });
  std::stable_sort(search.rows.begin(), search.rows.end(), [&](const CapacityRow& a, const CapacityRow& b) {
    if (a.meets != b.meets) return a.meets;
    if (!a.meets) return false;
    if (all_priced && a.cost_per_hour->base() != b.cost_per_hour->base())
      return a.cost_per_hour->base() < b.cost_per_hour->base();
    if (a.bought.gpus != b.bought.gpus) return a.bought.gpus < b.bought.gpus;
    return a.gpus < b.gpus;
  });
  if (!search.rows.empty() && search.rows.front().meets) {
    const CapacityRow& best = search.rows.front();
    for (std::size_t k = 1; k < search.rows.size(); ++k) {
      CapacityRow& row = search.rows[k];
      if (!row.meets) continue;
      const double dearer = all_priced ? row.cost_per_hour->base() - best.cost_per_hour->base() : 0;
      const std::string same = all_priced ? "costs as much" : "buys as many GPUs";
      if (dearer != 0)
        row.why = fmt::format("costs {:.2f}/h more", dearer);
      else if (!all_priced && row.bought.gpus != best.bought.gpus)
        row.why = fmt::format("buys {} GPUs more", row.bought.gpus - best.bought.gpus);
      else if (row.gpus != best.gpus)
        row.why = fmt::format("{}, uses {} GPUs more", same, row.gpus - best.gpus);
      else
        row.why = same + " on as many GPUs (ranked after it in candidate order)";
    }
  }
  // Every candidate refused for memory: the least memory per GPU any of them would need.
  const auto short_of_memory = [](const CapacityRow& r) { return r.memory_needed_bytes > 0; };
  if (!search.rows.empty() && std::all_of(search.rows.begin(), search.rows.end(), short_of_memory)) {
    const auto least = std::min_element(search.rows.begin(), search.rows.end(),
                                        [](const CapacityRow& a, const CapacityRow& b) {
                                          return a.memory_needed_bytes < b.memory_needed_bytes;
                                        });
    search.fits_nowhere = fmt::format(
        "the weights fit on none of these deployments: the least memory that holds them is {:.0f} GB "
        "per GPU ({} on {}, with room for one sequence)",
        std::ceil(least->memory_needed_bytes / 1e9), layout_text(least->candidate), least->candidate.system);
  }
  return search;
}

CapacitySearch search_capacity(const CapacityInputs& inputs,
                               const std::vector<DeploymentCandidate>& candidates,
                               const std::vector<ServeRequest>& requests, const LatencyTargets& targets,
                               int max_gpus, int threads) {
  std::vector<CapacityRow> rows(candidates.size());
  std::vector<int> simulations(candidates.size(), 0);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t k = next++; k < candidates.size(); k = next++) {
      try {
        rows[k] = search_candidate(inputs, candidates[k], requests, targets, max_gpus, simulations[k]);
      } catch (const std::exception& error) {  // one candidate's failure must not end the others
        rows[k].candidate = candidates[k];
        rows[k].why = error.what();
      }
    }
  };
  const auto count = static_cast<std::size_t>(std::max(1, threads));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < std::min(count, candidates.size()); ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  int total = 0;
  for (const int n : simulations) total += n;
  return rank_capacity_rows(std::move(rows), total);
}

}  // namespace gputwin
