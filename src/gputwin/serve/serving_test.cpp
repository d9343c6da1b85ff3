// A deployment's latency under a benchmark's closed loop: what `perf infer` reports as its loaded columns.
#include "gputwin/serve/serving.hpp"

#include <gtest/gtest.h>

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
