// A serving deployment simulated on the perf model: replicas of an engine, each fed its share of the requests
// (round-robin, as a load balancer does, or to the replica with the fewest requests in flight, as NVIDIA's
// MLPerf LLM harness deals them), each iteration timed by perf/inference's IterationModel.
//
//   auto defaults = load_serving_engine_defaults(data_dir + "/perf/serving-engine.yaml");
//   EngineLimits limits = engine_limits_for(defaults.value(), hardware.accelerator,
//   model.kv_capacity_tokens()); ServingResult result = simulate_serving(model, requests, {.replicas = 4,
//   .limits = limits}); result.summary.ttft_s.p90, result.summary.output_tokens_per_s_per_gpu
#pragma once

#include <string>
#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/serve/engine.hpp"
#include "gputwin/serve/serve_summary.hpp"

namespace gputwin {

// The scheduler limits an engine picks by itself (data/perf/serving-engine.yaml, with its source).
struct ServingEngineDefaults {
  std::string engine;
  std::string source;
  int block_tokens = 16;
  double large_memory_gib = 70;
  std::vector<std::string> large_memory_excludes;  // accelerator ids containing these get the small limits
  int large_max_batched_tokens = 8192;
  int large_max_sequences = 1024;
  int small_max_batched_tokens = 2048;
  int small_max_sequences = 256;
};

[[nodiscard]] Result<ServingEngineDefaults> load_serving_engine_defaults(const std::string& path);

// The engine's defaults for this GPU, with the replica's KV-cache capacity.
[[nodiscard]] EngineLimits engine_limits_for(const ServingEngineDefaults& defaults, const Accelerator& gpu,
                                             double kv_capacity_tokens);

// How requests are dealt over the replicas. round_robin: request k to replica k mod R. least_in_flight: each
// arriving request to the replica with the fewest requests sent and not yet answered (queued or running;
// ties to the lowest index), counted at its arrival: NVIDIA's MLPerf LLM harness's default dealing
// (`traffic_distribution_policy` 2 = loadBalancing in harness_llm's llm_server.hpp; data/perf/
// serving-engine-generations.yaml says where it was read). Open loop only: a closed loop's clients stay
// shared out over the replicas. It runs every request to its end: with a horizon, remote KV loads or
// give_up_when_missed, simulate_serving throws std::invalid_argument rather than drop them.
enum class Dealing { round_robin, least_in_flight };

struct ServingSetup {
  int replicas = 1;
  Dealing dealing = Dealing::round_robin;
  bool keep_requests = false;  // ServingResult::requests filled (every request's outcome)
  int gpus_per_replica = 1;
  EngineLimits limits;
  EngineOptions options;  // concurrency is for the whole deployment; it is shared out over the replicas
  LatencyTargets targets;
  // The serving engine's speed against the perf model: each iteration takes the perf model's time / this
  // (1 = as the model times it; per engine generation in data/perf/serving-engine-generations.yaml).
  double engine_efficiency = 1;
  // Stop as soon as the run cannot meet `targets` any more (more requests missed them than the percentile
  // allows): for runs whose only question is whether they meet (the capacity search). The summary of a run
  // that gave up is partial and does not meet the targets. Round-robin dealing only (least_in_flight runs
  // every request).
  bool give_up_when_missed = false;
};

// The seconds spent iterating, by what bound each iteration (as power_model's inference_phases splits a
// step: its bound part, the larger of compute and memory, is that phase; its communication; its host time),
// each iteration's time as the engine ran it (the engine efficiency applied). Summed over engines as GPU
// seconds: an engine's iteration of t seconds counts t for each GPU of one of its stages (a PP replica's
// engines are its batches in flight, one per stage).
struct BusySeconds {
  double compute = 0;
  double memory = 0;
  double communication = 0;
  double host = 0;
  void add(const StepTime& step, double engine_efficiency);
  [[nodiscard]] double total() const { return compute + memory + communication + host; }
  [[nodiscard]] BusySeconds times(double factor) const;
  BusySeconds& operator+=(const BusySeconds& other);
};

struct ServingResult {
  ServeSummary summary;
  std::vector<EngineSample> timeline;  // the replicas summed per sampling interval (KV use: their mean)
  long long iterations = 0;
  int gpus = 0;
  BusySeconds gpu_busy;                  // GPU seconds in iterations, over every engine
  bool gave_up = false;                  // give_up_when_missed stopped it
  std::vector<RequestOutcome> requests;  // in the order given, when ServingSetup::keep_requests
};

// A pipeline-parallel replica keeps pp batches in flight, as vLLM's pipeline keeps its stages busy: it is
// simulated as pp engines of one stage's GPUs each, every one with 1/pp of the replica's KV cache and a
// batch's time through all the stages (the IterationModel's for setup.pp). `setup` is per replica of
// gpus_per_replica GPUs per stage; the result is the same deployment as engines.
[[nodiscard]] ServingSetup pipelined(ServingSetup setup, int pp);

[[nodiscard]] ServingResult simulate_serving(const IterationModel& model,
                                             const std::vector<ServeRequest>& requests,
                                             const ServingSetup& setup);

// What a benchmark at a fixed concurrency measures on one replica: `concurrency` clients start together and
// each sends `rounds` requests of these lengths, one after the other (vLLM's benchmark_serving with
// --max-concurrency, TensorRT-LLM's benchmark at a concurrency). TTFT includes the queueing and the batched
// prefill of the requests that arrive together, which a single prompt's prefill does not.
struct ClosedLoopLoad {
  int concurrency = 1;
  int input_tokens = 128;
  int output_tokens = 128;
  int rounds = 4;
  int pipeline_stages = 1;       // a PP replica: simulated as pipelined() says
  double engine_efficiency = 1;  // ServingSetup::engine_efficiency
};
[[nodiscard]] ServeSummary closed_loop_latency(const IterationModel& model, const EngineLimits& limits,
                                               const ClosedLoopLoad& load, int gpus_per_replica);

// The perf model's estimate as an engine of this efficiency runs it (ServingSetup::engine_efficiency): every
// time divided by it (each term of the prefill and decode steps, TTFT, TPOT), the throughput times it.
[[nodiscard]] InferenceEstimate at_engine_efficiency(InferenceEstimate estimate, double efficiency);

}  // namespace gputwin
