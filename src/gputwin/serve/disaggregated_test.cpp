#include "gputwin/serve/disaggregated.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/serve/requests.hpp"

namespace gputwin {
namespace {

struct Deployment {
  PerfHardware hardware;
  CollectiveModel collectives;
  InferenceConstants constants;
  ServingEngineDefaults engine;
  TransformerModel model;
};

Deployment deployment(const std::string& system, const std::string& model_name, int nodes = 4) {
  const std::string data = bundled_data_dir() + "/perf/";
  const auto presets = load_model_presets(data + "models.yaml").value();
  return {perf_hardware_of_system(testing::bundled_catalog(), system, nodes).value(),
          load_collective_model(data + "nccl-cost-model.yaml").value(),
          load_inference_constants(data + "inference.yaml").value(),
          load_serving_engine_defaults(data + "serving-engine.yaml").value(),
          *find_model(presets, model_name)};
}

IterationModel model_of(const Deployment& d, int tp) {
  InferenceSetup setup{d.model, tp, "fp8", 1.0, 1024, 128, 1};
  return IterationModel::make(d.hardware, d.collectives, d.constants, setup).value();
}

DisaggregatedSetup pools(const Deployment& d, const IterationModel& prefill, const IterationModel& decode,
                         int prefill_instances, int decode_instances, int tp) {
  DisaggregatedSetup setup;
  setup.prefill = {prefill_instances, tp,
                   engine_limits_for(d.engine, d.hardware.accelerator, prefill.kv_capacity_tokens())};
  setup.decode = {decode_instances, tp,
                  engine_limits_for(d.engine, d.hardware.accelerator, decode.kv_capacity_tokens())};
  return setup;
}

TEST(ServeDisaggregated, KvBytesAreTheModelsPerTokenBytesTimesThePrompt) {
  const Deployment d = deployment("dgx-h100", "llama3.1-70b");
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 4, 4);
  // Llama 3.1 70B: 80 layers x 8 KV heads x 128 x (K and V), one byte each in an FP8 cache.
  EXPECT_DOUBLE_EQ(transfer.bytes_per_token(), 2.0 * 80 * 8 * 128);
  EXPECT_DOUBLE_EQ(transfer.of(2048, true).bytes, 2048 * 2.0 * 80 * 8 * 128);
  const KvTransferModel bf16(d.hardware, d.collectives, d.model, 2.0, 4, 4);
  EXPECT_DOUBLE_EQ(bf16.of(2048, true).bytes, 2 * transfer.of(2048, true).bytes);
}

TEST(ServeDisaggregated, TheTransferIsFasterOnNvlinkThanAcrossTheNics) {
  const Deployment d = deployment("dgx-h100", "llama3.1-70b");
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 4, 4);
  const KvTransfer nvlink = transfer.of(8192, true);
  const KvTransfer network = transfer.of(8192, false);
  EXPECT_TRUE(nvlink.nvlink);
  EXPECT_FALSE(network.nvlink);
  EXPECT_EQ(nvlink.bytes, network.bytes);
  // Each of 4 GPUs moves a quarter: at most one GPU's NVLink (450 GB/s one way) or NIC (400 Gb/s) rate.
  const double share = nvlink.bytes / 4;
  EXPECT_GT(nvlink.seconds, share / 450e9);
  EXPECT_GT(network.seconds, share / 50e9);
  EXPECT_GT(network.seconds, 4 * nvlink.seconds) << "a NIC carries a fraction of a GPU's NVLink bandwidth";
  // The busiest GPU sets the time: a TP-1 decode side reads the whole cache through one GPU.
  const KvTransferModel narrow(d.hardware, d.collectives, d.model, 1.0, 4, 1);
  EXPECT_GT(narrow.of(8192, false).seconds, 3 * network.seconds);
}

