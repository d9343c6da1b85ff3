// The published training runs of data/reference/training-runs.yaml (fit and evaluation sets, split by source)
// turned into model inputs, predicted, compared on tokens/s per GPU, and the per-architecture GEMM fraction
// fitted on the fit set only.
//
//   Result<std::vector<ReferenceRun>> runs = load_reference_runs(catalog, calibration.gemm, presets,
//       source + "/data/reference/training-runs.yaml", source + "/data/reference/training-runs-setup.yaml");
//   std::vector<ReferencePrediction> rows = predict_reference_runs(collectives, calibration, runs.value());
//   ValidationSummary evaluation = summarize_set(rows, "evaluation");   // predicted rows only
//   Result<TrainingCalibration> fit = fit_gemm_calibration(collectives, calibration, runs.value(), a100);
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/precision_recipe.hpp"
#include "gputwin/perf/training.hpp"
#include "gputwin/perf/training_validation.hpp"

namespace gputwin {

struct ReferenceRun {
  std::string id, source, set;  // set: "fit" | "evaluation"
  std::string gpu, model_id, precision;
  int gpus = 0;
  bool predictable = false;
  std::string why_not;  // when not predictable: the reason, printed in the table
  PerfHardware hardware;
  TransformerModel model;
  TrainingConfig config;
  double published_tokens_per_s_per_gpu = 0;  // printed, or converted from TFLOP/s by the source's convention
  std::string compared_on;                    // "tokens/s/GPU" or "TFLOP/s/GPU (palm convention)"
  std::string techniques;  // the row's techniques as published ("FSDP + TP + torch.compile + AsyncTP", ...)
};

// Whether the row's published techniques name async TP ("AsyncTP", "Async TP", "async TP"): such a row runs
// PyTorch's micro-pipelined fused ops (TrainingConfig::tp_comm_micro_pipelined) where it has TP > 1.
[[nodiscard]] bool names_async_tp(const ReferenceRun& run);

struct ReferencePrediction {
  ReferenceRun run;
  TrainingEstimate estimate;
  double predicted_tokens_per_s_per_gpu = 0;
  double error = 0;  // predicted / published - 1 on tokens/s per GPU (0 when not predicted)
};

// `gemm`: the model that will time the runs; a source's attention_kernel must be one of its kernels.
[[nodiscard]] Result<std::vector<ReferenceRun>> load_reference_runs(
    const Catalog& catalog, const GemmModel& gemm, const std::vector<TransformerModel>& presets,
    const std::string& runs_path, const std::string& setup_path);

// Why rows the model does not explain are off (data/reference/training-gaps.yaml): a diagnosis per group of
// rows, printed by bench/training_validation beside the rows; never an input to a prediction.
struct KnownGap {
  std::string id;
  std::vector<std::string> rows;  // ids of training-runs.yaml rows
  std::string reason;
};

// Reads the gaps file; a row id that is not in `runs`, or a row listed twice, is a located error.
[[nodiscard]] Result<std::vector<KnownGap>> load_known_gaps(const std::string& path,
                                                            const std::vector<ReferenceRun>& runs);

// The gap a row belongs to, or nullptr.
[[nodiscard]] const KnownGap* known_gap_of(const std::vector<KnownGap>& gaps, const std::string& run_id);

[[nodiscard]] std::vector<ReferencePrediction> predict_reference_runs(const CollectiveModel& collectives,
                                                                      const TrainingCalibration& calibration,
                                                                      const std::vector<ReferenceRun>& runs);

// Mean and max |error| over the predicted rows of a set ("fit" | "evaluation"), optionally of one GEMM
// architecture ("" = all).
[[nodiscard]] ValidationSummary summarize_set(const std::vector<ReferencePrediction>& rows,
                                              const std::string& set, const std::string& architecture = "");

// The GEMM architecture row a run's accelerator uses (hopper, blackwell, blackwell-ultra, ...).
[[nodiscard]] std::string gemm_architecture_of(const TrainingCalibration& calibration,
                                               const ReferenceRun& run);

// Fits each architecture's peak_fraction (grid 0.300..1.000, step 0.005, smallest mean |error|): ampere on
// the A100 tables (`a100`, error on iteration time), every other architecture on its predictable FIT-set rows
// of `runs` (error on tokens/s per GPU). Evaluation rows are never read. Architectures without fit rows keep
// the value they have.
[[nodiscard]] Result<TrainingCalibration> fit_gemm_calibration(const Catalog& catalog,
                                                               const CollectiveModel& collectives,
                                                               const TrainingCalibration& calibration,
                                                               const std::vector<ReferenceRun>& runs,
                                                               const std::vector<PublishedRun>& a100);

// The grid fit_gemm_calibration fits the MoE host waits on (moe_layer_host_s, moe_layer_host_graphed_s):
// 0 .. 20 ms in steps of 0.05 ms. bench/training_validation re-fits its diagnoses of the wait on the same
// grid; its linear form (fractions held) can land a step from the stored value on a flat minimum.
inline constexpr double kMoeHostWaitStep_s = 0.05e-3;
inline constexpr int kMoeHostWaitSteps = 400;

// The wait on that grid with the least `error_at(wait)`; on a tie, the smaller wait.
[[nodiscard]] double best_moe_host_wait(const std::function<double(double)>& error_at);

// A recipe's published end-to-end benchmark against the per-tensor recipe of its precision
// (PrecisionRecipe::rate_benchmark), predicted: the model's step time with the recipe at `gemm_rate` over its
// step time with the per-tensor recipe, on the benchmark's setup and the hardware of the fit set's row of
// that GPU and GPU count.
[[nodiscard]] Result<double> recipe_step_ratio(const CollectiveModel& collectives,
                                               const TrainingCalibration& calibration,
                                               const std::vector<ReferenceRun>& runs,
                                               const std::vector<TransformerModel>& presets,
                                               const PrecisionRecipe& recipe, double gemm_rate);
// The gemm_rate (grid 0.300..1.000, step 0.005) whose predicted step ratio is nearest the published one.
[[nodiscard]] Result<double> fit_recipe_gemm_rate(const CollectiveModel& collectives,
                                                  const TrainingCalibration& calibration,
                                                  const std::vector<ReferenceRun>& runs,
                                                  const std::vector<TransformerModel>& presets,
                                                  const PrecisionRecipe& recipe);

}  // namespace gputwin
