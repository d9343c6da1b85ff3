#include "gputwin/plan/workload_fit.hpp"

#include <gtest/gtest.h>

#include "gputwin/design/design.hpp"
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

const std::vector<PrecisionRecipe>& recipes() {
  static const auto loaded =
      load_precision_recipes(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/precision-recipes.yaml").value();
  return loaded;
}

Result<WorkloadFit> fitted(ClusterSpec& spec, int max_gpus = 131072) {
  return fit_workload(
      spec, setup().catalog,
      {&model_presets(), &setup().collectives, &setup().calibration, max_gpus,
       load_memory_reserve(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/memory.yaml").value(), &recipes()});
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

// nodes.workload.precision names a recipe of precision-recipes.yaml (issue 14 leftover): fp8-cs is sized with
// FP8 GEMMs and its first and last layer in bf16, and trains faster than bf16 on as many GPUs or needs fewer;
// a name that is no recipe is located at the field with the known ones.
TEST(WorkloadFit, PrecisionIsARecipeOfTheRecipesFile) {
  auto answer_for = [](const std::string& precision) {
    ClusterSpec spec =
        parsed(spec_text("{model: llama3-8b, tokens: 2T, days: 10, sequence: 8192, global_batch: "
                         "512, precision: " +
                         precision + "}"));
    const auto fit = fitted(spec);
    EXPECT_TRUE(fit.ok()) << fit.error_text();
    return fit.ok() ? fit.value().answer : SizingTrial{};
  };
  const SizingTrial bf16 = answer_for("bf16"), fp8_cs = answer_for("fp8-cs");
  ASSERT_TRUE(bf16.estimate && fp8_cs.estimate);
  EXPECT_EQ(fp8_cs.estimate->config.precision, "fp8");
  EXPECT_EQ(fp8_cs.estimate->config.bf16_layers_at_start, 1);
  EXPECT_EQ(fp8_cs.estimate->config.bf16_layers_at_end, 1);
  EXPECT_EQ(bf16.estimate->config.bf16_layers_at_start, 0);
  EXPECT_TRUE(fp8_cs.gpus < bf16.gpus || (fp8_cs.gpus == bf16.gpus && fp8_cs.days < bf16.days));
  ClusterSpec unknown = parsed(spec_text("{model: llama3-8b, tokens: 1T, days: 20, precision: fp6}"));
  const auto fit = fitted(unknown);
  ASSERT_FALSE(fit.ok());
  EXPECT_NE(fit.error_text().find("workload.yaml:4:"), std::string::npos) << fit.error_text();
  EXPECT_NE(fit.error_text().find("nodes.workload.precision: unknown precision recipe 'fp6'; known: bf16"),
            std::string::npos)
      << fit.error_text();
}

// A spec on a rail-optimized NDR fabric in a liquid-cooled hall that carries 8-GPU boxes and NVL72 racks
// alike, naming its system(s) with `nodes_lines` (system or choose, and the workload).
std::string platform_spec(const std::string& nodes_lines, const std::string& extra = "") {
  return "name: platform choice\nnodes:\n" + nodes_lines + R"(
fabrics:
  compute:
    topology: rail_optimized
    switch: qm9700
    link_speed: 400 Gb/s
facility:
  rack_power_limit: 150 kW
  pdu: px3-5878i2r
  pdu_redundancy: n_plus_1
  cooling: direct-liquid
  liquid_cooling: {cdu: in-row-cdu-600kw, coolant: water, water_supply_temperature_c: 30, water_delta_t_c: 10}
)" + extra;
}

std::string plan_errors_of(const std::string& text) {
  const auto spec = parse_cluster_spec(text, "workload.yaml", setup().catalog);
  if (!spec.ok()) return spec.error_text();
  ClusterSpec sized = spec.value();
  const auto fit = fitted(sized);
  return fit.ok() ? std::string() : fit.error_text();
}

TEST(WorkloadFit, RackSystemIsSizedInWholeRacks) {
  ClusterSpec spec = parsed(platform_spec("  system: gb200-nvl72\n  workload: " + kLlama8b));
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  const WorkloadFit& f = fit.value();
  EXPECT_TRUE(f.counts_racks);
  EXPECT_EQ(f.system, "gb200-nvl72");
  // Every count tried is whole racks: 18 trays and 72 GPUs each, the domain never cut.
  for (const SizingTrial& trial : f.trials) {
    EXPECT_GE(trial.racks, 1);
    EXPECT_EQ(trial.nodes, 18 * trial.racks);
    EXPECT_EQ(trial.gpus, 72 * trial.racks);
  }
  EXPECT_EQ(spec.rack_system_count, f.answer.racks);
  EXPECT_EQ(spec.node_count, 18 * f.answer.racks);
  EXPECT_LE(f.answer.days, 10);
  // One rack fewer (or half when no whole unit lies between) was tried and is not in time.
  const SizingTrial* below = f.next_smaller_trial();
  ASSERT_NE(below, nullptr) << "the case should need more than one rack";
  EXPECT_FALSE(below->in_time(10)) << below->days;
  EXPECT_TRUE(below->racks == f.answer.racks - f.unit_nodes || 2 * below->racks == f.answer.racks)
      << below->racks << " below " << f.answer.racks << " in steps of " << f.unit_nodes;
  // The sized spec designs as racks of the system, with one 72-GPU domain per rack.
  const auto cluster = design_cluster(spec, setup().catalog);
  ASSERT_TRUE(cluster.ok()) << cluster.error_text();
  EXPECT_EQ(cluster.value().gpus, f.answer.gpus);
  EXPECT_EQ(static_cast<int>(cluster.value().domains.size()), f.answer.racks);
}

const std::string kChoose = "  choose: [dgx-h100, dgx-b200, gb200-nvl72]\n  workload: " + kLlama8b;

TEST(WorkloadFit, ChoosesTheCandidateWithTheFewestGpus) {
  ClusterSpec spec = parsed(platform_spec(kChoose));
  ASSERT_EQ(spec.candidates.size(), 3u);
  EXPECT_EQ(spec.candidates[2].rack_system, "gb200-nvl72");
  EXPECT_EQ(spec.candidates[1].system_field, "nodes.choose[1]");
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  const WorkloadFit& f = fit.value();
  ASSERT_EQ(f.candidates.size(), 3u);
  const CandidateFit* chosen = nullptr;
  for (const CandidateFit& row : f.candidates) {
    ASSERT_TRUE(row.sized) << row.system << ": " << row.note;
    EXPECT_LE(row.days, 10) << row.system;
    EXPECT_GT(row.racks, 0) << row.system;
    EXPECT_GT(row.it_power_kw, 0) << row.system;
    EXPECT_FALSE(row.tco_usd.has_value()) << "no price list";
    if (row.chosen) chosen = &row;
  }
  ASSERT_NE(chosen, nullptr);
  EXPECT_NE(f.choice_rule.find("the fewest GPUs (no price list"), std::string::npos) << f.choice_rule;
  for (const CandidateFit& row : f.candidates) {
    EXPECT_GE(row.gpus, chosen->gpus) << row.system;
    if (&row == chosen) continue;
    EXPECT_NE(row.lost.find(chosen->system), std::string::npos) << row.lost;
  }
  // The spec is now the chosen candidate's, sized, and the fit is that candidate's own sizing.
  EXPECT_EQ(f.system, chosen->system);
  EXPECT_EQ(f.answer.gpus, chosen->gpus);
  EXPECT_EQ(spec.rack_system.empty() ? spec.node_system : spec.rack_system, chosen->system);
  EXPECT_TRUE(spec.candidates.empty());
  const auto cluster = design_cluster(spec, setup().catalog);
  ASSERT_TRUE(cluster.ok()) << cluster.error_text();
  EXPECT_EQ(cluster.value().gpus, chosen->gpus);
  EXPECT_EQ(static_cast<int>(cluster.value().racks.size()), chosen->racks);
}

// With every part priced, the cheapest TCO wins even over fewer GPUs: here the GPU winner's system is priced
// out of reach.
TEST(WorkloadFit, ChoosesTheCheapestWhenEveryDesignIsPriced) {
  ClusterSpec unpriced = parsed(platform_spec(kChoose));
  const auto by_gpus = fitted(unpriced);
  ASSERT_TRUE(by_gpus.ok()) << by_gpus.error_text();
  const std::string fewest = by_gpus.value().system;
  ClusterSpec spec = parsed(platform_spec(kChoose));
  const auto price_everything = [&](ClusterSpec& each) {
    each.cost.has_prices = true;
    for (const std::string& id : setup().catalog.ids()) each.cost.prices[id] = usd(1000);
    each.cost.prices["rack"] = usd(1000);
    each.cost.prices[fewest] = usd(1e9);
  };
  price_everything(spec);
  for (ClusterSpec& candidate : spec.candidates) price_everything(candidate);
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  const WorkloadFit& f = fit.value();
  EXPECT_NE(f.choice_rule.find("the cheapest TCO"), std::string::npos) << f.choice_rule;
  EXPECT_NE(f.system, fewest);
  for (const CandidateFit& row : f.candidates) {
    ASSERT_TRUE(row.tco_usd.has_value()) << row.system << " is not priced completely";
    if (row.system == fewest) {
      EXPECT_FALSE(row.chosen);
      EXPECT_EQ(row.lost.rfind("TCO ", 0), 0u) << row.lost;
    }
  }
}

TEST(WorkloadFit, CandidateThatCannotMeetTheDaysLosesWithTheReason) {
  // FP8: the A100 has no dense FP8 rate, so dgx-a100 loses (200G NICs need a 200G fabric for it).
  std::string text = platform_spec(
      "  choose: [dgx-a100, dgx-h100]\n  workload: {model: llama3-8b, tokens: 2T, "
      "days: 10, global_batch: 512, precision: fp8}");
  text.replace(text.find("400 Gb/s"), 8, "200 Gb/s");
  ClusterSpec spec = parsed(text);
  const auto fit = fitted(spec);
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  ASSERT_EQ(fit.value().candidates.size(), 2u);
  const CandidateFit& a100 = fit.value().candidates[0];
  EXPECT_FALSE(a100.sized);
  EXPECT_NE(a100.lost.find("has no dense fp8 rate"), std::string::npos) << a100.lost;
  EXPECT_TRUE(fit.value().candidates[1].chosen);
}

TEST(WorkloadFit, BadCandidatesAreLocatedErrors) {
  const auto error_of = [](const std::string& nodes_lines) {
    return plan_errors_of(platform_spec(nodes_lines));
  };
  const std::string workload = "  workload: " + kLlama8b + "\n";
  std::string errors = error_of("  choose: [dgx-h100, dgx-h900]\n" + workload);
  EXPECT_NE(errors.find("workload.yaml:3:22: nodes.choose[1]: unknown system 'dgx-h900'"), std::string::npos)
      << errors;
  errors = error_of("  choose: [mgmt-server-2s]\n" + workload);
  EXPECT_NE(errors.find("nodes.choose[0]: system 'mgmt-server-2s' has no GPUs to train on"),
            std::string::npos)
      << errors;
  errors = error_of("  choose: [qm9700]\n" + workload);
  EXPECT_NE(errors.find("nodes.choose[0]: 'qm9700' is a switch, expected a system or a rack_system"),
            std::string::npos)
      << errors;
  errors = error_of("  choose: [dgx-h100, dgx-h100]\n" + workload);
  EXPECT_NE(errors.find("nodes.choose[1]: 'dgx-h100' is listed twice"), std::string::npos) << errors;
  errors = error_of("  choose: [dgx-h100]\n  system: dgx-h100\n" + workload);
  EXPECT_NE(errors.find("nodes.system: give 'system' (one system) or 'choose'"), std::string::npos) << errors;
  errors = error_of("  choose: [dgx-h100]\n  count: 4\n");
  EXPECT_NE(errors.find("nodes.count: a spec that chooses among systems is sized for its workload"),
            std::string::npos)
      << errors;
  errors = error_of("  choose: [dgx-h100]\n");
  EXPECT_NE(errors.find("nodes.choose: choosing among systems sizes each for a workload"), std::string::npos)
      << errors;
  // A fabric that cannot carry a candidate: the DGX A100's 200G NICs under a 400G fabric, named at the
  // fabric's field with the candidate.
  errors = error_of("  choose: [dgx-h100, dgx-a100]\n" + workload);
  EXPECT_NE(errors.find("fabrics.compute.link_speed: for candidate 'dgx-a100' (nodes.choose[1]): the compute "
                        "NICs of 'dgx-a100' run at most 200 Gb/s"),
            std::string::npos)
      << errors;
}

}  // namespace
}  // namespace gputwin