TEST(ServeDisaggregated, PlacementFillsDomainsInOrderAndNeverStraddlesOne) {
  const PoolPlacement p = place_pools(8, {2, 4, {}}, {3, 4, {}});
  EXPECT_EQ(p.prefill_domain, (std::vector<int>{0, 0}));
  EXPECT_EQ(p.decode_domain, (std::vector<int>{1, 1, 2}));
  const PoolPlacement mixed = place_pools(8, {1, 2, {}}, {1, 8, {}});  // 2 GPUs used: TP 8 starts a domain
  EXPECT_EQ(mixed.prefill_domain, (std::vector<int>{0}));
  EXPECT_EQ(mixed.decode_domain, (std::vector<int>{1}));
  const PoolPlacement shared = place_pools(8, {1, 4, {}}, {1, 4, {}});
  EXPECT_EQ(shared.prefill_domain.front(), shared.decode_domain.front());
}

TEST(ServeDisaggregated, DecodeNeverStartsBeforeTheTransferHasEnded) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel prefill = model_of(d, 1);
  const IterationModel decode = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  const auto requests =
      generate_arrivals({.rate_per_s = 40, .duration_s = 20, .input_tokens = 2048, .output_tokens = 64}, 7);
  const DisaggregatedResult r =
      simulate_disaggregated(prefill, decode, transfer, requests, pools(d, prefill, decode, 2, 9, 1));
  ASSERT_EQ(r.serving.summary.finished, static_cast<int>(requests.size()));
  int network = 0;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const RequestTransfer& t = r.requests[k];
    ASSERT_GE(t.kv_load_start_s, t.prefill_done_s);
    EXPECT_DOUBLE_EQ(t.kv_ready_s, t.kv_load_start_s + t.transfer.seconds);
    EXPECT_GT(t.transfer.seconds, 0);
    EXPECT_GT(t.first_token_s, t.kv_ready_s) << "request " << k;  // an iteration after the KV arrived
    network += t.transfer.nvlink ? 0 : 1;
  }
  // 2 + 9 TP-1 instances on 8-GPU domains: the 7th decode instance on is in the second domain.
  EXPECT_GT(network, 0);
  EXPECT_EQ(network, r.network_transfers);
  EXPECT_EQ(r.nvlink_transfers + r.network_transfers, static_cast<int>(requests.size()));
  EXPECT_GT(r.kv_transfer_s.p99, r.kv_transfer_s.p50) << "NIC transfers are the slow tail";
}

TEST(ServeDisaggregated, TheFirstTokenComesAfterPrefillTransferAndOneDecodeIteration) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel prefill = model_of(d, 1);
  const IterationModel decode = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  const std::vector<ServeRequest> one{{0.0, 4096, 10}};
  const DisaggregatedResult r =
      simulate_disaggregated(prefill, decode, transfer, one, pools(d, prefill, decode, 1, 1, 1));
  const RequestTransfer& t = r.requests[0];
  // The prefill instance alone: its iterations over the 4096-token prompt (one chunk of 8192).
  EXPECT_NEAR(t.prefill_done_s, prefill.iteration(4096, 4096 * 4097 / 2.0, 0, 0).seconds(), 1e-12);
  EXPECT_DOUBLE_EQ(t.kv_load_start_s, t.prefill_done_s);  // an idle decode instance admits it at once
  // The decode instance recomputes the last prompt token (context 4096) and emits the first token.
  const double first = t.kv_ready_s + decode.iteration(1, 4096, 0, 0).seconds();
  EXPECT_NEAR(r.serving.summary.ttft_s.mean, first, 1e-9);
  EXPECT_GT(r.serving.summary.e2e_s.mean, first);
  EXPECT_EQ(r.prefill.iterations, 1);
  EXPECT_EQ(r.decode.iterations, 10);  // the first token, then 9 decode steps
}

TEST(ServeDisaggregated, ADecodeBoundLoadGainsFromMoreDecodeInstances) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel prefill = model_of(d, 1);
  const IterationModel decode = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  // Short prompts, long answers: decoding is the work.
  const auto requests =
      generate_arrivals({.rate_per_s = 30, .duration_s = 30, .input_tokens = 256, .output_tokens = 1024}, 5);
  DisaggregatedSetup setup = pools(d, prefill, decode, 1, 1, 1);
  setup.decode.limits.max_sequences = 64;  // a decode instance's batch is bounded: more instances carry more
  const DisaggregatedResult one = simulate_disaggregated(prefill, decode, transfer, requests, setup);
  setup.decode.instances = 3;
  const DisaggregatedResult three = simulate_disaggregated(prefill, decode, transfer, requests, setup);
  EXPECT_GT(three.serving.summary.output_tokens_per_s, 1.3 * one.serving.summary.output_tokens_per_s);
  EXPECT_LT(three.serving.summary.e2e_s.p90, one.serving.summary.e2e_s.p90);
  EXPECT_EQ(three.serving.gpus, 4);
}

