// The communication cache of perf/inference's IterationModel, checked where it matters: on the iterations and
// the simulations serving runs (the perf test binary would build perf's whole test suite for one test).
#include <gtest/gtest.h>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/perf/inference.hpp"
#include "gputwin/serve/requests.hpp"
#include "gputwin/serve/serve_test_support.hpp"
#include "gputwin/serve/serving.hpp"

namespace gputwin {
namespace {

InferenceSetup setup_of(const CapacityInputs& inputs, int tp, int ep, int pp) {
  InferenceSetup setup{inputs.model, tp, "fp8", 1, 1024, 128, ep};
  setup.pp = pp;
  return setup;
}

// The cache only remembers what the collective model computes: iterations timed with it equal those timed
// afresh, bit for bit, on TP all-reduces, EP all-to-alls and PP sends, for whole and fractional token counts,
// first and repeated.
TEST(IterationModelCache, CachedIterationsEqualFreshOnesExactly) {
  const CapacityInputs dense = testing::capacity_inputs_for("llama3.1-70b");
  const CapacityInputs moe = testing::capacity_inputs_for("mixtral-8x7b");
  const PerfHardware two_nodes = perf_hardware_of_system(dense.catalog, "dgx-h100", 2).value();
  const std::vector<std::pair<const CapacityInputs*, InferenceSetup>> setups{
      {&dense, setup_of(dense, 4, 1, 1)}, {&moe, setup_of(moe, 2, 2, 1)}, {&dense, setup_of(dense, 8, 1, 2)}};
  for (const auto& [inputs, setup] : setups) {
    const auto cached = IterationModel::make(two_nodes, inputs->collectives, inputs->constants, setup);
    const auto fresh = IterationModel::make(two_nodes, inputs->collectives, inputs->constants, setup, false);
    ASSERT_TRUE(cached.ok()) << cached.error_text();
    ASSERT_TRUE(fresh.ok()) << fresh.error_text();
    int communicating = 0;
    for (int round = 0; round < 2; ++round) {
      for (const double prefill : {0.0, 1.0, 511.0, 512.5, 2048.0, 8191.0, 70000.0}) {
        for (const int decode : {0, 1, 7, 256}) {
          const StepTime a = cached.value().iteration(prefill, prefill * 300, decode, decode * 1500.0);
          const StepTime b = fresh.value().iteration(prefill, prefill * 300, decode, decode * 1500.0);
          EXPECT_EQ(a.communication_s, b.communication_s)
              << setup.model.name << " " << prefill << " " << decode;
          EXPECT_EQ(a.seconds(), b.seconds()) << setup.model.name << " " << prefill << " " << decode;
          if (a.communication_s > 0) ++communicating;
        }
      }
    }
    EXPECT_GT(communicating, 40) << setup.model.name << ": the collectives were exercised";
  }
}

// A whole serving simulation gives the same latencies, to the last bit, with the cache as without it.
TEST(IterationModelCache, ASimulationIsIdenticalWithAndWithoutTheCache) {
  const CapacityInputs moe = testing::capacity_inputs_for("mixtral-8x7b");
  const PerfHardware node = perf_hardware_of_system(moe.catalog, "dgx-h100", 1).value();
  const InferenceSetup setup = setup_of(moe, 2, 2, 1);
  const auto cached = IterationModel::make(node, moe.collectives, moe.constants, setup).value();
  const auto fresh = IterationModel::make(node, moe.collectives, moe.constants, setup, false).value();
  ServingSetup serving;
  serving.gpus_per_replica = 4;
  serving.limits = engine_limits_for(moe.engine, node.accelerator, cached.kv_capacity_tokens());
  const auto requests =
      generate_arrivals({.rate_per_s = 30, .duration_s = 20, .input_tokens = 1500, .output_tokens = 100}, 5);
  const ServeSummary a = simulate_serving(cached, requests, serving).summary;
  const ServeSummary b = simulate_serving(fresh, requests, serving).summary;
  ASSERT_EQ(a.finished, static_cast<int>(requests.size()));
  const std::vector<std::pair<LatencyStats, LatencyStats>> pairs{
      {a.ttft_s, b.ttft_s}, {a.tpot_s, b.tpot_s}, {a.e2e_s, b.e2e_s}};
  for (const auto& [x, y] : pairs) {
    EXPECT_EQ(x.mean, y.mean);
    EXPECT_EQ(x.p50, y.p50);
    EXPECT_EQ(x.p99, y.p99);
  }
  EXPECT_EQ(a.span_s, b.span_s);
  EXPECT_EQ(a.output_tokens_per_s, b.output_tokens_per_s);
}

}  // namespace
}  // namespace gputwin
