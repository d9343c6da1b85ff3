#include "gputwin/perf/training_validation.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::source_path;

struct Fixture {
  Catalog catalog = Catalog::load({source_path("data/catalog")}).value();
  CollectiveModel collectives = load_collective_model(source_path("data/perf/nccl-cost-model.yaml")).value();
  TrainingCalibration calibration =
      load_training_calibration(source_path("data/perf/training-model.yaml")).value();
  std::vector<PublishedRun> runs = load_published_runs(source_path("data/reference/training.yaml")).value();
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

TEST(TrainingValidation, LoadsTenTable1RowsAndEightTable5Times) {
  int table1 = 0, table5 = 0;
  for (const auto& run : fixture().runs) (run.table == "megatron_table_1" ? table1 : table5)++;
  EXPECT_EQ(table1, 10);
  EXPECT_EQ(table5, 8);
}

TEST(TrainingValidation, PublishedThresholdsHold) {
  const auto& f = fixture();
  const auto rows = predict_runs(f.catalog, f.collectives, f.calibration, f.runs);
  ASSERT_TRUE(rows.ok()) << rows.error_text();
  for (const auto& row : rows.value()) {
    std::cout << row.run.table << " " << row.run.label << ": predicted " << row.estimate.step_time_s
              << " s, published " << row.run.published_step_s << " s, error " << row.error * 100 << " %\n";
    EXPECT_LE(std::abs(row.error), 0.20) << row.run.label;
  }
  for (const char* table : {"megatron_table_1", "korthikanti_table_5"}) {
    const ValidationSummary summary = summarize(rows.value(), table);
    std::cout << table << ": mean |error| " << summary.mean_abs_error * 100 << " %, max "
              << summary.max_abs_error * 100 << " %\n";
    EXPECT_LE(summary.mean_abs_error, 0.10) << table;
    EXPECT_LE(summary.max_abs_error, 0.20) << table;
  }
}

TEST(TrainingValidation, A100TablesKeepTheGoalOfFivePercent) {
  const auto& f = fixture();
  const auto rows = predict_runs(f.catalog, f.collectives, f.calibration, f.runs);
  ASSERT_TRUE(rows.ok()) << rows.error_text();
  for (const char* table : {"megatron_table_1", "korthikanti_table_5"})
    EXPECT_LE(summarize(rows.value(), table).mean_abs_error, 0.05) << table;
}

TEST(TrainingCalibration, AmpereFitOnTheTablesIsTheStoredValue) {
  const auto& f = fixture();
  const auto fit = fit_training_calibration(f.catalog, f.collectives, f.calibration, f.runs, "all");
  ASSERT_TRUE(fit.ok()) << fit.error_text();
  const Accelerator& a100 = f.catalog.get<Accelerator>("a100-80gb-sxm");
  ASSERT_NE(f.calibration.gemm.architecture_of(a100), nullptr);
  EXPECT_NEAR(*fit.value().gemm.architecture_of(a100)->peak_fraction,
              *f.calibration.gemm.architecture_of(a100)->peak_fraction, 1e-9);
}

}  // namespace
}  // namespace gputwin
