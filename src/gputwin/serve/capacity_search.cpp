#include "gputwin/serve/capacity_search.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gputwin/perf/hardware.hpp"

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

class CandidateSearch {
 public:
  CandidateSearch(const CapacityInputs& inputs, const IterationModel& model, const Accelerator& gpu,
                  const std::vector<ServeRequest>& requests, const LatencyTargets& targets,
                  int gpus_per_replica, int& simulations)
      : inputs_(inputs),
        model_(model),
        gpu_(gpu),
        requests_(requests),
        targets_(targets),
        per_replica_(gpus_per_replica),
        simulations_(simulations) {}

  ServeSummary run(int replicas) {
    ServingSetup setup;
    setup.replicas = replicas;
    setup.gpus_per_replica = per_replica_;
    setup.limits = engine_limits_for(inputs_.engine, gpu_, model_.kv_capacity_tokens());
    setup.targets = targets_;
    setup.options.sample_every_s = 60;
    ++simulations_;
    return simulate_serving(model_, requests_, setup).summary;
  }

  // Fewest replicas that meet the targets within max_gpus; empty when none does (last tried in `largest`).
  std::optional<std::pair<int, ServeSummary>> fewest(int max_gpus, ServeSummary& largest) {
    const int cap = std::max(1, max_gpus / per_replica_);
    int low = 0;  // known not to meet
    int high = 1;
    ServeSummary at_high = run(high);
    while (!at_high.meets_targets) {
      largest = at_high;
      if (high >= cap) return std::nullopt;
      low = high;
      high = std::min(cap, high * 2);
      at_high = run(high);
    }
    while (high - low > 1) {
      const int mid = (low + high) / 2;
      ServeSummary at_mid = run(mid);
      if (at_mid.meets_targets) {
        high = mid;
        at_high = std::move(at_mid);
      } else {
        low = mid;
      }
    }
    return std::make_pair(high, at_high);
  }

 private:
  const CapacityInputs& inputs_;
  const IterationModel& model_;
  const Accelerator& gpu_;
  const std::vector<ServeRequest>& requests_;
  const LatencyTargets& targets_;
  int per_replica_;
  int& simulations_;
};

void price(CapacityRow& row, const CapacityInputs& inputs) {
  const auto found = inputs.gpu_hour_prices.find(row.accelerator);
  if (found == inputs.gpu_hour_prices.end() || row.gpus == 0) return;
  row.cost_per_hour = Money::from_base(found->second.base() * row.gpus);
  const double tokens_per_hour = row.summary.output_tokens_per_s * 3600;
  if (tokens_per_hour > 0) row.cost_per_million_tokens = row.cost_per_hour->base() / tokens_per_hour * 1e6;
}

}  // namespace

std::vector<DeploymentCandidate> candidates_for(const Catalog& catalog, const std::string& system,
                                                const TransformerModel& model) {
  std::vector<DeploymentCandidate> candidates;
  const System* found = catalog.find<System>(system);
  if (found == nullptr || found->accelerators == 0) return candidates;
  const int domain = std::max(found->accelerators, found->scale_up_domain);
  for (int tp = 1; tp <= domain; tp *= 2)
    if (model.heads % tp == 0) candidates.push_back({system, tp});
  return candidates;
}

CapacitySearch search_capacity(const CapacityInputs& inputs,
                               const std::vector<DeploymentCandidate>& candidates,
                               const std::vector<ServeRequest>& requests, const LatencyTargets& targets,
                               int max_gpus) {
  CapacitySearch search;
  for (const DeploymentCandidate& candidate : candidates) {
    CapacityRow row;
    row.candidate = candidate;
    const System* system = inputs.catalog.find<System>(candidate.system);
    if (system == nullptr || system->accelerators == 0) {
      row.why = "not a GPU system of the catalog";
      search.rows.push_back(std::move(row));
      continue;
    }
    row.accelerator = system->accelerator;
    const int nodes = (candidate.tp + system->accelerators - 1) / system->accelerators;
    auto hardware = perf_hardware_of_system(inputs.catalog, candidate.system, nodes);
    InferenceSetup setup{inputs.model,
                         candidate.tp,
                         inputs.precision,
                         inputs.kv_bytes_per_element,
                         inputs.input_tokens,
                         inputs.output_tokens,
                         1};
    auto model = hardware.ok()
                     ? IterationModel::make(hardware.value(), inputs.collectives, inputs.constants, setup)
                     : Result<IterationModel>(hardware.errors());
    if (!model.ok()) {
      row.why = model.errors().front().message;
      search.rows.push_back(std::move(row));
      continue;
    }
    CandidateSearch replicas(inputs, model.value(), hardware.value().accelerator, requests, targets,
                             candidate.tp, search.simulations);
    ServeSummary largest;
    if (auto found = replicas.fewest(max_gpus, largest)) {
      row.replicas = found->first;
      row.gpus = found->first * candidate.tp;
      row.meets = true;
      row.summary = std::move(found->second);
    } else {
      row.summary = std::move(largest);
      row.why = fmt::format("misses the targets even on {} GPUs: {}", max_gpus / candidate.tp * candidate.tp,
                            binding_target(row.summary, targets));
    }
    price(row, inputs);
    search.rows.push_back(std::move(row));
  }
  const bool all_priced = std::all_of(search.rows.begin(), search.rows.end(), [](const CapacityRow& r) {
    return !r.meets || r.cost_per_hour.has_value();
  });
  std::stable_sort(search.rows.begin(), search.rows.end(), [&](const CapacityRow& a, const CapacityRow& b) {
    if (a.meets != b.meets) return a.meets;
    if (!a.meets) return false;
    if (all_priced && a.cost_per_hour->base() != b.cost_per_hour->base())
      return a.cost_per_hour->base() < b.cost_per_hour->base();
    return a.gpus < b.gpus;
  });
  if (!search.rows.empty() && search.rows.front().meets) {
    const CapacityRow& best = search.rows.front();
    for (std::size_t k = 1; k < search.rows.size(); ++k) {
      CapacityRow& row = search.rows[k];
      if (!row.meets) continue;
      row.why = all_priced ? fmt::format("costs {:.2f}/h more",
                                         row.cost_per_hour->base() - best.cost_per_hour->base())
                           : fmt::format("needs {} GPUs more", row.gpus - best.gpus);
    }
  }
  return search;
}

}  // namespace gputwin
