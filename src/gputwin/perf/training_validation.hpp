// The published A100 training runs gputwin's step-time model is checked against (Megatron-LM Table 1,
// Korthikanti et al. Table 5, from data/reference/training.yaml), the predictions for them, and the fit of
// the GEMM model's ampere fraction on them. Newer GPUs: training_runs.hpp.
//
//   Result<std::vector<PublishedRun>> runs = load_published_runs(bundled_data_dir() +
//   "/reference/training.yaml"); std::vector<RunPrediction> rows = predict_runs(catalog, collectives,
//   calibration, runs.value()); ValidationSummary table5 = summarize(rows, "korthikanti_table_5");   // mean
//   and max |error| TrainingCalibration fit = fit_training_calibration(catalog, collectives, calibration,
//   runs.value(),
//                                                              "korthikanti_table_5");
#pragma once

#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/training.hpp"

namespace gputwin {

struct PublishedRun {
  std::string table;   // "megatron_table_1" | "korthikanti_table_5"
  std::string label;   // "1T", "175B full_recompute", ...
  std::string system;  // catalog system the run used
  int gpus = 0;
  TransformerModel model;
  TrainingConfig config;
  double published_step_s = 0;  // iteration time (Table 1: from TFLOP/s per GPU by its own FLOP convention)
  double published_tflops_per_gpu = 0;  // Table 1 only
};

struct RunPrediction {
  PublishedRun run;
  TrainingEstimate estimate;
  double error = 0;  // (predicted - published) / published, on iteration time
};

struct ValidationSummary {
  int rows = 0;
  double mean_abs_error = 0;
  double max_abs_error = 0;
};

[[nodiscard]] Result<std::vector<PublishedRun>> load_published_runs(const std::string& path);

[[nodiscard]] Result<std::vector<RunPrediction>> predict_runs(const Catalog& catalog,
                                                              const CollectiveModel& collectives,
                                                              const TrainingCalibration& calibration,
                                                              const std::vector<PublishedRun>& runs);

[[nodiscard]] ValidationSummary summarize(const std::vector<RunPrediction>& rows, const std::string& table);

// The ampere row of the GEMM model fitted on the runs of `table` ("all" for both): grid 0.300..1.000 step
// 0.005, smallest mean |error| of iteration time; every other value is taken from `calibration_rule`.
[[nodiscard]] Result<TrainingCalibration> fit_training_calibration(
    const Catalog& catalog, const CollectiveModel& collectives, const TrainingCalibration& calibration_rule,
    const std::vector<PublishedRun>& runs, const std::string& table);

}  // namespace gputwin
