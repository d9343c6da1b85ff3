#include "gputwin/serve/serve_scenario.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>

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

// --systems: "all" is every catalog system with GPUs, a rack-scale id its compute tray, each once.
TEST(ServeScenario, SearchedSystemsTakeAllAndRackScaleIds) {
  const Catalog& catalog = testing::bundled_catalog();
  const auto all = searched_systems(catalog, {"all"});
  ASSERT_TRUE(all.ok()) << all.error_text();
  int with_gpus = 0;
  for (const System& system : catalog.all<System>()) with_gpus += system.accelerators > 0 ? 1 : 0;
  EXPECT_EQ(static_cast<int>(all.value().size()), with_gpus);
  EXPECT_NE(std::find(all.value().begin(), all.value().end(), "gb200-nvl72-tray"), all.value().end());
  EXPECT_EQ(std::find(all.value().begin(), all.value().end(), "mgmt-server-2s"), all.value().end());
  const auto rack = searched_systems(catalog, {"gb200-nvl72", "dgx-h100", "gb200-nvl72-tray"});
  ASSERT_TRUE(rack.ok());
  EXPECT_EQ(rack.value(), (std::vector<std::string>{"gb200-nvl72-tray", "dgx-h100"}));
  const auto cpu = searched_systems(catalog, {"mgmt-server-2s"});
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.error_text().find("has no GPUs"), std::string::npos) << cpu.error_text();
}

// Drawn lengths: generated arrivals keep their times and say which distributions they come from; a trace
// carries its own lengths, so a distribution beside it is refused.
TEST(ServeScenario, TrafficDrawsLengthsFromTheGivenDistributions) {
  TrafficSpec open;
  open.arrivals = {.rate_per_s = 5, .duration_s = 60};
  open.seed = 4;
  open.input_lengths = parse_length_distribution("uniform:100,200").value();
  const auto traffic = make_traffic(open);
  ASSERT_TRUE(traffic.ok()) << traffic.error_text();
  const auto times = generate_arrivals(open.arrivals, 4);
  ASSERT_EQ(traffic.value().requests.size(), times.size());
  bool varied = false;
  for (const ServeRequest& r : traffic.value().requests) {
    EXPECT_GE(r.input_tokens, 100);
    EXPECT_LE(r.input_tokens, 200);
    EXPECT_EQ(r.output_tokens, 128);
    varied = varied || r.input_tokens != traffic.value().requests.front().input_tokens;
  }
  EXPECT_TRUE(varied);
  EXPECT_NE(traffic.value().description.find("input tokens uniform 100..200, output tokens 128"),
            std::string::npos)
      << traffic.value().description;
  TrafficSpec trace = open;
  trace.trace = "/any/trace.csv";
  const auto refused = make_traffic(trace);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error_text().find("a trace carries its own lengths"), std::string::npos);
}

// The one refusal the CLI also asks before loading anything: any length distribution beside a trace (input
// or output), naming both options; a trace with fixed lengths, or a distribution without a trace, passes.
TEST(ServeScenario, TraceWithALengthDistributionIsRefusedNamingTheOptions) {
  TrafficSpec spec;
  spec.arrivals = {.rate_per_s = 5, .duration_s = 60};
  spec.output_lengths = parse_length_distribution("lognormal:200,1").value();
  EXPECT_FALSE(traffic_refusal(spec).has_value());  // no trace
  spec.trace = "/any/trace.csv";
  const auto refusal = traffic_refusal(spec);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->field, "--input-tokens/--output-tokens");
  EXPECT_EQ(refusal->message, "a trace carries its own lengths: give no length distribution with --trace");
  spec.output_lengths = LengthDistribution::fixed_at(300);  // fixed lengths are the deployment's, not drawn
  EXPECT_FALSE(traffic_refusal(spec).has_value());
}

// Lengths come from a stream of their own: drawing them leaves the arrival times byte for byte as with fixed
// lengths at the same seed, and the first requests' lengths do not depend on how many gaps the arrivals drew
// (another rate, another gap CV, or closed-loop clients that draw none). A shared stream, continued after the
// arrivals or interleaved with them, fails one or the other.
TEST(ServeScenario, DrawnLengthsAndArrivalsDoNotShareARandomStream) {
  TrafficSpec fixed;
  fixed.arrivals = {.rate_per_s = 20, .duration_s = 50, .gap_cv = 1.5};
  fixed.seed = 11;
  TrafficSpec drawn = fixed;
  drawn.input_lengths = parse_length_distribution("uniform:1,4096").value();
  drawn.output_lengths = parse_length_distribution("lognormal:200,1").value();
  const auto times_fixed = make_traffic(fixed);
  const auto times_drawn = make_traffic(drawn);
  ASSERT_TRUE(times_fixed.ok() && times_drawn.ok());
  const auto& a = times_fixed.value().requests;
  const auto& b = times_drawn.value().requests;
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 500u);
  for (std::size_t k = 0; k < a.size(); ++k)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a[k].arrival_s), std::bit_cast<std::uint64_t>(b[k].arrival_s))
        << k;

  TrafficSpec faster = drawn;
  faster.arrivals.rate_per_s = 200;
  faster.arrivals.gap_cv = 1;
  TrafficSpec clients = drawn;
  clients.concurrency = 4;
  clients.requests = 100;
  const auto other = make_traffic(faster);
  const auto closed = make_traffic(clients);
  ASSERT_TRUE(other.ok() && closed.ok());
  ASSERT_EQ(closed.value().requests.size(), 100u);
  int varied = 0;
  for (std::size_t k = 0; k < 100; ++k) {
    EXPECT_EQ(other.value().requests[k].input_tokens, b[k].input_tokens) << k;
    EXPECT_EQ(other.value().requests[k].output_tokens, b[k].output_tokens) << k;
    EXPECT_EQ(closed.value().requests[k].input_tokens, b[k].input_tokens) << k;
    EXPECT_EQ(closed.value().requests[k].output_tokens, b[k].output_tokens) << k;
    varied += b[k].input_tokens != b[0].input_tokens ? 1 : 0;
  }
  EXPECT_GT(varied, 90);  // the lengths are drawn, not the fixed ones
}