TEST(ServeDisaggregated, BestPoolSplitTriesEveryRatioAndPicksTheFewestGpusMeetingTheTargets) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel prefill = model_of(d, 1);
  const IterationModel decode = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  const auto requests =
      generate_arrivals({.rate_per_s = 30, .duration_s = 30, .input_tokens = 256, .output_tokens = 1024}, 5);
  DisaggregatedSetup setup = pools(d, prefill, decode, 1, 1, 1);
  setup.decode.limits.max_sequences = 64;
  setup.targets.ttft_s = 0.5;  // with too few decode instances requests queue for a decode slot
  setup.targets.tpot_s = 0.02;
  const PoolSplit split = best_pool_split(prefill, decode, transfer, requests, setup, 5);
  ASSERT_EQ(split.trials.size(), 4u);  // 1:4, 2:3, 3:2, 4:1
  EXPECT_EQ(split.trials.front().prefill_instances, 1);
  EXPECT_EQ(split.trials.back().decode_instances, 1);
  const PoolSplitTrial& best = split.trials[split.best];
  ASSERT_TRUE(split.meets);
  EXPECT_TRUE(best.summary.meets_targets);
  // This load is decode-bound: the answer puts most instances on decode; 4:1 cannot meet the TTFT target.
  EXPECT_GT(best.decode_instances, best.prefill_instances);
  EXPECT_FALSE(split.trials.back().summary.meets_targets);
  for (const PoolSplitTrial& trial : split.trials) {  // equal GPUs here: the most goodput wins
    if (trial.summary.meets_targets) {
      EXPECT_GE(best.summary.goodput_requests_per_s, trial.summary.goodput_requests_per_s);
    }
  }
}

TEST(ServeDisaggregated, ADecodeEngineAdmitsByItsKvCapacityAndReadsTheKvBeforeComputing) {
  // Fixed 10 ms iterations; each request's KV cache (1000 prompt tokens) takes 50 ms to read.
  const IterationCost fixed = [](const IterationBatch&) { return 0.01; };
  EngineLimits limits{.max_batched_tokens = 8192,
                      .max_sequences = 64,
                      .block_tokens = 16,
                      .kv_capacity_tokens = 16 * 70};  // 70 blocks: one request of 1000 + 10 tokens at a time
  EngineOptions options;
  options.remote_kv_load_s = {0.05, 0.05};
  const ServeRun run = simulate_engine({{0.0, 1000, 10}, {0.0, 1000, 10}}, limits, fixed, options);
  const RequestOutcome& first = run.requests[0];
  const RequestOutcome& second = run.requests[1];
  EXPECT_DOUBLE_EQ(first.kv_load_start_s, 0);
  EXPECT_NEAR(first.first_token_s, 0.05 + 0.01, 1e-12);  // the read, then one iteration for the last token
  EXPECT_NEAR(first.finish_s, 0.05 + 10 * 0.01, 1e-12);
  EXPECT_NEAR(second.kv_load_start_s, first.finish_s, 1e-12)
      << "admitted only when the first one's blocks free";
  EXPECT_NEAR(second.first_token_s, second.kv_load_start_s + 0.05 + 0.01, 1e-12);
  EXPECT_EQ(run.iterations, 20);  // no iteration while only reads are in flight
}

