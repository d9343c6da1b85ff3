#include "gputwin/serve/engine.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "gputwin/serve/serve_summary.hpp"

namespace gputwin {
namespace {

constexpr double kStep = 0.01;  // every iteration takes 10 ms in these tests

EngineLimits roomy() {
  return {.max_batched_tokens = 8192, .max_sequences = 256, .block_tokens = 16, .kv_capacity_tokens = 1e6};
}
const IterationCost kFixed = [](const IterationBatch&) { return kStep; };

TEST(ServeEngine, OneRequestPrefillsThenDecodesOneTokenPerIteration) {
  const ServeRun run = simulate_engine({{0.0, 1000, 5}}, roomy(), kFixed);
  ASSERT_EQ(run.requests.size(), 1u);
  const RequestOutcome& r = run.requests[0];
  EXPECT_DOUBLE_EQ(r.first_token_s, kStep);   // the prefill iteration emits the first token
  EXPECT_NEAR(r.finish_s, 5 * kStep, 1e-12);  // then one token per iteration
  EXPECT_EQ(run.iterations, 5);
  EXPECT_NEAR(r.max_token_gap_s, kStep, 1e-12);
}

TEST(ServeEngine, LongPromptsArePrefilledInChunksOfTheTokenBudget) {
  const ServeRun run = simulate_engine({{0.0, 20000, 2}}, roomy(), kFixed);
  EXPECT_NEAR(run.requests[0].first_token_s, 3 * kStep, 1e-12);  // 8192 + 8192 + 3616
}

TEST(ServeEngine, IterationsCarryPrefillAndDecodeTogether) {
  std::vector<IterationBatch> seen;
  const IterationCost record = [&](const IterationBatch& b) {
    seen.push_back(b);
    return kStep;
  };
  const ServeRun run = simulate_engine({{0.0, 100, 3}, {0.015, 50, 2}}, roomy(), record);
  EXPECT_EQ(run.iterations, static_cast<long long>(seen.size()));
  ASSERT_GE(seen.size(), 2u);
  EXPECT_EQ(seen[0].prefill_tokens, 100);
  EXPECT_EQ(seen[0].decode_sequences, 0);
  EXPECT_DOUBLE_EQ(seen[0].prefill_context_tokens, 100 * 101 / 2.0);  // causal: token k sees k tokens
  // At 20 ms the second request has arrived: its prompt rides with the first one's decode token.
  EXPECT_EQ(seen[2].prefill_tokens, 50);
  EXPECT_EQ(seen[2].decode_sequences, 1);
  EXPECT_DOUBLE_EQ(seen[2].decode_context_tokens, 102);
}

// Where a request's latency went: r1 arrives at 15 ms, mid-iteration, and is first scheduled at 20 ms (5 ms
// waiting to be admitted, then its prompt's iteration); r0's second gap (20-30 ms) is the iteration that
// carried r1's prompt, its first (10-20 ms) a decode-only one.
TEST(ServeEngine, OutcomesSayWhenARequestWasAdmittedAndWhichGapsSharedAPrefill) {
  const ServeRun run = simulate_engine({{0.0, 100, 3}, {0.015, 50, 2}}, roomy(), kFixed);
  const RequestOutcome& r0 = run.requests[0];
  const RequestOutcome& r1 = run.requests[1];
  EXPECT_DOUBLE_EQ(r0.first_scheduled_s, 0.0);
  EXPECT_NEAR(r1.first_scheduled_s, 2 * kStep, 1e-12);
  EXPECT_NEAR(r1.first_token_s, 3 * kStep, 1e-12);
  EXPECT_NEAR(r0.token_gap_sum_s, 2 * kStep, 1e-12);
  EXPECT_NEAR(r0.gap_with_prefill_sum_s, kStep, 1e-12);
  EXPECT_NEAR(r1.token_gap_sum_s, kStep, 1e-12);
  EXPECT_DOUBLE_EQ(r1.gap_with_prefill_sum_s, 0.0);
}

TEST(ServeEngine, AFullCachePreemptsTheLatestRequestAndEveryoneFinishes) {
  EngineLimits tight = roomy();
  tight.kv_capacity_tokens = 16 * 20;  // 20 blocks: two 150-token requests cannot both grow to 190
  const ServeRun run = simulate_engine({{0.0, 150, 40}, {0.0, 150, 40}}, tight, kFixed);
  EXPECT_GT(run.preemptions, 0);
  for (const RequestOutcome& r : run.requests) EXPECT_TRUE(r.finished());
  EXPECT_GT(run.requests[1].preemptions, 0) << "the later admitted request yields";
  EXPECT_EQ(run.requests[0].preemptions, 0);
}

TEST(ServeEngine, ARequestLargerThanTheWholeCacheIsCountedNotRun) {
  EngineLimits tiny = roomy();
  tiny.kv_capacity_tokens = 1000;
  const ServeRun run = simulate_engine({{0.0, 5000, 10}, {0.0, 100, 10}}, tiny, kFixed);
  EXPECT_EQ(run.unservable, 1);
  EXPECT_FALSE(run.requests[0].finished());
  EXPECT_TRUE(run.requests[1].finished());
}

TEST(ServeEngine, TheSequenceLimitQueuesTheRest) {
  EngineLimits one = roomy();
  one.max_sequences = 1;
  const ServeRun run = simulate_engine({{0.0, 10, 3}, {0.0, 10, 3}}, one, kFixed);
  EXPECT_NEAR(run.requests[1].first_token_s, 4 * kStep, 1e-12) << "starts after the first finishes at 30 ms";
}

TEST(ServeEngine, ClosedLoopClientsSendTheNextRequestWhenOneFinishes) {
  EngineOptions closed;
  closed.concurrency = 2;
  const std::vector<ServeRequest> requests(4, {0.0, 10, 3});
  const ServeRun run = simulate_engine(requests, roomy(), kFixed, closed);
  EXPECT_DOUBLE_EQ(run.requests[0].arrival_s, 0);
  EXPECT_DOUBLE_EQ(run.requests[1].arrival_s, 0);
  EXPECT_NEAR(run.requests[2].arrival_s, run.requests[0].finish_s, 1e-12);
  for (const RequestOutcome& r : run.requests) EXPECT_TRUE(r.finished());
}

TEST(ServeEngine, IdleTimeIsSkippedToTheNextArrival) {
  const ServeRun run = simulate_engine({{0.0, 10, 2}, {100.0, 10, 2}}, roomy(), kFixed);
  EXPECT_NEAR(run.requests[1].first_token_s, 100.0 + kStep, 1e-9);
  EXPECT_EQ(run.iterations, 4);
}

TEST(ServeSummary, PercentilesThroughputAndGoodput) {
  std::vector<ServeRequest> requests;
  for (int k = 0; k < 10; ++k) requests.push_back({k * 1.0, 10, 11});
  const ServeRun run = simulate_engine(requests, roomy(), kFixed);
  LatencyTargets targets;
  targets.ttft_s = 0.5;
  const ServeSummary s = summarize(run, targets, 2);
  EXPECT_EQ(s.finished, 10);
  EXPECT_NEAR(s.ttft_s.p50, kStep, 1e-9);
  EXPECT_NEAR(s.tpot_s.mean, kStep, 1e-9);
  EXPECT_NEAR(s.itl_s.p99, kStep, 1.5e-4) << "histogram bins are 0.1 ms";
  EXPECT_NEAR(s.e2e_s.p90, 11 * kStep, 1e-9);
  EXPECT_NEAR(s.span_s, 9.0 + 11 * kStep, 1e-9);
  EXPECT_NEAR(s.output_tokens_per_s, 110 / s.span_s, 1e-9);
  EXPECT_NEAR(s.output_tokens_per_s_per_gpu, s.output_tokens_per_s / 2, 1e-9);
  EXPECT_TRUE(s.meets_targets);
  targets.ttft_s = 0.001;
  EXPECT_FALSE(summarize(run, targets, 2).meets_targets);
  EXPECT_DOUBLE_EQ(summarize(run, targets, 2).goodput_requests_per_s, 0);
}

// The steppable engine is simulate_engine's: fed each request only just before its clock passes the arrival
// (as the disaggregated pools feed it), it gives the same run, through preemptions and remote KV loads.
TEST(ServeEngine, SteppedWithRequestsAddedAsTheyArriveItGivesTheSameRun) {
  EngineLimits tight = roomy();
  tight.kv_capacity_tokens = 16 * 60;  // preempts under this load
  tight.max_batched_tokens = 256;      // and chunks the prompts
  const IterationCost cost = [](const IterationBatch& b) {
    return 1e-3 + 2e-6 * b.prefill_tokens + 1e-4 * b.decode_sequences + 1e-8 * b.decode_context_tokens;
  };
  std::vector<ServeRequest> requests;
  EngineOptions options;
  for (int k = 0; k < 30; ++k) {
    requests.push_back({0.004 * k, 100 + 37 * (k % 7), 5 + 3 * (k % 5)});
    options.remote_kv_load_s.push_back(k % 3 == 0 ? -1.0 : 0.002 * (k % 4));  // most read from a prefill
  }
  const ServeRun whole = simulate_engine(requests, tight, cost, options);
  ASSERT_GT(whole.preemptions, 0);
  ServeEngine engine(tight, cost);
  std::size_t next = 0;
  int settled = 0;
  while (true) {
    const double t = engine.next_step_s();
    if (next < requests.size() && requests[next].arrival_s <= t) {
      engine.add(requests[next], options.remote_kv_load_s[next]);
      ++next;
      continue;
    }
    if (t == std::numeric_limits<double>::infinity()) break;
    engine.step();
    settled += static_cast<int>(engine.take_settled().size());
  }
  const ServeRun& stepped = engine.result();
  EXPECT_EQ(settled, static_cast<int>(requests.size()));
  EXPECT_EQ(stepped.iterations, whole.iterations);
  EXPECT_EQ(stepped.preemptions, whole.preemptions);
  ASSERT_EQ(stepped.requests.size(), whole.requests.size());
  for (std::size_t k = 0; k < requests.size(); ++k) {
    EXPECT_EQ(stepped.requests[k].first_token_s, whole.requests[k].first_token_s) << k;
    EXPECT_EQ(stepped.requests[k].finish_s, whole.requests[k].finish_s) << k;
    EXPECT_EQ(stepped.requests[k].kv_load_start_s, whole.requests[k].kv_load_start_s) << k;
  }
}

// TensorRT-LLM's GUARANTEED_NO_EVICT, worked by hand: 20 blocks of 16 tokens. r0 (150 + 40 = 190 tokens)
// reserves 12 blocks at admission; r1 (200 + 100 = 300 tokens) needs 19, more than the 8 left, so admission
// stops there and r2 (10 + 2, one block), which would fit, waits behind it (first come, first served). r0
// runs alone: its prompt at 0-10 ms, 39 more tokens, done at 400 ms; then 20 blocks are free, r1 takes 19 and
// r2 the last one, both prompts in the iteration of 400-410 ms. Nothing is preempted (vLLM's policy admits r1
// at once on its prompt's blocks, tested above).
TEST(ServeEngine, GuaranteedNoEvictAdmitsOnlyWhatCanFinishInArrivalOrder) {
  EngineLimits tight = roomy();
  tight.kv_capacity_tokens = 16 * 20;
  tight.policy = SchedulerPolicy::trtllm_guaranteed_no_evict;
  const ServeRun run = simulate_engine({{0.0, 150, 40}, {0.0, 200, 100}, {0.0, 10, 2}}, tight, kFixed);
  EXPECT_EQ(run.preemptions, 0);
  const RequestOutcome& r0 = run.requests[0];
  const RequestOutcome& r1 = run.requests[1];
  const RequestOutcome& r2 = run.requests[2];
  EXPECT_NEAR(r0.first_token_s, kStep, 1e-12);
  EXPECT_NEAR(r0.finish_s, 40 * kStep, 1e-9);
  EXPECT_NEAR(r1.first_scheduled_s, 40 * kStep, 1e-9);
  EXPECT_NEAR(r2.first_scheduled_s, 40 * kStep, 1e-9) << "it fitted at 0 but waits behind r1";
  EXPECT_NEAR(r1.first_token_s, 41 * kStep, 1e-9);
  EXPECT_NEAR(r2.finish_s, 42 * kStep, 1e-9);
  EXPECT_NEAR(r1.finish_s, 140 * kStep, 1e-9);
}

// TensorRT-LLM's micro-batch, worked by hand with a 100-token budget and 16-token blocks: r0 (10 in, 3 out)
// and r1 (200 in, 2 out) arrive together. Iteration 1: both prompts, r0's 10 whole, r1's chunk the 90 left
// cut to whole blocks, 80. Iteration 2: r0's decode token first, then r1's chunk of the 99 left, 96.
// Iteration 3: r0's token, r1's last 24 (whole: it ends the prompt), so r1's first token at 30 ms. vLLM's
// scheduler fills the budget instead: prompt tokens 100, then 99 and 11 beside r0's decode token.
TEST(ServeEngine, GuaranteedNoEvictPutsDecodesFirstAndCutsChunksToWholeBlocks) {
  EngineLimits limits = roomy();
  limits.max_batched_tokens = 100;
  limits.policy = SchedulerPolicy::trtllm_guaranteed_no_evict;
  std::vector<IterationBatch> seen;
  const IterationCost record = [&](const IterationBatch& b) {
    seen.push_back(b);
    return kStep;
  };
  const ServeRun run = simulate_engine({{0.0, 10, 3}, {0.0, 200, 2}}, limits, record);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].prefill_tokens, 90);
  EXPECT_EQ(seen[0].decode_sequences, 0);
  EXPECT_EQ(seen[1].prefill_tokens, 96);
  EXPECT_EQ(seen[1].decode_sequences, 1);
  EXPECT_EQ(seen[2].prefill_tokens, 24);
  EXPECT_EQ(seen[2].decode_sequences, 1);
  EXPECT_EQ(seen[3].prefill_tokens, 0);
  EXPECT_EQ(seen[3].decode_sequences, 1);
  EXPECT_NEAR(run.requests[0].finish_s, 3 * kStep, 1e-12);
  EXPECT_NEAR(run.requests[1].first_token_s, 3 * kStep, 1e-12);

  limits.policy = SchedulerPolicy::vllm_v1;
  seen.clear();
  static_cast<void>(simulate_engine({{0.0, 10, 3}, {0.0, 200, 2}}, limits, record));
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen[0].prefill_tokens, 100);
  EXPECT_EQ(seen[1].prefill_tokens, 99);
  EXPECT_EQ(seen[2].prefill_tokens, 11);
}

}  // namespace
}  // namespace gputwin
