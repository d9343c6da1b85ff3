#include "gputwin/plan/workload_fit.hpp"

#include <gtest/gtest.h>

#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::model_presets;

const testing::PerfSetup& setup() {
  return testing::perf_setup();
}

std::string spec_text(const std::string& workload, const std::string& oversubscription = "1:1") {
  return R"(name: sized for a workload
nodes:
  system: dgx-h100
  workload: )" +
         workload + R"(
fabrics:
  compute:
    topology: leaf_spine
    switch: qm9700
    link_speed: 400 Gb/s
    oversubscription: ")" +
         oversubscription + R"("
facility:
  rack_power_limit: 42 kW
  pdu: px3-5878i2r
  cooling: air-standard
)";
}

ClusterSpec parsed(const std::string& text) {
  auto spec = parse_cluster_spec(text, "workload.yaml", setup().catalog);
  EXPECT_TRUE(spec.ok()) << spec.error_text();
  return std::move(spec).value();
}

Result<WorkloadFit> fitted(ClusterSpec& spec, int max_gpus = 131072) {
  return fit_workload(
      spec, setup().catalog,
      {&model_presets(), &setup().collectives, &setup().calibration, max_gpus,
       load_memory_reserve(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/memory.yaml").value()});
}

const std::string kLlama8b = "{model: llama3-8b, tokens: 2T, days: 10, sequence: 8192, global_batch: 512}";

TEST(WorkloadFit, SmallestNodeCountInTimeOneFewerIsNot) {
  ClusterSpec spec = parsed(spec_text(kLlama8b));
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  const WorkloadFit& f = fit.value();
  EXPECT_EQ(spec.node_count, f.answer.nodes);
  EXPECT_EQ(f.answer.gpus, 8 * f.answer.nodes);
  ASSERT_TRUE(f.answer.estimate.has_value());
  EXPECT_LE(f.answer.days, 10);
  EXPECT_TRUE(f.answer.estimate->memory.fits());
  EXPECT_EQ(f.answer.estimate->config.job_gpus(), f.answer.gpus);
  // The days follow from the throughput: tokens / (tokens per second) in days.
  EXPECT_NEAR(f.answer.days, 2e12 / f.answer.estimate->tokens_per_second / 86400, 1e-9);
  // Bisected in whole leaves (4 DGX H100 of 8 ports on a 64-port leaf at 1:1): the next count tried below
  // the answer is one leaf fewer, or half the answer when no whole leaf lies between, and is not in time.
  EXPECT_EQ(f.unit_nodes, 4);
  const SizingTrial* below = f.next_smaller_trial();
  ASSERT_NE(below, nullptr) << "the case should need more than one node";
  EXPECT_FALSE(below->in_time(10)) << below->days;
  EXPECT_TRUE(below->nodes == f.answer.nodes - 4 || 2 * below->nodes == f.answer.nodes) << below->nodes;
  EXPECT_EQ(f.target.global_batch, 512);
}

// The spec's memory_reserve replaces the data's per-GPU reserve; one that leaves too little memory is refused
// at the days field (nothing fits) and one as large as the GPU at its own field.
TEST(WorkloadFit, MemoryReserveFromTheSpec) {
  ClusterSpec spec =
      parsed(spec_text("{model: llama3-8b, tokens: 2T, days: 10, sequence: 8192, global_batch: 512, "
                       "memory_reserve: 20GB}"));
  ASSERT_TRUE(spec.workload->memory_reserve.has_value());
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  EXPECT_DOUBLE_EQ(fit.value().answer.estimate->memory.reserve.base(), 20e9);
  ClusterSpec full = parsed(spec_text("{model: llama3-8b, tokens: 2T, days: 10, memory_reserve: 79GB}"));
  const auto none = fitted(full, 64);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error_text().find("fits in memory on no design"), std::string::npos) << none.error_text();
  ClusterSpec whole = parsed(spec_text("{model: llama3-8b, tokens: 2T, days: 10, memory_reserve: 80GB}"));
  const auto refused = fitted(whole, 64);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error_text().find("nodes.workload.memory_reserve"), std::string::npos)
      << refused.error_text();
}

TEST(WorkloadFit, FewerDaysNeverNeedFewerNodes) {
  ClusterSpec loose = parsed(spec_text("{model: llama3-8b, tokens: 1T, days: 40}"));
  ClusterSpec tight = parsed(spec_text("{model: llama3-8b, tokens: 1T, days: 10}"));
  ASSERT_TRUE(fitted(loose).ok());
  ASSERT_TRUE(fitted(tight).ok());
  EXPECT_GT(tight.node_count, loose.node_count);
}

TEST(WorkloadFit, DefaultBatchIsSixteenMillionTokens) {
  ClusterSpec spec = parsed(spec_text("{model: llama3-8b, tokens: 1T, days: 40, sequence: 4096}"));
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  EXPECT_EQ(fit.value().target.global_batch, 16 * 1024 * 1024 / 4096);
}

TEST(WorkloadFit, UnknownModelIsLocatedAtTheModelField) {
  ClusterSpec spec = parsed(spec_text("{model: llama9-1t, tokens: 1T, days: 20}"));
  const auto fit = fitted(spec);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(
      fit.error_text().find("workload.yaml:4:21: nodes.workload.model: unknown model 'llama9-1t'; known:"),
      std::string::npos)
      << fit.error_text();
}

TEST(WorkloadFit, ImpossibleDaysAreLocatedAtTheDaysField) {
  ClusterSpec spec = parsed(spec_text("{model: llama3-8b, tokens: 15T, days: 1}"));
  const auto fit = fitted(spec, 64);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.error_text().find("nodes.workload.days: no design up to 64 GPUs trains llama3-8b"),
            std::string::npos)
      << fit.error_text();
  EXPECT_EQ(spec.node_count, 0);
}

TEST(WorkloadFit, PrecisionTheGpuLacksIsLocated) {
  ClusterSpec spec = parsed(spec_text("{model: llama3-8b, tokens: 1T, days: 20, precision: fp8}"));
  spec.node_system = "dgx-a100";  // A100 has no dense FP8
  const auto fit = fitted(spec);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.error_text().find("nodes.workload.precision: 'a100-80gb-sxm' has no dense fp8 rate"),
            std::string::npos)
      << fit.error_text();
}

}  // namespace
}  // namespace gputwin
