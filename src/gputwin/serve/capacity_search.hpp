// The fewest GPUs that serve this traffic within these targets: every candidate deployment (a catalog system
// and a layout: TP, data-parallel attention with expert parallelism for MoE models, PP when the weights need
// more than one scale-up domain) is simulated on the whole request stream with as many replicas as it needs,
// found by doubling then bisection on the replica count (more replicas never make a round-robin deployment
// slower), under each of a small set of engine batch limits. Candidates run on local threads; the rows are
// the same whatever the thread count.
//
//   CapacityInputs inputs{catalog, collectives, constants, defaults, model, "fp8", 1.0};
//   std::vector<DeploymentCandidate> candidates = candidates_for(inputs, "dgx-h100");
//   CapacitySearch search = search_capacity(inputs, candidates, requests, targets, /*max_gpus=*/4096,
//                                           /*threads=*/4);
//   search.rows.front()   // the cheapest deployment that meets the targets (by price when every row has one,
//                         // else by GPUs); rows that cannot meet them, and why, follow
//
// One candidate alone (a task of a Slurm job array) is search_candidate; rank_capacity_rows orders rows
// evaluated anywhere into the same answer.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin {

// One engine's scheduler limits (vLLM max_num_batched_tokens / max_num_seqs, per engine core).
struct BatchLimits {
  int max_batched_tokens = 8192;
  int max_sequences = 1024;
  bool operator==(const BatchLimits&) const = default;
};

struct CapacityInputs {
  const Catalog& catalog;
  CollectiveModel collectives;
  InferenceConstants constants;
  ServingEngineDefaults engine;
  TransformerModel model;
  std::string precision = "fp8";
  double kv_bytes_per_element = 1;
  int input_tokens =
      128;  // only sizes the "does one sequence fit" check; the requests carry their own lengths
  int output_tokens = 128;
  std::map<std::string, Money> gpu_hour_prices;  // by accelerator id; empty = rank by GPUs
  // The batch limits searched on every candidate, the first tried first; empty = the engine's defaults for
  // the GPU, then its other default pair (data/perf/serving-engine.yaml).
  std::vector<BatchLimits> batch_limits;
  // The most pipeline stages (or scale-up domains an expert-parallel group spans) tried for weights that do
  // not fit one domain: a search setting, not a fact (--max-pp).
  int max_domains = 4;
  // The serving engine's speed against the perf model (ServingSetup::engine_efficiency): 1 = the model's own.
  double engine_efficiency = 1;
  // Also try every layout whose instance fits one scale-up domain as prefill/decode disaggregation
  // (serve/disaggregated.hpp): a prefill pool and a decode pool of instances of that layout, the instance
  // count searched like replicas and, at each count, the prefill:decode split (searched_pool_split).
  bool disaggregation = false;
  // Closed loop: this many clients, each sending its next request when the last is answered (the requests'
  // arrival times ignored), shared over the replicas or fed by a disaggregated deployment's decode pool.
  // 0 = open loop (the requests arrive at their times).
  int concurrency = 0;
  // How many nodes of a system share a rack (data/perf/sizing-racks.yaml, as perf size counts racks); empty:
  // racks of node-bought systems are not counted (a rack-scale system is bought by the rack regardless).
  std::optional<RackDensity> rack_density{};
};

// How a system is bought: by the node, or, for a compute tray whose scale-up domain spans several trays (a
// GB200 NVL72 tray), by the rack that holds the domain (18 trays, 72 GPUs).
struct PurchaseUnit {
  int gpus_per_node = 1;
  int domain_gpus = 1;      // the scale-up domain: the node, or the rack of a rack-scale system
  bool by_rack = false;     // the domain spans nodes: whole racks are bought
  std::string rack_system;  // by_rack: the catalog rack system whose compute tray this is (empty if none)
  int nodes_per_rack = 0;   // 0 = not counted (no rack density); by_rack: the domain's trays
  std::string rack_rule;    // how nodes_per_rack was found
  [[nodiscard]] int gpus() const { return by_rack ? domain_gpus : gpus_per_node; }
};

[[nodiscard]] PurchaseUnit purchase_unit_of(const Catalog& catalog, const System& system,
                                            const std::optional<RackDensity>& density);

// What a deployment buys: its instances placed one after another on scale-up domains (none straddling one,
// an instance wider than a domain on whole domains of its own), then rounded up to whole nodes, or whole
// racks for a rack-scale system. racks 0 = not counted.
struct Purchase {
  int nodes = 0;
  int racks = 0;
  int gpus = 0;  // the GPUs of the whole units bought
};

[[nodiscard]] Purchase purchase_for(const PurchaseUnit& unit, const std::vector<int>& instance_gpus);