TEST(ServeDisaggregated, WithoutRemoteLoadsTheEngineRunsAsBefore) {
  const IterationCost cost = [](const IterationBatch& b) { return 5e-3 + 1e-6 * b.prefill_tokens; };
  const auto requests =
      generate_arrivals({.rate_per_s = 50, .duration_s = 10, .input_tokens = 1000, .output_tokens = 40}, 3);
  // 128 blocks: two 1000-token prompts (63 blocks each) fit, but cannot both grow to 1040 tokens (65).
  EngineLimits limits{
      .max_batched_tokens = 2048, .max_sequences = 16, .block_tokens = 16, .kv_capacity_tokens = 16 * 128};
  EngineOptions local;
  local.remote_kv_load_s.assign(requests.size(), -1.0);  // every entry "not remote"
  const ServeRun plain = simulate_engine(requests, limits, cost);
  const ServeRun marked = simulate_engine(requests, limits, cost, local);
  ASSERT_EQ(plain.requests.size(), marked.requests.size());
  EXPECT_GT(plain.preemptions, 0) << "the cache is tight enough to exercise preemption";
  EXPECT_EQ(plain.iterations, marked.iterations);
  for (std::size_t k = 0; k < plain.requests.size(); ++k) {
    EXPECT_EQ(plain.requests[k].first_token_s, marked.requests[k].first_token_s);
    EXPECT_EQ(plain.requests[k].finish_s, marked.requests[k].finish_s);
    EXPECT_EQ(marked.requests[k].kv_load_start_s, -1);
  }
}

TEST(ServeDisaggregated, PoolsWithoutInstancesOrATpWiderThanTheDomainAreNamed) {
  EXPECT_EQ(pool_error({1, 8, {}}, "prefill", 8), std::nullopt);
  const auto empty = pool_error({0, 4, {}}, "decode", 8);
  ASSERT_TRUE(empty);
  EXPECT_NE(empty->find("decode pool has no instance"), std::string::npos) << *empty;
  const auto wide = pool_error({1, 16, {}}, "prefill", 8);
  ASSERT_TRUE(wide);
  EXPECT_NE(wide->find("prefill pool's TP 16 does not fit a scale-up domain of 8 GPUs"), std::string::npos)
      << *wide;
}

TEST(ServeDisaggregated, TheSearchedSplitFollowsTheBindingTargetAndMeetsWhereTheExhaustiveOneDoes) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel prefill = model_of(d, 1);
  const IterationModel decode = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  const auto requests =
      generate_arrivals({.rate_per_s = 30, .duration_s = 30, .input_tokens = 256, .output_tokens = 1024}, 5);
  DisaggregatedSetup setup = pools(d, prefill, decode, 1, 1, 1);
  setup.decode.limits.max_sequences = 64;
  setup.targets.ttft_s = 0.5;
  setup.targets.tpot_s = 0.02;
  const PoolSplit every = best_pool_split(prefill, decode, transfer, requests, setup, 8);
  const PoolSplit searched = searched_pool_split(prefill, decode, transfer, requests, setup, 8);
  ASSERT_TRUE(every.meets);
  ASSERT_TRUE(searched.meets);
  EXPECT_LT(searched.trials.size(), every.trials.size()) << "a bisection, not every split";
  const PoolSplitTrial& found = searched.trials[searched.best];
  EXPECT_TRUE(every.trials[static_cast<std::size_t>(found.prefill_instances - 1)].summary.meets_targets);
  EXPECT_GE(found.decode_instances, found.prefill_instances);  // the first meeting split: 4:4 here
  // 7:1 is a bad split of this decode-bound load: it misses, on TTFT (requests wait for a decode slot), so a
  // TTFT miss alone must not send the search to more prefill instances: every step after a miss here goes to
  // more decode instances.
  const PoolSplitTrial& bad = every.trials.back();
  EXPECT_EQ(bad.prefill_instances, 7);
  EXPECT_FALSE(bad.summary.meets_targets);
  EXPECT_TRUE(prompt_side_binds(bad.summary, setup.targets));
  // The bisection starts at 4:4 (of 1..7); going only towards decode, no trial has more prefill instances.
  for (const PoolSplitTrial& trial : searched.trials) EXPECT_LE(trial.prefill_instances, 4);
}

