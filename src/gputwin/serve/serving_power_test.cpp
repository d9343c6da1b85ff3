#include "gputwin/serve/serving_power.hpp"

#include <gtest/gtest.h>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/serve/requests.hpp"

namespace gputwin {
namespace {

struct Capped {
  PerfHardware hardware;
  PowerOperatingPoint point;
};

Capped h100_at(std::optional<Power> cap) {
  const PerfHardware hardware = perf_hardware_of_system(testing::bundled_catalog(), "dgx-h100", 1).value();
  const auto data = load_power_model(bundled_data_dir() + "/power/power-model.yaml").value();
  const PowerOperatingPoint point = power_operating_point(data, hardware.accelerator, cap).value();
  return {capped_hardware(hardware, point), point};
}

IterationModel llama8b_on(const PerfHardware& hardware) {
  const std::string data = bundled_data_dir() + "/perf/";
  const auto presets = load_model_presets(data + "models.yaml").value();
  const InferenceSetup setup{*find_model(presets, "llama3.1-8b"), 1, "fp8", 1.0, 1024, 128, 1};
  return IterationModel::make(hardware, load_collective_model(data + "nccl-cost-model.yaml").value(),
                              load_inference_constants(data + "inference.yaml").value(), setup)
      .value();
}

const NodePower kNode{8, Power::from_base(2000), "test", 4, "test"};

TEST(ServingPower, EnergyIsEachPhaseAtItsDrawAndIdleBetweenIterations) {
  const Capped h100 = h100_at(std::nullopt);
  BusySeconds busy;
  busy.compute = 20;  // two GPUs: 10 s compute-bound, 30 s memory-bound, 5 s communication each
  busy.memory = 60;
  busy.communication = 10;
  ServeSummary summary;
  summary.span_s = 100;
  summary.finished = 50;
  summary.output_tokens_per_s = 10;
  const ServingEnergy e = serving_energy(busy, 2, 100, summary, h100.point, kNode);
  const PhaseDraw& d = h100.point.draw;
  const double per_gpu_j = 10 * d.compute.base() + 30 * d.memory.base() + 5 * d.communication.base() +
                           55 * d.idle.base();  // 45 s busy of 100
  EXPECT_NEAR(e.energy.gpu_energy_j, 2 * per_gpu_j, 1e-6);
  EXPECT_NEAR(e.energy.energy_j, 2 * per_gpu_j + 2000 * 1 * 100, 1e-6);  // one node's non-GPU power
  EXPECT_NEAR(e.energy.gpu_average.base(), per_gpu_j / 100, 1e-9);
  EXPECT_DOUBLE_EQ(e.energy.gpu_peak.base(), d.compute.base());
  EXPECT_NEAR(e.joules_per_output_token, e.energy.energy_j / 1000, 1e-9);
  EXPECT_NEAR(e.joules_per_request, e.energy.energy_j / 50, 1e-9);
  EXPECT_NEAR(e.busy_fraction, 0.45, 1e-12);
}

TEST(ServingPower, ACapSlowsPrefillByTheComputeFactorAndDecodeByTheMemoryFactor) {
  const Capped full = h100_at(std::nullopt);
  const Capped capped = h100_at(Power::from_base(400));
  ASSERT_TRUE(capped.point.capped);
  ASSERT_LT(capped.point.compute_factor, capped.point.memory_factor)
      << "a memory-bound phase draws less, so the cap costs it less";
  const IterationModel before = llama8b_on(full.hardware);
  const IterationModel after = llama8b_on(capped.hardware);
  const StepTime prefill_before = before.iteration(4096, 4096 * 4097 / 2.0, 0, 0);
  const StepTime prefill_after = after.iteration(4096, 4096 * 4097 / 2.0, 0, 0);
  ASSERT_TRUE(prefill_before.compute_bound());
  EXPECT_NEAR(prefill_after.compute_s, prefill_before.compute_s / capped.point.compute_factor, 1e-12);
  const StepTime decode_before = before.iteration(0, 0, 32, 32 * 1024.0);
  const StepTime decode_after = after.iteration(0, 0, 32, 32 * 1024.0);
  ASSERT_FALSE(decode_before.compute_bound());
  EXPECT_NEAR(decode_after.memory_s, decode_before.memory_s / capped.point.memory_factor, 1e-12);
  // A whole run: slower iterations, and no GPU above the cap.
  const auto requests =
      generate_arrivals({.rate_per_s = 20, .duration_s = 30, .input_tokens = 1024, .output_tokens = 128}, 2);
  ServingSetup setup;
  setup.limits.kv_capacity_tokens = before.kv_capacity_tokens();
  const ServingResult run_before = simulate_serving(before, requests, setup);
  const ServingResult run_after = simulate_serving(after, requests, setup);
  EXPECT_GT(run_after.summary.ttft_s.mean, run_before.summary.ttft_s.mean);
  EXPECT_GT(run_after.summary.tpot_s.mean, run_before.summary.tpot_s.mean);
  const ServingEnergy e = serving_energy(run_after, capped.point, kNode);
  EXPECT_LE(e.energy.gpu_peak.base(), 400);
  EXPECT_GT(e.energy.gpu_average.base(), capped.point.draw.idle.base());
  EXPECT_GT(e.busy_fraction, 0);
  EXPECT_NEAR(run_after.gpu_busy.total() / run_after.gpus, e.busy_fraction * run_after.summary.span_s, 1e-6);
}

}  // namespace
}  // namespace gputwin
