// A deployment's latency under a benchmark's closed loop: what `perf infer` reports as its loaded columns.
#include "gputwin/serve/serving.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/serve/requests.hpp"

namespace gputwin {
namespace {

struct Deployment {
  IterationModel model;
  EngineLimits limits;
};

Deployment llama_8b_on_h100() {
  const std::string data = bundled_data_dir() + "/perf/";
  const auto presets = load_model_presets(data + "models.yaml").value();
  InferenceSetup setup;
  setup.model = *find_model(presets, "llama3.1-8b");
  setup.precision = "fp8";
  setup.kv_bytes_per_element = 1;
  setup.input_tokens = 2048;
  setup.output_tokens = 128;
  const PerfHardware hardware = perf_hardware_of_system(testing::bundled_catalog(), "dgx-h100", 1).value();
  auto model = IterationModel::make(hardware, load_collective_model(data + "nccl-cost-model.yaml").value(),
                                    load_inference_constants(data + "inference.yaml").value(), setup)
                   .value();
  const EngineLimits limits =
      engine_limits_for(load_serving_engine_defaults(data + "serving-engine.yaml").value(),
                        hardware.accelerator, model.kv_capacity_tokens());
  return {std::move(model), limits};
}

// One client alone waits only for its own prefill; 64 clients that start together share the prefill token
// budget, so the last of the first wave waits for the prompts ahead of it: TTFT grows with concurrency, and
// by at least the prefill of the prompts that cannot share one iteration.
TEST(ServeClosedLoop, TtftGrowsWithConcurrencyAsPromptsQueueForPrefill) {
  const Deployment d = llama_8b_on_h100();
  const ServeSummary alone = closed_loop_latency(d.model, d.limits, {1, 2048, 128, 4}, 1);
  const ServeSummary crowd = closed_loop_latency(d.model, d.limits, {64, 2048, 128, 4}, 1);
  EXPECT_EQ(alone.finished, 4);
  EXPECT_EQ(crowd.finished, 256);
  const double one_prompt_s = d.model.iteration(2048, 2048.0 * 2049 / 2, 0, 0).seconds();
  EXPECT_NEAR(alone.ttft_s.p50, one_prompt_s, 0.5 * one_prompt_s);
  // 64 prompts of 2,048 tokens are 16 iterations of the 8,192-token budget: the first wave's last prompt
  // waits for (most of) them.
  const int prompts_per_iteration = d.limits.max_batched_tokens / 2048;
  ASSERT_GT(prompts_per_iteration, 0);
  EXPECT_GT(crowd.ttft_s.p99, (64 / prompts_per_iteration - 1) * one_prompt_s);
  EXPECT_GT(crowd.ttft_s.p99, 5 * alone.ttft_s.p99);
  EXPECT_GT(crowd.tpot_s.p50, alone.tpot_s.p50);  // bigger batches, prefill chunks between decodes
  EXPECT_GT(crowd.output_tokens_per_s, 5 * alone.output_tokens_per_s);  // batching pays
}

// More clients than the engine's max_num_seqs wait in its queue rather than run: TTFT includes that wait.
TEST(ServeClosedLoop, ClientsBeyondTheSequenceLimitQueue) {
  Deployment d = llama_8b_on_h100();
  d.limits.max_sequences = 8;
  const ServeSummary limited = closed_loop_latency(d.model, d.limits, {32, 2048, 128, 2}, 1);
  d.limits.max_sequences = 1024;
  const ServeSummary open = closed_loop_latency(d.model, d.limits, {32, 2048, 128, 2}, 1);
  EXPECT_EQ(limited.finished, 64);
  EXPECT_GT(limited.ttft_s.p99, 2 * open.ttft_s.p99);
  EXPECT_LT(limited.tpot_s.p50, open.tpot_s.p50);  // smaller batches decode faster per token
}

TEST(ServeGiveUp, AnOverloadedRunStopsOnceItCannotMeetTheTargetsAndAMeetingOneIsUnchanged) {
  const Deployment d = llama_8b_on_h100();
  const auto requests =
      generate_arrivals({.rate_per_s = 200, .duration_s = 20, .input_tokens = 2048, .output_tokens = 128}, 4);
  ServingSetup setup;
  setup.replicas = 2;
  setup.limits = d.limits;
  setup.targets.ttft_s = 0.3;
  setup.targets.tpot_s = 0.03;
  const ServingResult whole = simulate_serving(d.model, requests, setup);
  setup.give_up_when_missed = true;
  const ServingResult quick = simulate_serving(d.model, requests, setup);
  ASSERT_FALSE(whole.summary.meets_targets);
  EXPECT_TRUE(quick.gave_up);
  EXPECT_FALSE(quick.summary.meets_targets);
  EXPECT_LT(quick.iterations, whole.iterations / 2) << "it stopped early";
  // 20 replicas carry the load: giving up never triggers and the summary is the whole run's, exactly.
  setup.replicas = 20;
  setup.give_up_when_missed = false;
  const ServingResult met = simulate_serving(d.model, requests, setup);
  setup.give_up_when_missed = true;
  const ServingResult met_quick = simulate_serving(d.model, requests, setup);
  ASSERT_TRUE(met.summary.meets_targets);
  EXPECT_FALSE(met_quick.gave_up);
  EXPECT_EQ(met_quick.iterations, met.iterations);
  EXPECT_EQ(met_quick.summary.ttft_s.p90, met.summary.ttft_s.p90);
  EXPECT_EQ(met_quick.summary.share_meeting_targets, met.summary.share_meeting_targets);
}

TEST(ServeGiveUp, TheMissesAllowedAreExactlyWhatTheSummarysRuleAllows) {
  LatencyTargets t;
  t.percentile = 0.9;
  EXPECT_EQ(misses_allowed(100, t), 10);  // 90 of 100 meet: 0.9 >= 0.9
  EXPECT_EQ(misses_allowed(99, t), 9);    // 90 of 99 meet; 89 of 99 (0.899) do not
  t.percentile = 0.99;
  EXPECT_EQ(misses_allowed(50, t), 0);
  t.percentile = 1.0;
  EXPECT_EQ(misses_allowed(1000, t), 0);
}

// NVIDIA's MLPerf LLM harness deals each request to the instance with the fewest requests in flight
// (Dealing::least_in_flight), not round-robin. Hand-worked on two replicas that each run one sequence at a
// time: r0 (50 output tokens) goes to replica 0, r1 (1 token) to replica 1 and is answered by its prefill at
// 1 ms + p (p: one 100-token prompt's iteration); r2 arrives 1 ms later. Round-robin sends it to replica 0,
// behind r0's 49 decode iterations; least-in-flight sees replica 1 idle (0 in flight against 1) and answers
// it in one prefill iteration.
TEST(ServeDealing, LeastInFlightSendsARequestToTheIdleReplicaWhereRoundRobinQueuesIt) {
  Deployment d = llama_8b_on_h100();
  d.limits.max_sequences = 1;
  const double p = d.model.iteration(100, 100.0 * 101 / 2, 0, 0).seconds();
  const double r2_arrival = 0.001 + p + 0.001;
  const std::vector<ServeRequest> requests = {{0.0, 100, 50}, {0.001, 100, 1}, {r2_arrival, 100, 1}};
  ServingSetup setup;
  setup.replicas = 2;
  setup.limits = d.limits;
  setup.keep_requests = true;
  const ServingResult round_robin = simulate_serving(d.model, requests, setup);
  setup.dealing = Dealing::least_in_flight;
  const ServingResult least = simulate_serving(d.model, requests, setup);
  ASSERT_EQ(least.requests.size(), 3u);
  ASSERT_EQ(round_robin.requests.size(), 3u);
  // Least in flight: r2 is prefilled at once on replica 1.
  EXPECT_NEAR(least.requests[2].first_token_s - r2_arrival, p, 1e-12);
  // Round-robin: r2 waits for r0 to finish on replica 0, then its own prefill.
  const RequestOutcome& r0 = round_robin.requests[0];
  EXPECT_NEAR(round_robin.requests[2].first_token_s - r2_arrival, r0.finish_s - r2_arrival + p, 1e-12);
  const double decode = d.model.iteration(0, 0, 1, 101).seconds();
  EXPECT_GT(round_robin.requests[2].first_token_s - r2_arrival, 40 * decode);
  // r0 and r1 are dealt alike by both rules (replica 0, then the emptier replica 1), so they run the same.
  EXPECT_DOUBLE_EQ(least.requests[0].finish_s, r0.finish_s);
  EXPECT_DOUBLE_EQ(least.requests[1].finish_s, round_robin.requests[1].finish_s);
  EXPECT_EQ(least.summary.finished, 3);
}

// A request still running (or queued) counts as in flight until its answer: with both replicas busy, the
// one with fewer requests sent and unanswered gets the next, ties to the lowest index.
TEST(ServeDealing, InFlightCountsQueuedRequestsAndTiesGoToTheLowestIndex) {
  Deployment d = llama_8b_on_h100();
  d.limits.max_sequences = 1;
  // r0 -> 0, r1 -> 1 (0 vs 1 in flight), r2 -> 0 (tie 1:1, lowest index), r3 -> 1 (2:1): every request
  // long, none answered before the last arrives.
  const std::vector<ServeRequest> requests = {
      {0.0, 100, 40}, {0.0001, 100, 40}, {0.0002, 100, 40}, {0.0003, 100, 40}};
  ServingSetup setup;
  setup.replicas = 2;
  setup.limits = d.limits;
  setup.keep_requests = true;
  setup.dealing = Dealing::least_in_flight;
  const ServingResult least = simulate_serving(d.model, requests, setup);
  setup.dealing = Dealing::round_robin;
  const ServingResult round_robin = simulate_serving(d.model, requests, setup);
  // The same dealing as round-robin here (0, 1, 0, 1), so the same outcomes, exactly.
  for (std::size_t k = 0; k < requests.size(); ++k) {
    EXPECT_DOUBLE_EQ(least.requests[k].first_token_s, round_robin.requests[k].first_token_s) << k;
    EXPECT_DOUBLE_EQ(least.requests[k].finish_s, round_robin.requests[k].finish_s) << k;
  }
  // r2 queued behind r0 on replica 0: its first token comes after r0's last.
  EXPECT_GT(least.requests[2].first_token_s, least.requests[0].finish_s);
}

// The dealer runs every request to its end; an option it would drop is refused, naming it, never ignored.
TEST(ServeDealing, LeastInFlightRefusesTheOptionsItDoesNotRun) {
  const Deployment d = llama_8b_on_h100();
  const std::vector<ServeRequest> requests = {{0.0, 100, 4}, {0.1, 100, 4}};
  ServingSetup setup;
  setup.replicas = 2;
  setup.limits = d.limits;
  setup.dealing = Dealing::least_in_flight;
  EXPECT_NO_THROW((void)simulate_serving(d.model, requests, setup));
  setup.options.horizon_s = 1;
  try {
    (void)simulate_serving(d.model, requests, setup);
    ADD_FAILURE() << "a horizon under least-in-flight dealing ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("horizon_s"), std::string::npos) << e.what();
  }
  setup.options.horizon_s = 0;
  setup.give_up_when_missed = true;  // with a target to miss
  setup.targets.ttft_s = 1.0;
  EXPECT_THROW((void)simulate_serving(d.model, requests, setup), std::invalid_argument);
  setup.dealing = Dealing::round_robin;  // round-robin runs it
  EXPECT_NO_THROW((void)simulate_serving(d.model, requests, setup));
}

// The summary counts the finished requests over each set target, one latency at a time (what MLPerf
// LoadGen's early stopping counts): hand-made outcomes, TTFT 0.1/0.3/0.6 s, TPOT 10/40/20 ms, one unfinished.
TEST(ServeSummaryCounts, RequestsOverEachTargetAreCountedSeparately) {
  ServeRun run;
  const auto outcome = [](double first_token_s, double tpot_s) {
    RequestOutcome r;
    r.arrival_s = 0;
    r.first_token_s = first_token_s;
    r.output_tokens = 11;
    r.finish_s = first_token_s + 10 * tpot_s;
    return r;
  };
  run.requests = {outcome(0.1, 0.010), outcome(0.3, 0.040), outcome(0.6, 0.020), RequestOutcome{}};
  LatencyTargets targets;
  EXPECT_EQ(summarize(run, targets, 1).ttft_over_target, 0);  // no target set: nothing counted
  targets.ttft_s = 0.25;
  targets.tpot_s = 0.030;
  const ServeSummary s = summarize(run, targets, 1);
  EXPECT_EQ(s.finished, 3);
  EXPECT_EQ(s.ttft_over_target, 2);  // 0.3 and 0.6 s
  EXPECT_EQ(s.tpot_over_target, 1);  // 40 ms
  targets.ttft_s = 0.6;              // "over" is strictly over, as LoadGen's count
  EXPECT_EQ(summarize(run, targets, 1).ttft_over_target, 0);
}

}  // namespace
}  // namespace gputwin