TEST(ServeDisaggregated, ThePromptSideBindsWhenTtftIsFurthestOverItsTarget) {
  ServeSummary s;
  s.ttft_s.p90 = 2.0;  // 4 x its target
  s.tpot_s.p90 = 0.1;  // 2 x its target
  LatencyTargets t;
  t.ttft_s = 0.5;
  t.tpot_s = 0.05;
  EXPECT_TRUE(prompt_side_binds(s, t));
  s.tpot_s.p90 = 0.25;  // 5 x
  EXPECT_FALSE(prompt_side_binds(s, t));
  t.ttft_s.reset();
  EXPECT_FALSE(prompt_side_binds(s, t));
}

TEST(ServeDisaggregated, UnitsRouteWithinThemselvesAndMatchOneUnitPerShareOfTheTraffic) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel model = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  const auto requests =
      generate_arrivals({.rate_per_s = 20, .duration_s = 20, .input_tokens = 1024, .output_tokens = 64}, 9);
  DisaggregatedSetup two = pools(d, model, model, 1, 2, 1);
  two.units = 2;
  const DisaggregatedResult r = simulate_disaggregated(model, model, transfer, requests, two);
  EXPECT_EQ(r.units, 2);
  EXPECT_EQ(r.prefill.instances, 2);
  EXPECT_EQ(r.decode.instances, 4);
  EXPECT_EQ(r.serving.gpus, 6);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const int unit = static_cast<int>(k % 2);
    EXPECT_EQ(r.requests[k].prefill_instance, unit) << k;     // unit u's prefill instance is u
    EXPECT_EQ(r.requests[k].decode_instance / 2, unit) << k;  // and its decode instances 2u, 2u + 1
  }
  // Unit 0 alone on the even requests gives those requests the same times.
  std::vector<ServeRequest> even;
  for (std::size_t k = 0; k < requests.size(); k += 2) even.push_back(requests[k]);
  const DisaggregatedResult one =
      simulate_disaggregated(model, model, transfer, even, pools(d, model, model, 1, 2, 1));
  for (std::size_t i = 0; i < even.size(); ++i)
    EXPECT_NEAR(one.requests[i].first_token_s, r.requests[2 * i].first_token_s, 1e-9) << i;
}

TEST(ServeDisaggregated, TheEngineEfficiencyStretchesEveryIteration) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel model = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  const std::vector<ServeRequest> one{{0.0, 4096, 10}};
  DisaggregatedSetup setup = pools(d, model, model, 1, 1, 1);
  const DisaggregatedResult full = simulate_disaggregated(model, model, transfer, one, setup);
  setup.engine_efficiency = 0.5;
  const DisaggregatedResult half = simulate_disaggregated(model, model, transfer, one, setup);
  EXPECT_NEAR(half.requests[0].prefill_done_s, 2 * full.requests[0].prefill_done_s, 1e-12);
  const double full_decode = full.serving.summary.e2e_s.mean - full.requests[0].kv_ready_s;
  const double half_decode = half.serving.summary.e2e_s.mean - half.requests[0].kv_ready_s;
  EXPECT_NEAR(half_decode, 2 * full_decode, 1e-9);
}

TEST(ServeDisaggregated, APipelinedOrExpertParallelInstanceIsWiderAndPlacedWhole) {
  EXPECT_EQ(pool_error({1, 4, {}, 1, 2}, "prefill", 8), std::nullopt);  // TP 4 x PP 2 fills a domain
  const auto wide = pool_error({1, 4, {}, 2, 2}, "decode", 8);
  ASSERT_TRUE(wide);
  EXPECT_NE(wide->find("decode instance of TP 4 x EP 2 x PP 2 (16 GPUs) does not fit"), std::string::npos)
      << *wide;
  const PoolPlacement p = place_pools(8, {1, 2, {}, 1, 2}, {2, 2, {}, 2, 1});  // 4 GPUs each
  EXPECT_EQ(p.prefill_domain, (std::vector<int>{0}));
  EXPECT_EQ(p.decode_domain, (std::vector<int>{0, 1}));
}

