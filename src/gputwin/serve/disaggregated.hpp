// Prefill/decode disaggregation: a pool of prefill instances and a pool of decode instances, each instance an
// engine of its own (serve/engine.hpp), with every prompt's KV cache moved from its prefill instance to its
// decode instance over the design's network. The behaviour follows vLLM V1's disaggregated prefilling with
// the NixlConnector and its proxy (docs/perf-serve.md, "Prefill/decode disaggregation"):
// - the proxy sends a request to the next prefill instance (round-robin) with max_tokens 1: the prefill
//   instance batches it like any request (token budget, chunked prefill, KV capacity); the token it makes is
//   discarded by the proxy;
// - the proxy then sends it to the next decode instance (round-robin, in the order prefills complete); the
//   decode instance admits it by its KV capacity (blocks for the whole prompt), reads the prompt's KV cache
//   from the prefill instance (NIXL, pull) and then computes the last prompt token again, which emits the
//   first output token the client sees: TTFT includes the queueing on both pools and the transfer.
//
//   KvTransferModel transfer(hardware, collectives, model, /*kv_bytes_per_element=*/1, /*prefill_tp=*/4,
//                            /*decode_tp=*/4);
//   DisaggregatedSetup setup{.prefill = {2, 4, limits}, .decode = {2, 4, limits}};
//   DisaggregatedResult r = simulate_disaggregated(prefill_model, decode_model, transfer, requests, setup);
//   r.serving.summary.ttft_s.p90, r.kv_transfer_s.p90, r.kv_bytes_total
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin {

// One pool's instances. An instance is tp x ep x pp GPUs: `ep` data-parallel attention ranks of tp GPUs with
// the experts over all of them (MoE; each rank an engine core with its own scheduler, so `limits` are per
// rank, as in the capacity search), and `pp` pipeline stages keeping pp batches in flight (simulated as pp
// engines with 1/pp of the instance's KV cache each, as serving.hpp's pipelined()).
struct PoolSetup {
  int instances = 1;
  int tp = 1;
  EngineLimits limits;
  int ep = 1;
  int pp = 1;
  [[nodiscard]] int instance_gpus() const { return tp * ep * pp; }
};

struct DisaggregatedSetup {
  PoolSetup prefill;
  PoolSetup decode;
  double sample_every_s = 1.0;
  LatencyTargets targets;
  // Copies of the prefill:decode unit behind one balancer (--replicas): request k goes to unit k mod units,
  // each unit routes round-robin over its own pools, as a proxy per unit does; units are placed one after the
  // other. 1 = one proxy over both pools.
  int units = 1;
  // The serving engine's speed against the perf model, for both pools (ServingSetup::engine_efficiency).
  double engine_efficiency = 1;
  // Closed loop: this many clients, each sending the next request of the stream (its arrival time ignored)
  // as soon as the decode pool has answered its previous one (or a pool refused it). 0 = open loop.
  int concurrency = 0;
};

// A pool of no instance, or an instance (tp x ep x pp GPUs) wider than one scale-up domain: an error naming
// the pool ("prefill" or "decode") and the figures; nullopt when the pool can run.
[[nodiscard]] std::optional<std::string> pool_error(const PoolSetup& pool, const std::string& name,
                                                    int domain_gpus);

// Placement rule: instances sit on consecutive GPUs, the prefill pool first, then the decode pool (unit by
// unit when there are several); an instance never straddles a scale-up domain (it starts at the next domain
// when the rest of the current one is too small). The scale-up domain of each instance, by pool (unit u's
// instances are u x instances .. (u + 1) x instances - 1).
struct PoolPlacement {
  std::vector<int> prefill_domain;
  std::vector<int> decode_domain;
};
[[nodiscard]] PoolPlacement place_pools(int domain_gpus, const PoolSetup& prefill, const PoolSetup& decode,
                                        int units = 1);

struct KvTransfer {
  double bytes = 0;     // the prompt's whole KV cache (every layer, every KV head)
  double seconds = 0;   // the busiest GPU's share over one point-to-point link
  bool nvlink = false;  // both instances in one scale-up domain of NVLink (not the NICs)
};

// A prompt's KV cache moved from a prefill instance of TP p to a decode instance of TP d: every GPU of both
// sides moves its own share at once, so the time is the collective model's point-to-point (sendrecv) time of
// the larger per-GPU share (a GPU's KV slice at TP p or d, whichever is larger; a pipeline stage holds
// 1/pp of the layers), on NVLink when both instances sit in one scale-up domain, through the GPUs' NICs
// otherwise. Transfers do not slow each other (the links' sharing between concurrent transfers is left out).
class KvTransferModel {
 public:
  KvTransferModel(PerfHardware hardware, CollectiveModel collectives, const TransformerModel& model,
                  double kv_bytes_per_element, int prefill_tp, int decode_tp, int prefill_pp = 1,
                  int decode_pp = 1);
  [[nodiscard]] KvTransfer of(int prompt_tokens, bool same_domain) const;
  [[nodiscard]] int domain_gpus() const { return hardware_.gpus_per_domain(); }
  [[nodiscard]] double bytes_per_token() const { return bytes_per_token_; }

 private:
  PerfHardware hardware_;
  CollectiveModel collectives_;
  double bytes_per_token_ = 0;              // the whole model's KV bytes per token
  double busiest_gpu_bytes_per_token_ = 0;  // one GPU's share on the side with the larger shares
};

struct RequestTransfer {  // per request, in the order given; -1 = did not happen
  double sent_s = -1;     // its arrival, or (closed loop) when its client sent it
  int prefill_instance = -1;
  int decode_instance = -1;
  double prefill_done_s = -1;   // the prefill instance finished the prompt
  double kv_load_start_s = -1;  // the decode instance admitted it and began to read its KV cache
  double kv_ready_s = -1;       // the KV cache is on the decode instance
  double first_token_s = -1;    // the decode instance emitted the first token
  double finish_s = -1;         // and the last one: the client has its answer
  KvTransfer transfer;
};

struct PoolStats {
  int instances = 0;  // over every unit
  int tp = 0;
  int ep = 1;
  int pp = 1;
  int gpus = 0;
  EngineLimits limits;
  long long iterations = 0;
  long long preemptions = 0;
  int unservable = 0;
  double peak_kv_used_fraction = 0;  // of the pool's mean over instances per sampling interval
  int peak_waiting = 0;
};

struct PoolSample {  // the pools' state per sampling interval (instances summed; KV use their mean)
  double time_s = 0;
  EngineSample prefill;
  EngineSample decode;
};

struct DisaggregatedResult {
  ServingResult serving;  // what clients see, over both pools' GPUs (timeline: both pools summed)
  int units = 1;          // copies of the prefill:decode unit (the pools' instances count every unit's)
  PoolStats prefill;
  PoolStats decode;
  std::vector<RequestTransfer> requests;
  std::vector<PoolSample> pool_timeline;
  LatencyStats kv_transfer_s;  // over the requests that were transferred
  double kv_bytes_total = 0;
  double kv_bytes_mean = 0;
  int nvlink_transfers = 0;
  int network_transfers = 0;
};

// Open loop: requests arrive at their arrival_s (sorted ascending); closed loop: setup.concurrency clients.
// Both pools' instances run on one clock (the earliest next iteration first), so a closed loop's answers
// feed its clients back.
[[nodiscard]] DisaggregatedResult simulate_disaggregated(const IterationModel& prefill_model,
                                                         const IterationModel& decode_model,
                                                         const KvTransferModel& transfer,
                                                         const std::vector<ServeRequest>& requests,
                                                         const DisaggregatedSetup& setup);

// How to split `instances` instances between the pools (pools' TP and limits from `setup`). Every split with
// at least one instance per pool is simulated; the best meets the targets with the fewest GPUs (then the
// highest goodput, then the fewest prefill instances), or, when none meets them, has the largest share of
// requests meeting them.
struct PoolSplitTrial {
  int prefill_instances = 0;
  int decode_instances = 0;
  int gpus = 0;
  ServeSummary summary;
};
struct PoolSplit {
  std::vector<PoolSplitTrial> trials;  // by prefill instances, ascending
  std::size_t best = 0;                // index into trials (when there is any)
  bool meets = false;                  // the best split meets the targets
};
[[nodiscard]] PoolSplit best_pool_split(const IterationModel& prefill_model,
                                        const IterationModel& decode_model, const KvTransferModel& transfer,
                                        const std::vector<ServeRequest>& requests,
                                        const DisaggregatedSetup& setup, int instances);

// The capacity search's question for one candidate and an instance budget, in fewer simulations: a bisection
// on the prefill instances led by what binds: TPOT or E2E, or TTFT whose larger part (mean) is the wait for a
// decode instance (prefill done to first token), needs more decode instances; TTFT spent mostly before the
// prefill ends more prefill instances. The first split meeting the targets ends it (a budget's splits have
// the same GPUs when both pools' instances are alike). Up to `exhaustive_up_to` instances: every split.
// `trials` holds the splits simulated, by prefill instances; `best` meets the targets or, when none does,
// has the largest share of requests meeting them.
[[nodiscard]] PoolSplit searched_pool_split(const IterationModel& prefill_model,
                                            const IterationModel& decode_model,
                                            const KvTransferModel& transfer,
                                            const std::vector<ServeRequest>& requests,
                                            const DisaggregatedSetup& setup, int instances,
                                            int exhaustive_up_to = 4);

// Whether TTFT binds (true) or TPOT/E2E (false): the target with the largest ratio of its percentile (the
// targets') to the target. The split search's first question; TTFT's own parts answer the second (above).
// (TTFT includes the wait for a decode slot, so a TTFT miss alone does not say which pool is short.)
[[nodiscard]] bool prompt_side_binds(const ServeSummary& summary, const LatencyTargets& targets);

}  // namespace gputwin
