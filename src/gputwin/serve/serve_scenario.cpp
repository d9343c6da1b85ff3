#include "gputwin/serve/serve_scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gputwin/catalog/gpu_systems.hpp"
#include "gputwin/core/data_dir.hpp"

namespace gputwin {

namespace {

bool drawn(const TrafficSpec& spec) {
  return !spec.input_lengths.is_fixed() || !spec.output_lengths.is_fixed();
}

// "2048 in / 256 out tokens", or the distributions drawn from.
std::string lengths_text(const TrafficSpec& spec) {
  if (!drawn(spec))
    return fmt::format("{} in / {} out tokens", spec.arrivals.input_tokens, spec.arrivals.output_tokens);
  return fmt::format("input tokens {}, output tokens {} (lengths seed {})", spec.input_lengths.text(),
                     spec.output_lengths.text(), spec.seed);
}

ServeTraffic with_drawn_lengths(ServeTraffic traffic, const TrafficSpec& spec) {
  if (drawn(spec)) draw_lengths(traffic.requests, spec.input_lengths, spec.output_lengths, spec.seed);
  return traffic;
}

}  // namespace

std::optional<InputError> traffic_refusal(const TrafficSpec& spec) {
  if (spec.trace.empty() || !drawn(spec)) return std::nullopt;
  InputError error;
  error.field = "--input-tokens/--output-tokens";
  error.message = "a trace carries its own lengths: give no length distribution with --trace";
  return error;
}

Result<ServeTraffic> make_traffic(const TrafficSpec& spec) {
  const ArrivalProcess& arrivals = spec.arrivals;
  if (auto refusal = traffic_refusal(spec)) return std::move(*refusal);
  if (!spec.trace.empty()) {
    auto trace = read_request_trace(spec.trace);
    if (!trace.ok()) return trace.errors();
    ServeTraffic traffic{std::move(trace).value(), ""};
    if (spec.requests > 0 && static_cast<int>(traffic.requests.size()) > spec.requests)
      traffic.requests.resize(static_cast<std::size_t>(spec.requests));
    traffic.description = fmt::format("trace {} ({} requests over {:.0f} s, lengths from the trace)",
                                      spec.trace, traffic.requests.size(), traffic.requests.back().arrival_s);
    return traffic;
  }
  if (spec.concurrency > 0) {
    const int count = spec.requests > 0 ? spec.requests : 10 * spec.concurrency;
    return with_drawn_lengths(
        ServeTraffic{std::vector<ServeRequest>(static_cast<std::size_t>(count),
                                               {0.0, arrivals.input_tokens, arrivals.output_tokens}),
                     fmt::format("closed loop: {} clients, {} requests of {}", spec.concurrency, count,
                                 lengths_text(spec))},
        spec);
  }
  return with_drawn_lengths(
      ServeTraffic{generate_arrivals(arrivals, spec.seed),
                   fmt::format("{} at {:g} req/s for {:g} s (gap CV {:g}, seed {}), {}",
                               arrivals.gap_cv == 1 ? "Poisson" : "bursty", arrivals.rate_per_s,
                               arrivals.duration_s, arrivals.gap_cv, spec.seed, lengths_text(spec))},
      spec);
}

EngineLimits engine_limits_with(const ServingEngineDefaults& defaults, const Accelerator& gpu,
                                double kv_capacity_tokens, const EngineLimitOverrides& overrides) {
  EngineLimits limits = engine_limits_for(defaults, gpu, kv_capacity_tokens);
  if (overrides.max_batched_tokens > 0) limits.max_batched_tokens = overrides.max_batched_tokens;
  if (overrides.max_sequences > 0) limits.max_sequences = overrides.max_sequences;
  if (overrides.block_tokens > 0) limits.block_tokens = overrides.block_tokens;
  return limits;
}

Result<EngineChoice> engine_choice(const ServingEngineDefaults& defaults,
                                   const std::vector<EngineGeneration>& generations,
                                   const std::string& generation) {
  const std::string limits = defaults.engine + " defaults (" + defaults.source + ")";
  if (generation.empty())
    return EngineChoice{
        limits + "; efficiency 1 (the perf model's own timing; --engine GEN applies a fitted one)", 1.0, ""};
  std::string known;
  for (const EngineGeneration& g : generations) {
    if (g.id == generation)
      return EngineChoice{
          fmt::format("{}; efficiency {:g} (engine generation {}, fitted)", limits, g.efficiency, g.id),
          g.efficiency, g.id};
    known += (known.empty() ? "" : ", ") + g.id;
  }
  InputError error;
  error.field = "engine";
  error.message = "no engine generation '" + generation + "' (known: " + known + ")";
  return error;
}

Result<EngineChoice> load_engine_choice(const ServingEngineDefaults& defaults,
                                        const std::string& generation) {
  std::vector<EngineGeneration> generations;
  if (!generation.empty()) {
    auto loaded = load_engine_generations(bundled_data_dir() + "/perf/serving-engine-generations.yaml");
    if (!loaded.ok()) return loaded.errors();
    generations = std::move(loaded).value();
  }
  return engine_choice(defaults, generations, generation);
}

Result<DisaggregatedRun> make_disaggregated_run(const DeploymentInputs& inputs, DisaggregatedSetup pools,
                                                const ServingEngineDefaults& defaults,
                                                const EngineLimitOverrides& overrides) {
  const auto model_of = [&](int tp) {
    InferenceSetup setup = inputs.setup;
    setup.tp = tp;
    return IterationModel::make(inputs.hardware, inputs.collectives, inputs.constants, setup);
  };
  auto prefill = model_of(pools.prefill.tp);
  if (!prefill.ok()) return prefill.errors();
  auto decode = model_of(pools.decode.tp);
  if (!decode.ok()) return decode.errors();
  const Accelerator& gpu = inputs.hardware.accelerator;
  pools.prefill.limits = engine_limits_with(defaults, gpu, prefill.value().kv_capacity_tokens(), overrides);
  pools.decode.limits = engine_limits_with(defaults, gpu, decode.value().kv_capacity_tokens(), overrides);
  return DisaggregatedRun{std::move(prefill).value(), std::move(decode).value(), std::move(pools)};
}

int domains_filled(const PoolPlacement& placement) {
  return 1 + std::max(placement.prefill_domain.back(), placement.decode_domain.back());
}

Result<PerfHardware> system_transfer_hardware(const Catalog& catalog, const std::string& system,
                                              const PerfHardware& deployment,
                                              const PoolPlacement& placement) {
  return perf_hardware_of_system(catalog, system,
                                 std::max(2, domains_filled(placement) * deployment.nodes_per_domain()));
}

CapacityInputs capacity_inputs(const Catalog& catalog, const DeploymentInputs& inputs,
                               const ServingEngineDefaults& defaults, const SearchSpec& search) {
  CapacityInputs capacity{catalog,
                          inputs.collectives,
                          inputs.constants,
                          defaults,
                          inputs.setup.model,
                          inputs.setup.precision,
                          inputs.setup.kv_bytes_per_element,
                          inputs.setup.input_tokens,
                          inputs.setup.output_tokens,
                          search.gpu_hour_prices,
                          {},
                          search.max_domains};
  capacity.rack_density = search.rack_density;
  const EngineLimitOverrides& fixed = search.fixed_limits;
  if (fixed.max_batched_tokens > 0 || fixed.max_sequences > 0) {  // fixed limits: not searched
    const EngineLimits own = engine_limits_for(defaults, inputs.hardware.accelerator, 0);
    capacity.batch_limits.push_back(
        {fixed.max_batched_tokens > 0 ? fixed.max_batched_tokens : own.max_batched_tokens,
         fixed.max_sequences > 0 ? fixed.max_sequences : own.max_sequences});
  }
  for (const BatchLimits& limits : search.batch_limits) capacity.batch_limits.push_back(limits);
  return capacity;
}

Result<std::vector<std::string>> searched_systems(const Catalog& catalog,
                                                  const std::vector<std::string>& names) {
  std::vector<std::string> systems;
  const auto refuse = [](const std::string& message) {
    InputError error;
    error.field = "systems";
    error.message = message;
    return error;
  };
  for (const std::string& name : names) {
    if (name == "all") {
      for (const System& system : catalog.all<System>())
        if (system.accelerators > 0) systems.push_back(system.info.id);
    } else if (const GpuSystemLookup found = find_gpu_system(catalog, name); found.node == nullptr) {
      return refuse("no system '" + name + "' in the catalog (a system or rack-scale system id, or all)");
    } else if (!found.has_gpus()) {
      return refuse("system '" + name + "' has no GPUs");
    } else {
      systems.push_back(found.node->info.id);
    }
  }
  std::vector<std::string> unique;  // each once, in the order given
  for (const std::string& system : systems)
    if (std::find(unique.begin(), unique.end(), system) == unique.end()) unique.push_back(system);
  return unique;
}

Result<std::vector<DeploymentCandidate>> candidates_on(const CapacityInputs& inputs,
                                                       const std::vector<std::string>& systems) {
  std::vector<DeploymentCandidate> candidates;
  for (const std::string& system : systems) {
    if (inputs.catalog.find<System>(system) == nullptr) {
      InputError error;
      error.field = "systems";
      error.message = "no system '" + system + "' in the catalog";
      return error;
    }
    for (const DeploymentCandidate& candidate : candidates_for(inputs, system))
      candidates.push_back(candidate);
  }
  return candidates;
}

}  // namespace gputwin