// --- issue 16 leftovers item 4: --pp and --engine ---

TEST(ServeEngineChoice, TheDefaultIsThePerfModelsOwnTimingAndAGenerationBringsItsFittedEfficiency) {
  const auto defaults =
      load_serving_engine_defaults(bundled_data_dir() + "/perf/serving-engine.yaml").value();
  const auto generations =
      load_engine_generations(bundled_data_dir() + "/perf/serving-engine-generations.yaml").value();
  ASSERT_FALSE(generations.empty());
  const auto own = engine_choice(defaults, generations, "");
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own.value().efficiency, 1.0);
  EXPECT_NE(own.value().text.find("efficiency 1 (the perf model's own timing"), std::string::npos)
      << own.value().text;
  const EngineGeneration& last = generations.back();
  const auto fitted = engine_choice(defaults, generations, last.id);
  ASSERT_TRUE(fitted.ok());
  EXPECT_EQ(fitted.value().efficiency, last.efficiency);
  EXPECT_NE(fitted.value().text.find(last.id), std::string::npos) << fitted.value().text;
  const auto unknown = engine_choice(defaults, generations, "tgi-9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error_text().find(generations.front().id), std::string::npos) << unknown.error_text();
}

TEST(ServePipeline, APipelinedReplicaIsOneEnginePerStageWithItsShareOfTheKvCache) {
  ServingSetup setup;
  setup.replicas = 3;
  setup.gpus_per_replica = 8;
  setup.limits.kv_capacity_tokens = 90000;
  const ServingSetup same = pipelined(setup, 1);
  EXPECT_EQ(same.replicas, 3);
  EXPECT_EQ(same.limits.kv_capacity_tokens, 90000);
  const ServingSetup piped = pipelined(setup, 3);
  EXPECT_EQ(piped.replicas, 9);
  EXPECT_EQ(piped.gpus_per_replica, 8);
  EXPECT_EQ(piped.limits.kv_capacity_tokens, 30000);
}

// PP 2 halves what a GPU holds of Llama 3.1 70B's 80 layers (40 per stage) and adds one send of the batch's
// activations (1/TP of them per rank, 16-bit) to a batch's time, over the GPUs of the two stages; the
// compute and the memory traffic of a batch are the whole model's either way.
TEST(ServePipeline, PpChangesTheMemoryAndTheIterationTimeAsTheModelSays) {
  const CapacityInputs inputs = testing::capacity_inputs_for("llama3.1-70b");
  const PerfHardware two_nodes = perf_hardware_of_system(inputs.catalog, "dgx-h100", 2).value();
  InferenceSetup one{inputs.model, 8, "fp8", 1, 1024, 128};
  InferenceSetup two = one;
  two.pp = 2;
  const auto flat = IterationModel::make(two_nodes, inputs.collectives, inputs.constants, one).value();
  const auto piped = IterationModel::make(two_nodes, inputs.collectives, inputs.constants, two).value();
  const double stage_share = ((inputs.model.layers + 1) / 2) / static_cast<double>(inputs.model.layers);
  EXPECT_NEAR(piped.steady_state().weight_bytes_per_gpu,
              flat.steady_state().weight_bytes_per_gpu * stage_share,
              1e-6 * flat.steady_state().weight_bytes_per_gpu);
  EXPECT_NEAR(piped.steady_state().kv_bytes_per_token_per_gpu,
              flat.steady_state().kv_bytes_per_token_per_gpu * stage_share, 1e-9);
  EXPECT_GT(piped.kv_capacity_tokens(), flat.kv_capacity_tokens());  // half the weights leave more room

  const double tokens = 2048;
  const StepTime a = flat.iteration(tokens, tokens * 512, 0, 0);
  const StepTime b = piped.iteration(tokens, tokens * 512, 0, 0);
  EXPECT_DOUBLE_EQ(b.compute_s, a.compute_s);
  EXPECT_NEAR(b.memory_s, a.memory_s, 1e-9 * a.memory_s);
  const double hidden_bytes = tokens * inputs.model.hidden * 2 / one.tp;
  const double send_s =
      estimate_collective(two_nodes, inputs.collectives, CollectiveOp::sendrecv,
                          ByteSize::from_base(hidden_bytes), consecutive_group(two_nodes, 16))
          .time_us *
      1e-6;
  EXPECT_GT(send_s, 0);
  EXPECT_NEAR(b.communication_s - a.communication_s, send_s, 1e-12);
}

}  // namespace
}  // namespace gputwin
