#include "gputwin/serve/serve_scenario.hpp"

#include <gtest/gtest.h>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/serve/serve_test_support.hpp"

namespace gputwin {
namespace {

// Closed-loop clients send 10 requests each unless told, each of the deployment's lengths; generated
// arrivals say how they came.
TEST(ServeScenario, TrafficIsTheClientsOrTheArrivalsAsGiven) {
  TrafficSpec closed;
  closed.concurrency = 3;
  closed.arrivals.input_tokens = 512;
  closed.arrivals.output_tokens = 64;
  const auto clients = make_traffic(closed);
  ASSERT_TRUE(clients.ok()) << clients.error_text();
  ASSERT_EQ(clients.value().requests.size(), 30u);
  EXPECT_EQ(clients.value().requests.back().input_tokens, 512);
  EXPECT_EQ(clients.value().description, "closed loop: 3 clients, 30 requests of 512 in / 64 out tokens");

  TrafficSpec open;
  open.arrivals = {.rate_per_s = 4, .duration_s = 100, .gap_cv = 2, .input_tokens = 8, .output_tokens = 8};
  open.seed = 7;
  const auto arrivals = make_traffic(open);
  ASSERT_TRUE(arrivals.ok());
  EXPECT_EQ(arrivals.value().requests.size(), generate_arrivals(open.arrivals, 7).size());
  EXPECT_EQ(arrivals.value().description.rfind("bursty at 4 req/s for 100 s (gap CV 2, seed 7)", 0), 0u)
      << arrivals.value().description;
}

TEST(ServeScenario, AnUnreadableTraceIsAnErrorNamingTheFile) {
  TrafficSpec spec;
  spec.trace = "/nonexistent/trace.csv";
  const auto traffic = make_traffic(spec);
  ASSERT_FALSE(traffic.ok());
  EXPECT_NE(traffic.error_text().find("/nonexistent/trace.csv"), std::string::npos) << traffic.error_text();
}

TEST(ServeScenario, OverridesReplaceOnlyTheLimitsGiven) {
  const auto defaults =
      load_serving_engine_defaults(bundled_data_dir() + "/perf/serving-engine.yaml").value();
  const Accelerator& gpu = *testing::bundled_catalog().find<Accelerator>("h100-sxm");
  const EngineLimits own = engine_limits_for(defaults, gpu, 1000);
  const EngineLimits mixed =
      engine_limits_with(defaults, gpu, 1000, {.max_sequences = own.max_sequences + 5});
  EXPECT_EQ(mixed.max_sequences, own.max_sequences + 5);
  EXPECT_EQ(mixed.max_batched_tokens, own.max_batched_tokens);
  EXPECT_EQ(mixed.block_tokens, own.block_tokens);
  EXPECT_EQ(mixed.kv_capacity_tokens, 1000);
}

// Pools placed over two domains of a DGX H100 ask for two nodes; one domain still gets two (the NICs' path).
TEST(ServeScenario, TransferHardwareSpansTheDomainsThePoolsFill) {
  const Catalog& catalog = testing::bundled_catalog();
  const PerfHardware node = perf_hardware_of_system(catalog, "dgx-h100", 1).value();
  const PoolPlacement two = place_pools(8, {1, 8, {}}, {1, 8, {}});
  const PoolPlacement one = place_pools(8, {1, 4, {}}, {1, 4, {}});
  EXPECT_EQ(domains_filled(two), 2);
  EXPECT_EQ(domains_filled(one), 1);
  EXPECT_EQ(system_transfer_hardware(catalog, "dgx-h100", node, two).value().gpus(), 16);
  EXPECT_EQ(system_transfer_hardware(catalog, "dgx-h100", node, one).value().gpus(), 16);
}

// A disaggregated run's pools get the engine's limits for their own model's KV capacity.
TEST(ServeScenario, DisaggregatedPoolsGetTheirModelsKvCapacity) {
  const Catalog& catalog = testing::bundled_catalog();
  const CapacityInputs capacity = testing::capacity_inputs_for("llama3.1-70b");
  const PerfHardware node = perf_hardware_of_system(catalog, "dgx-h100", 1).value();
  InferenceSetup setup{capacity.model, 4, "fp8", 1, 1024, 128};
  DisaggregatedSetup pools;
  pools.prefill = {1, 2, {}};
  pools.decode = {1, 4, {}};
  const auto run = make_disaggregated_run({node, capacity.collectives, capacity.constants, setup}, pools,
                                          capacity.engine, {.block_tokens = 32});
  ASSERT_TRUE(run.ok()) << run.error_text();
  EXPECT_EQ(run.value().pools.prefill.limits.kv_capacity_tokens, run.value().prefill.kv_capacity_tokens());
  EXPECT_EQ(run.value().pools.decode.limits.kv_capacity_tokens, run.value().decode.kv_capacity_tokens());
  EXPECT_GT(run.value().decode.kv_capacity_tokens(), run.value().prefill.kv_capacity_tokens());
  EXPECT_EQ(run.value().pools.decode.limits.block_tokens, 32);

  pools.prefill.tp = 1;  // 70B FP8 does not fit one H100: the model's refusal comes back
  EXPECT_FALSE(make_disaggregated_run({node, capacity.collectives, capacity.constants, setup}, pools,
                                      capacity.engine, {})
                   .ok());
}

TEST(ServeScenario, TheSearchTakesFixedLimitsThenTheListedOnesAndRefusesUnknownSystems) {
  const CapacityInputs base = testing::capacity_inputs_for("llama3.1-8b");
  const PerfHardware node = perf_hardware_of_system(base.catalog, "dgx-h100", 1).value();
  InferenceSetup setup{base.model, 1, "fp8", 1, 1024, 128};
  SearchSpec spec;
  spec.fixed_limits.max_sequences = 64;
  spec.batch_limits = {{4096, 512}};
  spec.max_domains = 2;
  const CapacityInputs capacity =
      capacity_inputs(base.catalog, {node, base.collectives, base.constants, setup}, base.engine, spec);
  const EngineLimits own = engine_limits_for(base.engine, node.accelerator, 0);
  EXPECT_EQ(capacity.batch_limits, (std::vector<BatchLimits>{{own.max_batched_tokens, 64}, {4096, 512}}));
  EXPECT_EQ(capacity.max_domains, 2);

  const auto both = candidates_on(capacity, {"dgx-h100", "dgx-b200"});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both.value().size(),
            candidates_for(capacity, "dgx-h100").size() + candidates_for(capacity, "dgx-b200").size());
  const auto unknown = candidates_on(capacity, {"dgx-h100", "no-such-box"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error_text().find("no system 'no-such-box'"), std::string::npos) << unknown.error_text();
}

}  // namespace
}  // namespace gputwin
