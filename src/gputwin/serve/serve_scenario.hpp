// What one `perf serve` run simulates, built from its options as given: the traffic, the engine limits with
// the user's overrides, a disaggregated run's pools and the hardware its KV transfers cross, and the capacity
// search's inputs and candidates. The CLI parses flags into these specs and prints what comes back.
//
//   Result<ServeTraffic> traffic = make_traffic({.arrivals = {.rate_per_s = 4, .duration_s = 600}});
//   EngineLimits limits = engine_limits_with(defaults, hardware.accelerator, model.kv_capacity_tokens(),
//                                            {.max_sequences = 256});
//   Result<DisaggregatedRun> run = make_disaggregated_run(inputs, pools, defaults, overrides);
//   Result<PerfHardware> across = system_transfer_hardware(catalog, "dgx-h100", hardware, placement);
//   CapacityInputs capacity = capacity_inputs(catalog, inputs, defaults, search);
//   Result<std::vector<DeploymentCandidate>> candidates = candidates_on(capacity, {"dgx-h100", "dgx-b200"});
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/serve/capacity_search.hpp"
#include "gputwin/serve/disaggregated.hpp"
#include "gputwin/serve/requests.hpp"
#include "gputwin/serve/serving.hpp"
#include "gputwin/serve/serving_references.hpp"

namespace gputwin {

// The requests of a run and how they came, in words for the report's header.
struct ServeTraffic {
  std::vector<ServeRequest> requests;
  std::string description;
};

// A recorded trace (its first `requests` when set), closed-loop clients (each request the deployment's
// lengths; `requests` in all, default 10 per client), or else generated arrivals.
struct TrafficSpec {
  std::string trace;
  int concurrency = 0;
  int requests = 0;
  ArrivalProcess arrivals;
  std::uint64_t seed = 1;
  // Generated and closed-loop requests: lengths drawn from these instead of the arrivals' fixed ones when
  // either is not fixed (draw_lengths, its own random stream for `seed`). Refused with a trace.
  LengthDistribution input_lengths = LengthDistribution::fixed_at(128);
  LengthDistribution output_lengths = LengthDistribution::fixed_at(128);
};

// Why the spec's options cannot go together, before anything is read: a trace carries its own lengths, so a
// length distribution beside it is refused (field "--input-tokens/--output-tokens", the options to drop).
// make_traffic refuses the same; the CLI asks first, to refuse before loading the deployment.
[[nodiscard]] std::optional<InputError> traffic_refusal(const TrafficSpec& spec);

[[nodiscard]] Result<ServeTraffic> make_traffic(const TrafficSpec& spec);

// The user's engine limits; 0 keeps the engine's own.
struct EngineLimitOverrides {
  int max_batched_tokens = 0;
  int max_sequences = 0;
  int block_tokens = 0;
};

[[nodiscard]] EngineLimits engine_limits_with(const ServingEngineDefaults& defaults, const Accelerator& gpu,
                                              double kv_capacity_tokens,
                                              const EngineLimitOverrides& overrides);

// The engine a run simulates: its limits' source and the efficiency applied to the perf model's iteration
// times, in words for the report.
struct EngineChoice {
  std::string text;
  double efficiency = 1;
  std::string generation;  // empty: the perf model's own timing
};

// `generation` empty: the engine's defaults at efficiency 1 (the perf model's own timing); else the engine
// generation of that id (data/perf/serving-engine-generations.yaml) with its fitted efficiency, or an error
// listing the known ids. The scheduler limits stay the engine defaults' either way.
[[nodiscard]] Result<EngineChoice> engine_choice(const ServingEngineDefaults& defaults,
                                                 const std::vector<EngineGeneration>& generations,
                                                 const std::string& generation);

// engine_choice with the generations read from the bundled data (data/perf/serving-engine-generations.yaml)
// when `generation` is set: what `perf serve --engine` and `perf infer --engine` use. An unknown id is an
// error without a file (engine_choice's); a bad generations file one located in it.
[[nodiscard]] Result<EngineChoice> load_engine_choice(const ServingEngineDefaults& defaults,
                                                      const std::string& generation);

// What a deployment is made of: the hardware, the cost models and the model's setup (perf infer's inputs).
struct DeploymentInputs {
  const PerfHardware& hardware;
  const CollectiveModel& collectives;
  const InferenceConstants& constants;
  const InferenceSetup& setup;
};

// A disaggregated run's two iteration models and its pools with their engine limits.
struct DisaggregatedRun {
  IterationModel prefill;
  IterationModel decode;
  DisaggregatedSetup pools;
};

// `pools` gives the instances and TP of each pool (checked with pool_error by the caller); each pool's limits
// are the engine's for its model, with the overrides.
[[nodiscard]] Result<DisaggregatedRun> make_disaggregated_run(const DeploymentInputs& inputs,
                                                              DisaggregatedSetup pools,
                                                              const ServingEngineDefaults& defaults,
                                                              const EngineLimitOverrides& overrides);

// The scale-up domains the placed pools fill.
[[nodiscard]] int domains_filled(const PoolPlacement& placement);

// The hardware the KV transfers of pools placed so cross, for a deployment on a catalog system: as many nodes
// of it as the pools' domains fill, at least two (so a transfer between domains has the NICs' path).
[[nodiscard]] Result<PerfHardware> system_transfer_hardware(const Catalog& catalog, const std::string& system,
                                                            const PerfHardware& deployment,
                                                            const PoolPlacement& placement);

// The capacity search's setup beyond the model: prices, engine limits fixed by the user (not searched) or the
// batch limits to search, and the most scale-up domains tried.
struct SearchSpec {
  std::map<std::string, Money> gpu_hour_prices;
  EngineLimitOverrides fixed_limits;  // max_batched_tokens / max_sequences set: the one pair searched
  std::vector<BatchLimits> batch_limits;
  int max_domains = 4;
  std::optional<RackDensity> rack_density{};  // nodes per rack, for the racks each answer buys
};

[[nodiscard]] CapacityInputs capacity_inputs(const Catalog& catalog, const DeploymentInputs& inputs,
                                             const ServingEngineDefaults& defaults, const SearchSpec& search);

// The catalog systems a search tries, from --systems as given: "all" = every system with GPUs, in the
// catalog's order; a rack-scale system's id (gb200-nvl72) = its compute tray, the system the models run on
// (the row's unit is the rack). An error names a system the catalog lacks or one without GPUs.
[[nodiscard]] Result<std::vector<std::string>> searched_systems(const Catalog& catalog,
                                                                const std::vector<std::string>& names);

// Every candidate on each system, in the systems' order; an error naming a system the catalog lacks.
[[nodiscard]] Result<std::vector<DeploymentCandidate>> candidates_on(const CapacityInputs& inputs,
                                                                     const std::vector<std::string>& systems);

}  // namespace gputwin