// A closed loop's one client: each request is sent when the last is answered, and with both pools idle its
// latency is the prefill iteration, the KV transfer (NVLink: both TP-1 instances in the first domain), the
// decode instance's recompute of the last prompt token (the first token) and one iteration per other token.
TEST(ServeDisaggregated, OneClientSendsEachRequestWhenTheLastIsAnswered) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel prefill = model_of(d, 1);
  const IterationModel decode = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  constexpr int kInput = 4096;
  constexpr int kOutput = 8;
  const std::vector<ServeRequest> three(3, {0.0, kInput, kOutput});
  DisaggregatedSetup setup = pools(d, prefill, decode, 1, 1, 1);
  setup.concurrency = 1;
  const DisaggregatedResult r = simulate_disaggregated(prefill, decode, transfer, three, setup);
  const double prefill_s = prefill.iteration(kInput, kInput * (kInput + 1) / 2.0, 0, 0).seconds();
  const double transfer_s = transfer.of(kInput, true).seconds;
  double e2e = prefill_s + transfer_s + decode.iteration(1, kInput, 0, 0).seconds();
  const double first_token = e2e;
  for (int g = 1; g < kOutput; ++g) e2e += decode.iteration(0, 0, 1, kInput + g).seconds();
  ASSERT_EQ(r.serving.summary.finished, 3);
  EXPECT_EQ(r.nvlink_transfers, 3);
  for (std::size_t k = 0; k < three.size(); ++k) {
    const RequestTransfer& t = r.requests[k];
    const double sent = static_cast<double>(k) * e2e;
    EXPECT_NEAR(t.sent_s, sent, 1e-9) << k;
    EXPECT_NEAR(t.prefill_done_s, sent + prefill_s, 1e-9) << k;
    EXPECT_NEAR(t.kv_ready_s, sent + prefill_s + transfer_s, 1e-9) << k;
    EXPECT_NEAR(t.first_token_s, sent + first_token, 1e-9) << k;
    EXPECT_NEAR(t.finish_s, sent + e2e, 1e-9) << k;
  }
  EXPECT_NEAR(r.serving.summary.e2e_s.mean, e2e, 1e-9);
  EXPECT_NEAR(r.serving.summary.ttft_s.mean, first_token, 1e-9);
  EXPECT_NEAR(r.serving.summary.requests_per_s, 1 / e2e, 1e-9);
}

// Little's law: two clients keep two requests in flight until the stream runs out (the last one alone), so
// the mean number in flight, sum of latencies over the span, is 2 less at most one latency's share; each
// request after the first two is sent the moment an earlier one is answered.
TEST(ServeDisaggregated, TwoClientsKeepTwoRequestsInFlight) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel model = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  const std::vector<ServeRequest> requests(40, {0.0, 2048, 64});
  DisaggregatedSetup setup = pools(d, model, model, 1, 2, 1);
  setup.concurrency = 2;
  const DisaggregatedResult r = simulate_disaggregated(model, model, transfer, requests, setup);
  ASSERT_EQ(r.serving.summary.finished, 40);
  double latency_sum = 0, last_finish = 0, longest = 0;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const RequestTransfer& t = r.requests[k];
    latency_sum += t.finish_s - t.sent_s;
    longest = std::max(longest, t.finish_s - t.sent_s);
    last_finish = std::max(last_finish, t.finish_s);
    int in_flight = 0;  // when it was sent, counting itself
    for (const RequestTransfer& other : r.requests)
      in_flight += other.sent_s <= t.sent_s && other.finish_s > t.sent_s ? 1 : 0;
    EXPECT_LE(in_flight, 2) << k;
    if (k < 2) {
      EXPECT_EQ(t.sent_s, 0.0);
      continue;
    }
    const bool answered_then = std::any_of(r.requests.begin(), r.requests.begin() + static_cast<long>(k),
                                           [&](const RequestTransfer& o) { return o.finish_s == t.sent_s; });
    EXPECT_TRUE(answered_then) << "request " << k << " sent at " << t.sent_s;
  }
  const double in_flight_mean = latency_sum / last_finish;
  EXPECT_LE(in_flight_mean, 2 + 1e-9);
  EXPECT_GE(in_flight_mean, 2 - longest / last_finish - 1e-9);
  EXPECT_NEAR(r.serving.summary.requests_per_s * r.serving.summary.e2e_s.mean, in_flight_mean, 1e-9);
  // The same stream sent twice gives the same run.
  const DisaggregatedResult again = simulate_disaggregated(model, model, transfer, requests, setup);
  for (std::size_t k = 0; k < requests.size(); ++k)
    EXPECT_EQ(again.requests[k].finish_s, r.requests[k].finish_s);
}

