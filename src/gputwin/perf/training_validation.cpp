#include "gputwin/perf/training_validation.hpp"

#include <cmath>
#include <limits>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

// What both tables share: the 2021-2022 Megatron runs had no FlashAttention and no gradient-reduction
// overlap.
TrainingConfig paper_config(const YamlField& table) {
  TrainingConfig c;
  c.sequence = static_cast<int>(table.child("sequence").positive_integer());
  c.attention = table.child("attention").one_of({"unfused", "flash"}) == "flash" ? Attention::flash
                                                                                 : Attention::unfused;
  c.overlap_data_parallel = false;
  c.zero = 0;
  return c;
}

int integer(const std::vector<YamlField>& row, std::size_t column) {
  return static_cast<int>(row.at(column).positive_integer());
}

void read_table_1(const YamlField& table, std::vector<PublishedRun>& runs) {
  const int vocab = static_cast<int>(table.child("vocab").positive_integer());
  const std::string system = table.child("system").text();
  const auto recompute = recompute_from_name(table.child("recompute").text());
  for (const YamlField& row_field : table.child("rows").items()) {
    const auto row = row_field.items();
    PublishedRun run;
    run.table = "megatron_table_1";
    run.label = row.at(0).text() + "B";
    run.system = system;
    run.config = paper_config(table);
    run.config.recompute = recompute.value_or(Recompute::full);
    run.config.sequence_parallel = table.child("sequence_parallel").boolean();
    run.config.micro_batch = static_cast<int>(table.child("micro_batch").positive_integer());
    run.model = megatron_gpt_shape(run.label, integer(row, 3), integer(row, 2), integer(row, 1), vocab,
                                   run.config.sequence);
    run.config.tp = integer(row, 4);
    run.config.pp = integer(row, 5);
    run.gpus = integer(row, 6);
    run.config.global_batch = integer(row, 7);
    run.config.dp = run.gpus / (run.config.tp * run.config.pp);
    run.published_tflops_per_gpu = row.at(8).positive_number();
    // Table 1's own convention: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) FLOPs per iteration.
    const double B = run.config.global_batch, s = run.config.sequence, l = run.model.layers,
                 h = run.model.hidden;
    const double flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + vocab / (16 * l * h));
    run.published_step_s = flops / (run.gpus * run.published_tflops_per_gpu * 1e12);
    runs.push_back(std::move(run));
  }
}

void read_table_5(const YamlField& table, std::vector<PublishedRun>& runs) {
  const int vocab = static_cast<int>(table.child("vocab").positive_integer());
  const std::string system = table.child("system").text();
  const YamlField modes = table.child("modes");
  for (const YamlField& row_field : table.child("rows").items()) {
    const auto row = row_field.items();
    for (const auto& [mode, column] :
         {std::pair<std::string, std::size_t>{"full_recompute", 10}, {"seq_par_selective", 11}}) {
      const YamlField settings = modes.child(mode);
      PublishedRun run;
      run.table = "korthikanti_table_5";
      run.label = row.at(0).text() + " " + mode;
      run.system = system;
      run.config = paper_config(table);
      run.config.recompute =
          recompute_from_name(settings.child("recompute").text()).value_or(Recompute::full);
      run.config.sequence_parallel = settings.child("sequence_parallel").boolean();
      run.model = megatron_gpt_shape(row.at(0).text(), integer(row, 3), integer(row, 2), integer(row, 1),
                                     vocab, run.config.sequence);
      run.config.tp = integer(row, 4);
      run.config.pp = integer(row, 5);
      run.config.virtual_stages = integer(row, 6);
      run.gpus = integer(row, 7);
      run.config.global_batch = integer(row, 8);
      run.config.micro_batch = integer(row, 9);
      run.config.dp = run.gpus / (run.config.tp * run.config.pp);
      run.published_step_s = row.at(column).positive_number();
      runs.push_back(std::move(run));
    }
  }
}

std::vector<PublishedRun> read_runs(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  std::vector<PublishedRun> runs;
  read_table_1(root.child("megatron_table_1"), runs);
  read_table_5(root.child("korthikanti_table_5"), runs);
  return runs;
}

}  // namespace

Result<std::vector<PublishedRun>> load_published_runs(const std::string& path) {
  return result_of<std::vector<PublishedRun>>([&] { return read_runs(path); });
}

Result<std::vector<RunPrediction>> predict_runs(const Catalog& catalog, const CollectiveModel& collectives,
                                                const TrainingCalibration& calibration,
                                                const std::vector<PublishedRun>& runs) {
  std::vector<RunPrediction> rows;
  for (const PublishedRun& run : runs) {
    const auto hw = perf_hardware_of_system(catalog, run.system, run.gpus / 8 > 0 ? run.gpus / 8 : 1);
    if (!hw.ok()) return hw.errors();
    RunPrediction row{run, estimate_training(hw.value(), collectives, calibration, run.model, run.config), 0};
    row.error = row.estimate.step_time_s / run.published_step_s - 1;
    rows.push_back(std::move(row));
  }
  return rows;
}

ValidationSummary summarize(const std::vector<RunPrediction>& rows, const std::string& table) {
  ValidationSummary summary;
  for (const auto& row : rows) {
    if (row.run.table != table) continue;
    ++summary.rows;
    summary.mean_abs_error += std::abs(row.error);
    summary.max_abs_error = std::max(summary.max_abs_error, std::abs(row.error));
  }
  if (summary.rows > 0) summary.mean_abs_error /= summary.rows;
  return summary;
}

Result<TrainingCalibration> fit_training_calibration(const Catalog& catalog,
                                                     const CollectiveModel& collectives,
                                                     const TrainingCalibration& calibration,
                                                     const std::vector<PublishedRun>& runs,
                                                     const std::string& table) {
  std::vector<PublishedRun> points;
  for (const auto& run : runs) {
    if (table == "all" || run.table == table) points.push_back(run);
  }
  TrainingCalibration best = calibration;
  double best_error = std::numeric_limits<double>::infinity();
  for (int i = 60; i <= 200; ++i) {  // ampere peak_fraction 0.300 .. 1.000, step 0.005
    TrainingCalibration trial = calibration;
    trial.gemm.set_peak_fraction("ampere", i * 0.005);
    const auto rows = predict_runs(catalog, collectives, trial, points);
    if (!rows.ok()) return rows.errors();
    double error = 0;
    for (const auto& row : rows.value()) error += std::abs(row.error);
    if (error < best_error - 1e-12) {
      best_error = error;
      best = trial;
    }
  }
  best.source = "fit_training_calibration (ampere peak_fraction) on " + table;
  return best;
}

}  // namespace gputwin
