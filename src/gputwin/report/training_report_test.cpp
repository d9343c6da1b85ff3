// perf size --json read back: a real sizing (Llama 3 8B on 1T tokens in 20 days, H100 priced, one
// accelerator no system carries, one unknown) comes back row for row; another schema, a cut document and a
// missing field are errors naming the file and the field.
#include "gputwin/report/training_report.hpp"

#include <gtest/gtest.h>

#include "gputwin/design/design.hpp"
#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/plan/workload_fit.hpp"
#include "gputwin/report/plan_report.hpp"
#include "gputwin/report/report_test_support.hpp"

namespace gputwin {
namespace {

using testing::error_of;

struct RealSizing {
  SizingRequest request;
  std::vector<SizingRow> rows;
  RealSizing() {
    request.model = find_model(testing::model_presets(), "llama3-8b");
    request.tokens = 1e12;
    request.days = 20;
    request.base.sequence = 8192;
    request.base.global_batch = 1024;
    request.accelerators = {"h100-sxm", "mi300x", "no-such-gpu"};
    request.gpu_hour_prices["h100-sxm"] = usd(2);
    const auto& perf = testing::perf_setup();
    rows = size_training(perf.catalog, perf.collectives, perf.calibration, request);
  }
  [[nodiscard]] std::string text() const {
    return sizing_json(*request.model, request.tokens, request.days, rows, "a test price list").dump(2);
  }
};

const RealSizing& sizing() {
  static const RealSizing sizing;
  return sizing;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SizingJson, RoundTripOfARealSizing) {
  const auto read = read_sizing_json(sizing().text(), "size.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  const SizingResult& back = read.value();
  EXPECT_EQ(back.source, "size.json");
  EXPECT_EQ(back.model, "llama3-8b");
  EXPECT_EQ(back.tokens, 1e12);
  EXPECT_EQ(back.days, 20);
  EXPECT_EQ(back.cost_basis, "a test price list");
  ASSERT_EQ(back.accelerators.size(), 3u);
  const SizingRow& h100 = sizing().rows[0];
  ASSERT_TRUE(h100.estimate.has_value()) << h100.note;
  const SizedAccelerator& read_h100 = back.accelerators[0];
  EXPECT_TRUE(read_h100.sized);
  EXPECT_EQ(read_h100.accelerator, "h100-sxm");
  EXPECT_EQ(read_h100.system, h100.system);
  EXPECT_EQ(read_h100.gpus, h100.gpus);
  EXPECT_DOUBLE_EQ(read_h100.days, h100.days);
  EXPECT_DOUBLE_EQ(read_h100.mfu, h100.estimate->mfu);
  EXPECT_EQ(read_h100.split.tp, h100.estimate->config.tp);
  EXPECT_EQ(read_h100.split.dp, h100.estimate->config.dp);
  EXPECT_EQ(read_h100.split.recompute, recompute_name(h100.estimate->config.recompute));
  EXPECT_DOUBLE_EQ(read_h100.memory_gb, in_gigabytes(h100.estimate->memory.total()));
  ASSERT_TRUE(read_h100.cost_usd.has_value());
  EXPECT_DOUBLE_EQ(*read_h100.cost_usd, *h100.cost_usd);
  // mi300x is sized with cdna3's fitted GEMM fraction; the unknown accelerator is not, and says why.
  ASSERT_TRUE(sizing().rows[1].estimate.has_value()) << sizing().rows[1].note;
  EXPECT_TRUE(back.accelerators[1].sized);
  EXPECT_EQ(back.accelerators[1].gpus, sizing().rows[1].gpus);
  EXPECT_FALSE(back.accelerators[2].sized);
  EXPECT_EQ(back.accelerators[2].note, sizing().rows[2].note);
  EXPECT_FALSE(back.accelerators[2].note.empty());
}

TEST(SizingJson, AnotherSchemaIsRefusedAtTheSchemaField) {
  const std::string error =
      error_of(read_sizing_json(testing::with_schema(sizing().text(), "gputwin.infer/1"), "size.json"));
  EXPECT_TRUE(contains(error, "size.json:")) << error;
  EXPECT_TRUE(
      contains(error, "/schema: expected gputwin.perf-size/1 (perf size --json), found 'gputwin.infer/1'"))
      << error;
}

TEST(SizingJson, TruncatedDocumentIsMalformedJsonWithItsLine) {
  const std::string error = error_of(read_sizing_json(testing::truncated(sizing().text()), "size.json"));
  EXPECT_TRUE(contains(error, "size.json:")) << error;
  EXPECT_TRUE(contains(error, "malformed JSON")) << error;
}

TEST(SizingJson, MissingFieldIsNamedByItsPointer) {
  const std::string text = sizing().text();
  const std::string no_tp =
      error_of(read_sizing_json(testing::without(text, "/accelerators/0/split/tp"), "size.json"));
  EXPECT_TRUE(contains(no_tp, "/accelerators/0/split: missing field 'tp'")) << no_tp;
  // A row without GPUs is read as one with no answer, and then it needs its note.
  const std::string no_note =
      error_of(read_sizing_json(testing::without(text, "/accelerators/2/note"), "size.json"));
  EXPECT_TRUE(contains(no_note, "/accelerators/2: missing field 'note'")) << no_note;
}

// A spec that chose among platforms: plan --json's workload_fit, with the comparison, comes back row for row.
TEST(PlanJson, WorkloadFitWithCandidatesRoundTrip) {
  const auto& perf = testing::perf_setup();
  auto parsed =
      load_cluster_spec(testing::source_path("tests/specs/workload-choose-llama3-8b.yaml"), perf.catalog);
  ASSERT_TRUE(parsed.ok()) << parsed.error_text();
  ClusterSpec spec = parsed.value();
  const auto reserve = load_memory_reserve(testing::source_path("data/perf/memory.yaml"));
  ASSERT_TRUE(reserve.ok()) << reserve.error_text();
  const auto fit = fit_workload(
      spec, perf.catalog,
      {&testing::model_presets(), &perf.collectives, &perf.calibration, 131072, reserve.value()});
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  const auto cluster = design_cluster(spec, perf.catalog);
  ASSERT_TRUE(cluster.ok()) << cluster.error_text();
  auto document = plan_json(cluster.value());
  document["workload_fit"] = workload_fit_json(fit.value());
  const auto read = read_plan_json(document.dump(2), "plan.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  ASSERT_TRUE(read.value().workload_fit.has_value());
  const PlanWorkloadSummary& workload = *read.value().workload_fit;
  const WorkloadFit& f = fit.value();
  EXPECT_EQ(workload.model, "llama3-8b");
  EXPECT_EQ(workload.system, f.system);
  EXPECT_EQ(workload.gpus, f.answer.gpus);
  EXPECT_EQ(workload.gpus, read.value().gpus);
  EXPECT_EQ(workload.racks.has_value(), f.counts_racks);
  EXPECT_DOUBLE_EQ(workload.days, f.answer.days);
  EXPECT_EQ(workload.choice_rule, f.choice_rule);
  ASSERT_EQ(workload.candidates.size(), f.candidates.size());
  for (std::size_t i = 0; i < f.candidates.size(); ++i) {
    const CandidateFit& written = f.candidates[i];
    const PlanCandidateSummary& row = workload.candidates[i];
    EXPECT_EQ(row.system, written.system);
    EXPECT_EQ(row.accelerator, written.accelerator);
    EXPECT_EQ(row.chosen, written.chosen);
    EXPECT_EQ(row.sized, written.sized);
    EXPECT_EQ(row.gpus, written.gpus);
    EXPECT_EQ(row.racks, written.racks);
    EXPECT_DOUBLE_EQ(row.days, written.days);
    EXPECT_DOUBLE_EQ(row.mfu, written.mfu);
    EXPECT_DOUBLE_EQ(row.it_power_kw, written.it_power_kw);
    EXPECT_EQ(row.tco_usd.has_value(), written.tco_usd.has_value());
    EXPECT_EQ(row.lost, written.lost);
  }
  // A cut comparison is named by its pointer (a candidate that lost: the chosen one has no reason to read).
  const std::size_t loser = f.candidates[0].chosen ? 1 : 0;
  const std::string pointer = "/workload_fit/candidates/" + std::to_string(loser);
  const std::string cut =
      testing::error_of(read_plan_json(testing::without(document.dump(2), pointer + "/lost"), "plan.json"));
  EXPECT_NE(cut.find(pointer + ": missing field 'lost'"), std::string::npos) << cut;
}

}  // namespace
}  // namespace gputwin