struct DeploymentCandidate {
  std::string system;
  int tp = 1;
  int ep = 1;  // data-parallel attention groups of tp GPUs with the routed experts over ep x tp GPUs (MoE)
  int pp = 1;  // pipeline stages of tp GPUs
  // Prefill/decode disaggregation: instances of this layout in two pools (gpus() is one prefill instance's).
  bool disaggregated = false;
  // Disaggregated: the decode pool's TP when it differs from the prefill pool's (`tp`); 0 = the same.
  int decode_tp = 0;
  [[nodiscard]] int gpus() const { return tp * ep * pp; }
  [[nodiscard]] int decode_pool_tp() const { return decode_tp > 0 ? decode_tp : tp; }
  [[nodiscard]] int decode_instance_gpus() const { return decode_pool_tp() * ep * pp; }
  // The wider of the two pools' instances (one instance's GPUs when aggregated).
  [[nodiscard]] int widest_instance_gpus() const { return std::max(gpus(), decode_instance_gpus()); }
  bool operator==(const DeploymentCandidate&) const = default;
};

// "TP 8", "TP 2 x DP 4 (EP 8)", "TP 8 x PP 2", "TP 4, P/D" (disaggregated: its split is the row's), "TP 4/1,
// P/D" (the prefill pool's TP / the decode pool's).
[[nodiscard]] std::string layout_text(const DeploymentCandidate& candidate);

struct CapacityRow {
  DeploymentCandidate candidate;
  std::string accelerator;
  int replicas = 0;  // 0 when the candidate cannot meet the targets (see `why`); instances when disaggregated
  int gpus = 0;
  // Disaggregated: the split of `replicas` instances between the pools (of the largest budget tried when it
  // does not meet the targets).
  int prefill_instances = 0;
  int decode_instances = 0;
  bool meets = false;
  // Whole units bought for `gpus` (when it meets the targets): nodes, racks and their GPUs; the price is on
  // bought_gpus.
  Purchase bought{};
  std::string unit;                    // "node", or "rack gb200-nvl72"
  BatchLimits limits;                  // the engine limits of the answer (or of the largest run tried)
  ServeSummary summary;                // at `replicas` (at the largest tried when it does not meet them)
  std::optional<Money> cost_per_hour;  // bought GPUs x the accelerator's GPU-hour price, when priced
  double cost_per_million_tokens = 0;  // cost per hour / output tokens per hour, when priced
  double memory_needed_bytes =
      0;            // refused for memory: what one GPU would need to hold weights and 1 sequence
  std::string why;  // why it is not the answer, or what binds when it cannot meet the targets
  [[nodiscard]] bool refused() const { return replicas == 0 && summary.requests == 0; }
};

struct CapacitySearch {
  std::vector<CapacityRow> rows;  // meeting rows cheapest first, then the others
  int simulations = 0;
  // When no candidate's weights fit: the smallest GPU memory that would hold them, and on which layout.
  std::string fits_nowhere;
  std::string cost_basis;  // where the GPU-hour prices come from, in words; empty: no prices
};

// "TP 4, P:D 1:3" for a disaggregated row with its split, else layout_text.
[[nodiscard]] std::string row_layout_text(const CapacityRow& row);

// The layouts worth trying on a system: TP a power of two up to its scale-up domain dividing the model's
// heads; for MoE models also data-parallel attention with expert parallelism (DP x TP within the domain, the
// experts divisible over them, as vLLM's --data-parallel-size with --enable-expert-parallel); and, only when
// nothing fits in one domain, the fewest domains (up to max_domains) that hold the weights: TP of the largest
// size in a domain x PP over the domains, and for MoE an expert-parallel group spanning them. With
// inputs.disaggregation, each layout whose instance fits one domain again as a disaggregated candidate, and
// every pair of different TPs (prefill pool, decode pool) among the TP layouts (no DP attention, no PP) whose
// instance fits one domain and holds the weights.
[[nodiscard]] std::vector<DeploymentCandidate> candidates_for(const CapacityInputs& inputs,
                                                              const std::string& system);

// The batch limits searched on `gpu` (inputs.batch_limits, or the engine's defaults for it then the other).
[[nodiscard]] std::vector<BatchLimits> searched_batch_limits(const CapacityInputs& inputs,
                                                             const Accelerator& gpu);

// One candidate: its fewest replicas under each searched batch limit (the fewest overall; ties go to the
// limits tried first), or why it cannot meet the targets. Adds its simulations to `simulations`.
[[nodiscard]] CapacityRow search_candidate(const CapacityInputs& inputs, const DeploymentCandidate& candidate,
                                           const std::vector<ServeRequest>& requests,
                                           const LatencyTargets& targets, int max_gpus, int& simulations);

// Rows in candidate order -> the answer first (the cheapest on the GPUs bought when every meeting row is
// priced, else the fewest GPUs bought, then used), the other meeting rows with what they cost more, the rest.
[[nodiscard]] CapacitySearch rank_capacity_rows(std::vector<CapacityRow> rows, int simulations);

// Every candidate on up to `threads` threads (at least 1), ranked.
[[nodiscard]] CapacitySearch search_capacity(const CapacityInputs& inputs,
                                             const std::vector<DeploymentCandidate>& candidates,
                                             const std::vector<ServeRequest>& requests,
                                             const LatencyTargets& targets, int max_gpus, int threads = 1);

}  // namespace gputwin