// A prompt longer than the prefill instance's whole cache is refused there; its client has its answer (the
// refusal) and sends the next request at once.
TEST(ServeDisaggregated, AClosedLoopGoesOnPastARefusedRequest) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel model = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  DisaggregatedSetup setup = pools(d, model, model, 1, 1, 1);
  setup.concurrency = 1;
  const int too_long = static_cast<int>(model.kv_capacity_tokens()) + 16;
  const std::vector<ServeRequest> requests{{0.0, too_long, 4}, {0.0, 1024, 4}};
  const DisaggregatedResult r = simulate_disaggregated(model, model, transfer, requests, setup);
  EXPECT_EQ(r.serving.summary.finished, 1);
  EXPECT_EQ(r.prefill.unservable, 1);
  EXPECT_EQ(r.requests[1].sent_s, 0.0);  // refused at once, at time 0
  EXPECT_GT(r.requests[1].finish_s, 0.0);
}

// Five clients on two units of one prefill and two decode instances, prompts and answers of varied lengths:
// until the stream runs out every client has a request in flight (exactly five at each send), never more;
// requests are sent in stream order; the same stream gives the same run, field by field.
TEST(ServeDisaggregated, ClosedLoopClientsAreAllBusyUntilTheStreamRunsOut) {
  const Deployment d = deployment("dgx-h100", "llama3.1-8b");
  const IterationModel model = model_of(d, 1);
  const KvTransferModel transfer(d.hardware, d.collectives, d.model, 1.0, 1, 1);
  constexpr int kClients = 5;
  std::vector<ServeRequest> requests;
  for (int k = 0; k < 60; ++k) requests.push_back({0.0, 256 + (k * 397) % 3000, 8 + (k * 53) % 120});
  DisaggregatedSetup setup = pools(d, model, model, 1, 2, 1);
  setup.units = 2;
  setup.concurrency = kClients;
  const DisaggregatedResult r = simulate_disaggregated(model, model, transfer, requests, setup);
  ASSERT_EQ(r.serving.summary.finished, 60);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const double t = r.requests[k].sent_s;
    if (k > 0) {
      EXPECT_GE(t, r.requests[k - 1].sent_s) << k;
    }
    int in_flight = 0;
    std::size_t last_sent = 0;
    for (std::size_t j = 0; j < requests.size(); ++j) {
      if (r.requests[j].sent_s > t) continue;
      last_sent = std::max(last_sent, j);
      in_flight += r.requests[j].finish_s > t ? 1 : 0;
    }
    if (last_sent + 1 < requests.size()) {
      EXPECT_EQ(in_flight, kClients) << "at request " << k << "'s send, " << t << " s";
    } else {
      EXPECT_LE(in_flight, kClients) << k;
    }
    EXPECT_EQ(r.requests[k].prefill_instance, static_cast<int>(k % 2)) << "unit k mod 2";
    EXPECT_EQ(r.requests[k].decode_instance / 2, static_cast<int>(k % 2)) << "unit k mod 2";
  }
  const DisaggregatedResult again = simulate_disaggregated(model, model, transfer, requests, setup);
  for (std::size_t k = 0; k < requests.size(); ++k) {
    EXPECT_EQ(again.requests[k].sent_s, r.requests[k].sent_s);
    EXPECT_EQ(again.requests[k].decode_instance, r.requests[k].decode_instance);
    EXPECT_EQ(again.requests[k].kv_ready_s, r.requests[k].kv_ready_s);
    EXPECT_EQ(again.requests[k].finish_s, r.requests[k].finish_s);
  }
  EXPECT_EQ(again.serving.summary.ttft_s.p99, r.serving.summary.ttft_s.p99);
  EXPECT_EQ(again.serving.summary.itl_s.p99, r.serving.summary.itl_s.p99);
}

}  // namespace
}  // namespace gputwin
