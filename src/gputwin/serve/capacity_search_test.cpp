#include "gputwin/serve/capacity_search.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/serve/disaggregated.hpp"
#include "gputwin/serve/requests.hpp"
#include "gputwin/serve/serve_test_support.hpp"

namespace gputwin {
namespace {

using testing::capacity_inputs_for;
using testing::latency_targets;

TEST(CapacitySearch, TheAnswerIsTheFewestReplicasThatMeetTheTargets) {
  const CapacityInputs inputs = capacity_inputs_for("llama3.1-8b");
  const auto requests =
      generate_arrivals({.rate_per_s = 300, .duration_s = 20, .input_tokens = 1024, .output_tokens = 128}, 3);
  const LatencyTargets goal = latency_targets(0.2, 0.02);
  const CapacitySearch search = search_capacity(inputs, {{"dgx-h100", 1}}, requests, goal, 256);
  ASSERT_EQ(search.rows.size(), 1u);
  const CapacityRow& best = search.rows.front();
  ASSERT_TRUE(best.meets) << best.why;
  EXPECT_EQ(best.gpus, best.replicas);
  EXPECT_TRUE(best.summary.meets_targets);
  if (best.replicas > 1) {  // one replica fewer must miss: the search is not just "some count that meets"
    const CapacitySearch fewer =
        search_capacity(inputs, {{"dgx-h100", 1}}, requests, goal, best.replicas - 1);
    EXPECT_FALSE(fewer.rows.front().meets);
  }
  EXPECT_GT(search.simulations, 1);
}

TEST(CapacitySearch, CandidatesThatCannotServeSayWhy) {
  const CapacityInputs inputs = capacity_inputs_for("llama3.1-405b");
  const auto requests = generate_arrivals({.rate_per_s = 1, .duration_s = 30}, 1);
  const CapacitySearch search =
      search_capacity(inputs, {{"dgx-h100", 1}, {"dgx-h100", 8}}, requests, latency_targets(0.001, 1.0), 64);
  ASSERT_EQ(search.rows.size(), 2u);
  for (const CapacityRow& row : search.rows) EXPECT_FALSE(row.meets);
  const auto& tp1 = search.rows[0].candidate.tp == 1 ? search.rows[0] : search.rows[1];
  const auto& tp8 = search.rows[0].candidate.tp == 8 ? search.rows[0] : search.rows[1];
  EXPECT_NE(tp1.why.find("do not fit"), std::string::npos) << tp1.why;
  EXPECT_NE(tp8.why.find("TTFT"), std::string::npos) << "the target that binds is named: " << tp8.why;
}

TEST(CapacitySearch, PricesRankTheAnswersAndGiveCostPerMillionTokens) {
  CapacityInputs inputs = capacity_inputs_for("llama3.1-8b");
  inputs.gpu_hour_prices["h100-sxm"] = Money::from_base(2.5);
  const auto requests =
      generate_arrivals({.rate_per_s = 10, .duration_s = 60, .input_tokens = 1024, .output_tokens = 128}, 5);
  const CapacitySearch search =
      search_capacity(inputs, {{"dgx-h100", 2}, {"dgx-h100", 1}}, requests, latency_targets(0.5, 0.05), 64);
  ASSERT_TRUE(search.rows.front().meets);
  ASSERT_TRUE(search.rows.front().cost_per_hour.has_value());
  // Priced on the GPUs bought: a TP-1 or TP-2 answer still buys a whole 8-GPU node.
  EXPECT_EQ(search.rows.front().bought.gpus, 8);
  EXPECT_DOUBLE_EQ(search.rows.front().cost_per_hour->base(), 2.5 * 8);
  EXPECT_GT(search.rows.front().cost_per_million_tokens, 0);
  if (search.rows[1].meets) {
    EXPECT_LE(search.rows.front().cost_per_hour->base(), search.rows[1].cost_per_hour->base());
    EXPECT_NE(search.rows[1].why.find("more"), std::string::npos) << search.rows[1].why;
  }
}

// Hand-worked: instances fill scale-up domains one after another, none straddling one, then whole units are
// bought: nodes of an 8-GPU box, racks of the NVL72 (its 72-GPU NVLink domain, 18 trays).
TEST(CapacityPurchase, InstancesRoundUpToWholeNodesOrRacks) {
  const Catalog& catalog = testing::bundled_catalog();
  const PurchaseUnit box = purchase_unit_of(catalog, catalog.get<System>("dgx-h100"), std::nullopt);
  EXPECT_FALSE(box.by_rack);
  const Purchase three = purchase_for(box, {1, 1, 1});
  EXPECT_EQ(three.nodes, 1);
  EXPECT_EQ(three.gpus, 8);
  EXPECT_EQ(three.racks, 0) << "racks of a node-bought system are not counted without a rack density";
  const Purchase pipelines = purchase_for(box, {16, 16});  // two TP 8 x PP 2 replicas: two nodes each
  EXPECT_EQ(pipelines.nodes, 4);
  EXPECT_EQ(pipelines.gpus, 32);
  const Purchase tp4 = purchase_for(box, {4, 4, 4});  // 12 GPUs: two per node, so two nodes
  EXPECT_EQ(tp4.nodes, 2);
  EXPECT_EQ(tp4.gpus, 16);

  const PurchaseUnit nvl72 = purchase_unit_of(catalog, catalog.get<System>("gb200-nvl72-tray"), std::nullopt);
  EXPECT_TRUE(nvl72.by_rack);
  EXPECT_EQ(nvl72.rack_system, "gb200-nvl72");
  EXPECT_EQ(nvl72.gpus(), 72);
  const Purchase rack = purchase_for(nvl72, {1, 1, 1});
  EXPECT_EQ(rack.racks, 1);
  EXPECT_EQ(rack.nodes, 18);
  EXPECT_EQ(rack.gpus, 72);
  // 3 x 40 GPUs = 120 would fit 2 racks by count, but an instance does not straddle a domain: 3 racks.
  const Purchase wide = purchase_for(nvl72, {40, 40, 40});
  EXPECT_EQ(wide.racks, 3);
  EXPECT_EQ(wide.gpus, 216);
}

// With the rack density perf size uses (data/perf/sizing-racks.yaml), node-bought systems count racks too.
TEST(CapacityPurchase, NodesShareRacksAsPerfSizeCountsThem) {
  const Catalog& catalog = testing::bundled_catalog();
  const auto density = load_rack_density(bundled_data_dir() + "/perf/sizing-racks.yaml", catalog);
  ASSERT_TRUE(density.ok()) << density.error_text();
  const System& h100 = catalog.get<System>("dgx-h100");
  const PurchaseUnit box = purchase_unit_of(catalog, h100, density.value());
  const int per_rack = systems_per_rack(catalog, density.value(), h100).systems;
  ASSERT_GT(per_rack, 0);
  EXPECT_EQ(box.nodes_per_rack, per_rack);
  std::vector<int> instances(static_cast<std::size_t>(per_rack + 1), 8);  // one node more than a rack holds
  const Purchase bought = purchase_for(box, instances);
  EXPECT_EQ(bought.nodes, per_rack + 1);
  EXPECT_EQ(bought.racks, 2);
}

// Unpriced, the rows rank by the GPUs bought: 16 GPUs used of a 72-GPU rack lose to 32 GPUs in 4 nodes.
TEST(CapacityPurchase, UnpricedRowsRankByTheGpusBought) {
  CapacityRow rack_row;
  rack_row.candidate = {"gb200-nvl72-tray", 8};
  rack_row.meets = true;
  rack_row.replicas = 2;
  rack_row.gpus = 16;
  rack_row.bought = {18, 1, 72};
  CapacityRow box_row;
  box_row.candidate = {"dgx-h100", 8, 1, 2};
  box_row.meets = true;
  box_row.replicas = 2;
  box_row.gpus = 32;
  box_row.bought = {4, 0, 32};
  const CapacitySearch search = rank_capacity_rows({rack_row, box_row}, 2);
  EXPECT_EQ(search.rows.front().candidate.system, "dgx-h100");
  EXPECT_EQ(search.rows.back().why, "buys 40 GPUs more");
}

TEST(CapacitySearch, CandidatesAreTheTpSizesUpToTheDomainThatDivideTheHeads) {
  const CapacityInputs inputs = capacity_inputs_for("llama3.1-70b");
  const auto h100 = candidates_for(inputs, "dgx-h100");
  ASSERT_EQ(h100.size(), 4u);  // 1, 2, 4, 8
  EXPECT_EQ(h100.back().tp, 8);
  const auto nvl72 = candidates_for(inputs, "gb200-nvl72-tray");
  EXPECT_EQ(nvl72.back().tp, 64) << "TP spans trays of the NVLink domain, 64 heads divide";
  EXPECT_TRUE(candidates_for(inputs, "no-such-system").empty());
  for (const auto& c : h100) EXPECT_EQ(c.ep * c.pp, 1) << "a dense model that fits one node: TP only";
}

bool has(const std::vector<DeploymentCandidate>& candidates, const DeploymentCandidate& wanted) {
  return std::find(candidates.begin(), candidates.end(), wanted) != candidates.end();
}

TEST(CapacitySearch, MoeCandidatesAddDataParallelAttentionWithExpertParallelism) {
  const CapacityInputs inputs = capacity_inputs_for("qwen3-30b-a3b");
  const auto h100 = candidates_for(inputs, "dgx-h100");
  EXPECT_TRUE(has(h100, {"dgx-h100", 1, 8, 1})) << "DP 8 attention, 128 experts over 8 GPUs";
  EXPECT_TRUE(has(h100, {"dgx-h100", 2, 4, 1}));
  EXPECT_TRUE(has(h100, {"dgx-h100", 4, 1, 1}));
  for (const auto& c : h100) EXPECT_LE(c.gpus(), 8) << layout_text(c) << ": it fits one node";
  const CapacityInputs mixtral = capacity_inputs_for("mixtral-8x7b");
  int ep_layouts = 0;
  for (const auto& c : candidates_for(mixtral, "gb200-nvl72-tray")) {
    if (c.ep == 1) continue;  // TP alone shards every expert: no divisibility asked
    ++ep_layouts;
    EXPECT_EQ(8 % (c.tp * c.ep), 0) << layout_text(c) << ": Mixtral's 8 experts divide over the EP group";
  }
  EXPECT_EQ(ep_layouts, 6) << "DP x TP = 2, 4, 8 GPUs: (1,2) (1,4) (1,8) (2,2) (2,4) (4,2)";
}

// The EP layouts are timed with their all-to-all on the real placement: the same tokens per GPU cost more
// when the expert-parallel group spans two nodes (NICs) than inside one (NVLink).
TEST(CapacitySearch, ExpertParallelIterationsPayTheAllToAllOfTheirPlacement) {
  const CapacityInputs inputs = capacity_inputs_for("qwen3-30b-a3b");
  const auto iteration = [&](int ep) {
    const auto hw = perf_hardware_of_system(inputs.catalog, "dgx-h100", (ep + 7) / 8).value();
    InferenceSetup setup{inputs.model, 1, "fp8", 1.0, 1024, 128, ep};
    const auto model = IterationModel::make(hw, inputs.collectives, inputs.constants, setup).value();
    return model.iteration(0, 0, 32 * ep, 32.0 * ep * 1000);  // 32 decoding sequences per attention group
  };
  const StepTime one_node = iteration(8);
  const StepTime two_nodes = iteration(16);
  EXPECT_GT(one_node.communication_s, 0) << "TP 1: only the all-to-all communicates";
  EXPECT_GT(two_nodes.communication_s, 1.5 * one_node.communication_s);
}

TEST(CapacitySearch, TheMoeAnswerIsMinimal) {
  const CapacityInputs inputs = capacity_inputs_for("mixtral-8x7b");
  const auto requests =
      generate_arrivals({.rate_per_s = 40, .duration_s = 20, .input_tokens = 1024, .output_tokens = 128}, 7);
  const LatencyTargets goal = latency_targets(0.5, 0.04);
  const CapacitySearch search =
      search_capacity(inputs, candidates_for(inputs, "dgx-h100"), requests, goal, 64, 2);
  const CapacityRow& best = search.rows.front();
  ASSERT_TRUE(best.meets) << best.why;
  EXPECT_TRUE(best.why.empty());
  bool some_ep = false;
  for (const auto& row : search.rows) some_ep = some_ep || (row.candidate.ep > 1 && row.summary.requests > 0);
  EXPECT_TRUE(some_ep) << "expert-parallel layouts were simulated";
  if (best.replicas > 1) {  // one replica fewer misses under every searched limit
    CapacityInputs fewer = inputs;
    int simulations = 0;
    const CapacityRow less = search_candidate(fewer, best.candidate, requests, goal,
                                              (best.replicas - 1) * best.candidate.gpus(), simulations);
    EXPECT_FALSE(less.meets) << layout_text(best.candidate);
  }
  for (const auto& row : search.rows)
    if (row.meets) {
      EXPECT_GE(row.gpus, best.gpus);
    }
}

TEST(CapacitySearch, ThreadsGiveIdenticalRows) {
  const CapacityInputs inputs = capacity_inputs_for("qwen3-30b-a3b");
  const auto requests =
      generate_arrivals({.rate_per_s = 20, .duration_s = 10, .input_tokens = 1024, .output_tokens = 64}, 11);
  const auto candidates = candidates_for(inputs, "dgx-h100");
  ASSERT_GT(candidates.size(), 4u);
  const CapacitySearch one = search_capacity(inputs, candidates, requests, latency_targets(0.3, 0.03), 32, 1);
  const CapacitySearch four =
      search_capacity(inputs, candidates, requests, latency_targets(0.3, 0.03), 32, 4);
  ASSERT_EQ(one.rows.size(), four.rows.size());
  EXPECT_EQ(one.simulations, four.simulations);
  for (std::size_t k = 0; k < one.rows.size(); ++k) {
    const CapacityRow& a = one.rows[k];
    const CapacityRow& b = four.rows[k];
    EXPECT_EQ(a.candidate, b.candidate) << k;
    EXPECT_EQ(a.replicas, b.replicas) << k;
    EXPECT_EQ(a.limits, b.limits) << k;
    EXPECT_EQ(a.why, b.why) << k;
    EXPECT_EQ(a.summary.ttft_s.p90, b.summary.ttft_s.p90) << k;  // bit for bit
    EXPECT_EQ(a.summary.tpot_s.p99, b.summary.tpot_s.p99) << k;
  }
}

TEST(CapacitySearch, The405bClassPipelinesOverNodesOnlyWhenOneNodeCannotHoldIt) {
  CapacityInputs inputs = capacity_inputs_for("llama3.1-405b");
  inputs.precision = "bf16";  // 810 GB of weights: more than one 8 x 80 GB node
  const auto h100 = candidates_for(inputs, "dgx-h100");
  ASSERT_EQ(h100.size(), 1u);
  EXPECT_EQ(h100.front(), (DeploymentCandidate{"dgx-h100", 8, 1, 2})) << layout_text(h100.front());
  const auto nvl72 = candidates_for(inputs, "gb200-nvl72-tray");
  for (const auto& c : nvl72) EXPECT_EQ(c.pp, 1) << "TP within the NVLink domain holds it";
  const auto requests =
      generate_arrivals({.rate_per_s = 1, .duration_s = 20, .input_tokens = 1024, .output_tokens = 64}, 2);
  int simulations = 0;
  const CapacityRow row =
      search_candidate(inputs, h100.front(), requests, latency_targets(5, 0.2), 64, simulations);
  ASSERT_TRUE(row.meets) << row.why;
  EXPECT_EQ(row.gpus % 16, 0) << "whole TP 8 x PP 2 replicas";
}

TEST(CapacitySearch, AModelThatFitsNowhereIsRefusedWithTheMemoryItNeeds) {
  CapacityInputs inputs = capacity_inputs_for("kimi-k2");
  inputs.precision = "bf16";  // about 2 TB of weights
  inputs.max_domains = 2;
  const auto candidates = candidates_for(inputs, "dgx-h100");
  const auto requests = generate_arrivals({.rate_per_s = 1, .duration_s = 5}, 1);
  const CapacitySearch search = search_capacity(inputs, candidates, requests, latency_targets(1, 0.1), 64, 2);
  ASSERT_FALSE(search.rows.empty());
  double least = 1e30;
  for (const auto& row : search.rows) {
    EXPECT_FALSE(row.meets);
    EXPECT_NE(row.why.find("do not fit"), std::string::npos) << row.why;
    EXPECT_GT(row.memory_needed_bytes, 80e9) << layout_text(row.candidate);
    least = std::min(least, row.memory_needed_bytes);
  }
  EXPECT_EQ(search.simulations, 0);
  EXPECT_NE(search.fits_nowhere.find(fmt::format("{:.0f} GB per GPU", std::ceil(least / 1e9))),
            std::string::npos)
      << search.fits_nowhere;
}

TEST(CapacitySearch, BatchLimitsAreASearchedAxis) {
  const CapacityInputs inputs = capacity_inputs_for("llama3.1-8b");
  const Accelerator& h100 = *inputs.catalog.find<Accelerator>("h100-sxm");
  const auto limits = searched_batch_limits(inputs, h100);
  ASSERT_EQ(limits.size(), 2u);
  EXPECT_EQ(limits[0], (BatchLimits{8192, 1024})) << "the engine's own default on an 80 GB H100 first";
  EXPECT_EQ(limits[1], (BatchLimits{2048, 256}));
  const auto requests =
      generate_arrivals({.rate_per_s = 200, .duration_s = 15, .input_tokens = 3000, .output_tokens = 200}, 4);
  const LatencyTargets goal = latency_targets(2.0, 0.015);
  CapacityInputs fixed = inputs;
  fixed.batch_limits = {limits[0]};
  int searched_runs = 0, fixed_runs = 0;
  const CapacityRow searched = search_candidate(inputs, {"dgx-h100", 1}, requests, goal, 128, searched_runs);
  const CapacityRow only_default = search_candidate(fixed, {"dgx-h100", 1}, requests, goal, 128, fixed_runs);
  ASSERT_TRUE(searched.meets && only_default.meets) << searched.why << only_default.why;
  EXPECT_LE(searched.gpus, only_default.gpus);
  EXPECT_GT(searched_runs, fixed_runs) << "the other limits were simulated too";
  EXPECT_TRUE(searched.limits == limits[0] || searched.limits == limits[1]);
  if (searched.limits == limits[1]) {
    EXPECT_LT(searched.gpus, only_default.gpus) << "ties keep the default";
  }
}

TEST(CapacitySearch, DisaggregationAddsPoolCandidatesWhoseInstanceFitsADomain) {
  CapacityInputs inputs = capacity_inputs_for("llama3.1-70b");
  const auto aggregated = candidates_for(inputs, "dgx-h100");
  inputs.disaggregation = true;
  const auto both = candidates_for(inputs, "dgx-h100");
  // Every layout of one domain, once more as pools of that layout; then each pool's TP chosen on its own
  // among the layouts that hold the weights (TP 2, 4, 8 for the 70B in FP8 on 80 GB: 3 x 2 ordered pairs).
  ASSERT_EQ(both.size(), 2 * aggregated.size() + 6);
  for (std::size_t k = 0; k < aggregated.size(); ++k) {
    DeploymentCandidate pools = aggregated[k];
    pools.disaggregated = true;
    EXPECT_EQ(both[aggregated.size() + k], pools);
  }
  EXPECT_EQ(layout_text(both[2 * aggregated.size() - 1]), "TP 8, P/D");
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t k = 2 * aggregated.size(); k < both.size(); ++k) {
    EXPECT_TRUE(both[k].disaggregated);
    pairs.emplace_back(both[k].tp, both[k].decode_pool_tp());
  }
  const std::vector<std::pair<int, int>> expected{{2, 4}, {2, 8}, {4, 2}, {4, 8}, {8, 2}, {8, 4}};
  EXPECT_EQ(pairs, expected);
  EXPECT_EQ(layout_text(both[2 * aggregated.size()]), "TP 2/4, P/D");
}

TEST(CapacitySearch, TheDisaggregatedAnswerIsTheFewestInstancesAndTheirSplitMeetingTheTargets) {
  CapacityInputs inputs = capacity_inputs_for("llama3.1-8b");
  // Long answers to short prompts: decoding is the work, so a good split puts most instances on decode.
  const auto requests =
      generate_arrivals({.rate_per_s = 30, .duration_s = 30, .input_tokens = 256, .output_tokens = 1024}, 5);
  inputs.batch_limits = {{8192, 64}};  // a decode instance's batch is bounded: instances carry the load
  const LatencyTargets goal = latency_targets(0.5, 0.02);
  const DeploymentCandidate pools{"dgx-h100", 1, 1, 1, true};
  const CapacitySearch search = search_capacity(inputs, {pools}, requests, goal, 64);
  ASSERT_EQ(search.rows.size(), 1u);
  const CapacityRow& row = search.rows.front();
  ASSERT_TRUE(row.meets) << row.why;
  EXPECT_EQ(row.prefill_instances + row.decode_instances, row.replicas);
  EXPECT_EQ(row.gpus, row.replicas);
  EXPECT_GT(row.decode_instances, row.prefill_instances);
  EXPECT_EQ(row_layout_text(row),
            fmt::format("TP 1, P:D {}:{}", row.prefill_instances, row.decode_instances));
  // The same budget split the other way round misses the targets: a bad split loses.
  const auto hardware = perf_hardware_of_system(inputs.catalog, "dgx-h100", 2).value();
  InferenceSetup setup{inputs.model, 1, "fp8", 1.0, 1024, 128, 1};
  const IterationModel model =
      IterationModel::make(hardware, inputs.collectives, inputs.constants, setup).value();
  const KvTransferModel transfer(hardware, inputs.collectives, inputs.model, 1.0, 1, 1);
  DisaggregatedSetup reversed;
  EngineLimits limits = engine_limits_for(inputs.engine, hardware.accelerator, model.kv_capacity_tokens());
  limits.max_sequences = 64;
  reversed.prefill = {row.decode_instances, 1, limits};
  reversed.decode = {row.prefill_instances, 1, limits};
  reversed.targets = goal;
  const DisaggregatedResult bad = simulate_disaggregated(model, model, transfer, requests, reversed);
  EXPECT_FALSE(bad.serving.summary.meets_targets);
  // And one instance fewer, however split, misses them too: the count is the fewest.
  const CapacitySearch fewer = search_capacity(inputs, {pools}, requests, goal, row.replicas - 1);
  EXPECT_FALSE(fewer.rows.front().meets);
}

// Long prompts, short answers and a tight TTFT: a prompt must be computed on wide instances to be in time,
// while decoding a few tokens needs no more than one GPU. Each pool's own TP (TP 4 prefill, TP 1 decode)
// then needs fewer GPUs than pools of one layout: TP 4 for both spends GPUs on decode, TP 1 for both cannot
// compute a prompt in time however many instances.
TEST(CapacitySearch, EachPoolTakesItsOwnTpWhenThatIsCheaper) {
  CapacityInputs inputs = capacity_inputs_for("llama3.1-8b");
  const auto requests =
      generate_arrivals({.rate_per_s = 6, .duration_s = 20, .input_tokens = 8192, .output_tokens = 32}, 3);
  const LatencyTargets goal = latency_targets(0.08, 0.05);
  const DeploymentCandidate narrow{"dgx-h100", 1, 1, 1, true};
  const DeploymentCandidate wide{"dgx-h100", 4, 1, 1, true};
  const DeploymentCandidate wide_prefill{"dgx-h100", 4, 1, 1, true, 1};
  const DeploymentCandidate wide_decode{"dgx-h100", 1, 1, 1, true, 4};
  const CapacitySearch search =
      search_capacity(inputs, {narrow, wide, wide_prefill, wide_decode}, requests, goal, 32, 2);
  ASSERT_EQ(search.rows.size(), 4u);
  const CapacityRow& answer = search.rows.front();
  ASSERT_TRUE(answer.meets) << answer.why;
  EXPECT_EQ(answer.candidate, wide_prefill);
  EXPECT_EQ(answer.gpus, 4 * answer.prefill_instances + answer.decode_instances);
  EXPECT_EQ(row_layout_text(answer),
            fmt::format("TP 4/1, P:D {}:{}", answer.prefill_instances, answer.decode_instances));
  for (const CapacityRow& row : search.rows) {
    if (row.candidate == narrow) {
      EXPECT_FALSE(row.meets) << row.why;  // TTFT binds at any count
    }
    if (row.candidate == wide) {
      ASSERT_TRUE(row.meets) << row.why;
      EXPECT_GT(row.gpus, answer.gpus);
    }
  }
}

TEST(CapacitySearch, DisaggregatedRowsRankWithTheOthersAndReadBackTheirSplit) {
  CapacityInputs inputs = capacity_inputs_for("llama3.1-8b");
  inputs.gpu_hour_prices["h100-sxm"] = Money::from_base(2.5);
  const auto requests =
      generate_arrivals({.rate_per_s = 10, .duration_s = 60, .input_tokens = 1024, .output_tokens = 128}, 5);
  const CapacitySearch search = search_capacity(inputs, {{"dgx-h100", 1}, {"dgx-h100", 1, 1, 1, true}},
                                                requests, latency_targets(0.5, 0.05), 64, 2);
  ASSERT_EQ(search.rows.size(), 2u);
  for (const CapacityRow& row : search.rows) ASSERT_TRUE(row.meets) << row.why;
  // One aggregated TP-1 replica carries 10 req/s; pools need at least two GPUs: they cost more and say so.
  EXPECT_FALSE(search.rows.front().candidate.disaggregated);
  const CapacityRow& pools = search.rows.back();
  EXPECT_TRUE(pools.candidate.disaggregated);
  EXPECT_GE(pools.gpus, 2);
  // Both buy one 8-GPU node: the same price, so the fewer GPUs used rank first.
  EXPECT_EQ(pools.bought.gpus, 8);
  EXPECT_EQ(pools.why, fmt::format("costs as much, uses {} GPUs more", pools.gpus - 1));
  ASSERT_TRUE(pools.cost_per_hour.has_value());
  EXPECT_NEAR(pools.cost_per_million_tokens,
              pools.cost_per_hour->base() / (pools.summary.output_tokens_per_s * 3600) * 1e6, 1e-9);
}

// --concurrency with the search: every disaggregated candidate runs the closed loop (the pools on one
// clock), so the mean number of requests in flight (Little's law: req/s x mean latency) never exceeds the
// clients; the same stream arriving all at once (the open loop the search ran before 2026-11-27) holds
// hundreds in flight and misses the TTFT target the loop meets.
TEST(CapacitySearch, AClosedLoopDrivesTheDisaggregatedCandidates) {
  CapacityInputs inputs = capacity_inputs_for("llama3.1-8b");
  const std::vector<ServeRequest> requests(400, {0.0, 2048, 128});
  const LatencyTargets goal = latency_targets(0.5, 0.02);
  const DeploymentCandidate pools{"dgx-h100", 1, 1, 1, true};
  constexpr int kClients = 16;
  inputs.concurrency = kClients;
  const CapacitySearch closed = search_capacity(inputs, {pools}, requests, goal, 16, 2);
  ASSERT_EQ(closed.rows.size(), 1u);
  const CapacityRow& row = closed.rows.front();
  ASSERT_TRUE(row.meets) << row.why;
  EXPECT_EQ(row.prefill_instances + row.decode_instances, row.replicas);
  const double in_flight = row.summary.requests_per_s * row.summary.e2e_s.mean;
  EXPECT_LE(in_flight, kClients + 1e-9);
  EXPECT_GT(in_flight, kClients - 1.0) << "the clients keep their requests in flight";
  inputs.concurrency = 0;
  const CapacitySearch burst = search_capacity(inputs, {pools}, requests, goal, row.replicas, 2);
  const CapacityRow& open = burst.rows.front();
  EXPECT_FALSE(open.meets);
  EXPECT_GT(open.summary.requests_per_s * open.summary.e2e_s.mean, 10.0 * kClients);
}

}  // namespace
}  // namespace gputwin
