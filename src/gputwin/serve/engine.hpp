// A serving engine's iteration loop, simulated request by request: continuous batching under a token budget,
// chunked prefill, a paged KV cache with admission and preemption, as vLLM's V1 scheduler does it
// (docs/perf-serve.md says which behaviour follows which part of vLLM's documentation and code).
//
//   EngineLimits limits{.max_batched_tokens = 8192, .max_sequences = 1024, .block_tokens = 16,
//                       .kv_capacity_tokens = 1.2e6};
//   ServeRun run = simulate_engine(requests, limits, cost);   // cost: seconds of one iteration's batch
//   run.requests[i].first_token_s, run.requests[i].finish_s, run.timeline
//
// Time advances by iterations; each iteration's duration comes from `cost` (the perf model of the
// deployment's GPUs), so the engine itself holds no hardware figure. Deterministic: the same requests give
// the same run.
#pragma once

#include <functional>
#include <memory>
#include <vector>

namespace gputwin {

struct ServeRequest {
  double arrival_s = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  bool operator==(const ServeRequest&) const = default;
};

// Whose scheduler the engine follows (docs/perf-serve.md, "The engine"):
// - vllm_v1: vLLM V1's (the default; also TensorRT-LLM's MAX_UTILIZATION capacity policy, which MLPerf's
//   harness sets): running requests first in admission order, each taking the tokens it still needs within
//   the budget, then waiting ones; a request is admitted on the blocks of its current length and the latest
//   admitted is preempted (recomputed later) when a running one cannot grow.
// - trtllm_guaranteed_no_evict: TensorRT-LLM's default capacity policy (GUARANTEED_NO_EVICT) with its
//   micro-batch scheduler (FIRST_COME_FIRST_SERVED context chunking): a waiting request is admitted, in
//   arrival order, only when the blocks of its whole prompt and output are free beside what the running
//   requests will still need (the first that does not fit stops admission); nothing is ever preempted. Each
//   iteration takes one token of every generating request first, then gives the budget left to the requests
//   still in their prompt in admission order, a chunk cut short of the prompt's end rounded down to whole
//   blocks (TensorRT-LLM's chunk unit, tokens per block).
enum class SchedulerPolicy { vllm_v1, trtllm_guaranteed_no_evict };

struct EngineLimits {
  int max_batched_tokens = 8192;  // tokens one iteration may compute (vLLM max_num_batched_tokens)
  int max_sequences = 1024;       // requests running at once (vLLM max_num_seqs)
  int block_tokens = 16;          // tokens per KV-cache block (vLLM block_size)
  double kv_capacity_tokens = 0;  // KV-cache tokens of the replica
  SchedulerPolicy policy = SchedulerPolicy::vllm_v1;
};

// What one iteration computes: new prompt tokens (with the context they attend to) and decode tokens.
struct IterationBatch {
  int prefill_tokens = 0;
  double prefill_context_tokens = 0;  // sum over prefill tokens of the tokens each attends to
  int decode_sequences = 0;
  double decode_context_tokens = 0;  // sum over decoding sequences of their cached tokens
};

using IterationCost = std::function<double(const IterationBatch&)>;

struct RequestOutcome {
  double arrival_s = 0;
  double first_token_s = -1;  // when its first output token was produced; -1 = never (run ended first)
  double finish_s = -1;
  int input_tokens = 0;
  int output_tokens = 0;
  int preemptions = 0;
  double kv_load_start_s = -1;  // remote prefill: when its KV cache began to load (-1 = not loaded)
  double max_token_gap_s = 0;   // the longest inter-token latency it saw
  double token_gap_sum_s = 0;   // sum of its inter-token latencies (output_tokens - 1 of them)
  // Where its latency went (what produces a tail): when it was first put in an iteration (-1 = never), so
  // TTFT splits into the wait for admission and its prompt's iterations; and the part of token_gap_sum_s
  // spent in iterations that also computed other requests' prompt tokens (chunked prefill interleaving).
  double first_scheduled_s = -1;
  double gap_with_prefill_sum_s = 0;
  [[nodiscard]] bool finished() const { return finish_s >= 0; }
};

struct EngineSample {  // the engine's state after one iteration, for the over-time output
  double time_s = 0;
  int running = 0;
  int waiting = 0;  // queued, and (remote prefill) admitted but still loading their KV cache
  double kv_used_fraction = 0;
  int batch_tokens = 0;
};

// Every inter-token latency of a run, in bins of 0.1 ms up to 10 s (exact enough for percentiles in ms, and
// bounded in memory however many tokens a run produces); longer gaps are counted in the last bin. `counts`
// grows to the longest gap's bin (a search runs thousands of engines: most never see a gap of a second).
struct GapHistogram {
  static constexpr double kBinSeconds = 1e-4;
  static constexpr int kBins = 100000;
  std::vector<long long> counts;  // by bin, up to the last one counted
  long long total = 0;
  void add(double seconds);
  void merge(const GapHistogram& other);
  // The q-quantile (0..1) in seconds, at the upper edge of its bin; 0 when empty.
  [[nodiscard]] double quantile(double q) const;
};

struct ServeRun {
  std::vector<RequestOutcome> requests;  // in the order given
  std::vector<EngineSample> timeline;    // one sample per `sample_every_s` of simulated time
  GapHistogram token_gaps;
  long long iterations = 0;
  long long preemptions = 0;
  double end_s = 0;
  int unservable = 0;    // requests longer than the whole KV cache: refused, never run
  long long misses = 0;  // finished requests `EngineOptions::misses` said missed (counted only when set)
  bool gave_up = false;  // stopped after more than misses_allowed of them
};

// Open loop: requests arrive at their arrival_s (sorted ascending). Closed loop: `concurrency` > 0 clients
// each send the next request of `requests` (arrival times ignored) as soon as their previous one finishes.
struct EngineOptions {
  int concurrency = 0;
  double sample_every_s = 1.0;
  double horizon_s = 0;  // stop after this simulated time (0 = when every request has finished)
  // Disaggregated decode (serve/disaggregated.hpp), by request (empty: none): a request whose entry is >= 0
  // had its prompt's KV cache computed by a prefill instance and read from it in that many seconds once this
  // engine has admitted it (its blocks allocated, as vLLM's scheduler does for a KV connector's asynchronous
  // load). Until the read ends it holds its blocks but runs in no iteration; then only the last prompt
  // token is computed again, and that iteration emits the first output token.
  std::vector<double> remote_kv_load_s;
  // Give up early (the capacity search's runs that only ask "does it meet the targets"): when `misses` is
  // set, the run stops as soon as more than `misses_allowed` finished requests miss the targets by it
  // (ServeRun gave_up); the requests not finished by then stay unfinished.
  std::function<bool(const RequestOutcome&)> misses;
  long long misses_allowed = 0;
};

[[nodiscard]] ServeRun simulate_engine(const std::vector<ServeRequest>& requests, const EngineLimits& limits,
                                       const IterationCost& cost, const EngineOptions& options = {});

struct SettledRequest {  // a request the engine is done with: finished, or refused (larger than its cache)
  int request = 0;       // its index in the engine (ServeEngine::add's)
  double time_s = 0;
};

// The same engine as simulate_engine's, stepped by a driver that adds requests while it runs (several of
// them on one clock: serve/pool_clock.hpp): open loop, each request arriving at its
// arrival_s (added in order of arrival, and before the engine has stepped past it).
//
//   ServeEngine engine(limits, cost);
//   engine.add({0.0, 1000, 1});
//   while (engine.next_step_s() <= t) engine.step();   // everything up to t
//   for (const SettledRequest& done : engine.take_settled()) ...
class ServeEngine {
 public:
  ServeEngine(const EngineLimits& limits, IterationCost cost, double sample_every_s = 1.0);
  ~ServeEngine();
  ServeEngine(ServeEngine&&) noexcept;
  ServeEngine& operator=(ServeEngine&&) noexcept;

  // `remote_kv_load_s` >= 0: its prompt's KV cache is read from a prefill instance in that many seconds
  // (EngineOptions::remote_kv_load_s). Returns its index in this engine.
  int add(const ServeRequest& request, double remote_kv_load_s = -1);
  // When its next step starts: now when it has requests to run, else the next KV load's end or arrival;
  // +infinity when it has nothing to do until a request is added.
  [[nodiscard]] double next_step_s() const;
  void step();  // one iteration, or the clock moved to the next KV load's end or arrival
  // The requests settled since the last call, in the order they settled.
  [[nodiscard]] std::vector<SettledRequest> take_settled();
  // The run so far (requests by index in this engine; end_s is the engine's clock).
  [[nodiscard]] const ServeRun& result();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gputwin
