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
    run.model =
        megatron_gpt_shape(run.label, integer(row, 3), integer(row, 2), integer(row, 1), vocab, run.config.sequence);
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
      run.model = megatron_gpt_shape(row.at(0).text(), integer(row, 3), integer(row, 2), integer(row, 1), vocab,
                            run.config.sequence);
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

// Step time = A (1 + half_width / h) / efficiency_max + C holds exactly for these runs (h fixed per run,
// no context parallelism, no overlapped data-parallel reduction), so two evaluations per run give the grid.
struct LinearStepTime {
  double matrix = 0, width = 0, rest = 0, published = 0;
  [[nodiscard]] double at(double efficiency_max, double half_width) const {
    return matrix * (1 + half_width / width) / efficiency_max + rest;
  }
};

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
                                                     const TrainingCalibration& calibration_rule,
                                                     const std::vector<PublishedRun>& runs,
                                                     const std::string& table) {
  std::vector<PublishedRun> points;
  for (const auto& run : runs) {
    if (table == "all" || run.table == table) points.push_back(run);
  }
  const double traffic = calibration_rule.elementwise_traffic;
  auto at = [&](double efficiency_max) {
    return predict_runs(catalog, collectives, TrainingCalibration{efficiency_max, 0, traffic, ""}, points);
  };
  const auto full = at(1), half = at(0.5);
  if (!full.ok()) return full.errors();
  std::vector<LinearStepTime> lines;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double t_full = full.value()[i].estimate.step_time_s;
    const double matrix = half.value()[i].estimate.step_time_s - t_full;  // 2A - A
    const double width = static_cast<double>(points[i].model.hidden);
    lines.push_back({matrix, width, t_full - matrix, points[i].published_step_s});
  }
  TrainingCalibration best{0, 0, traffic, "fit_training_calibration on " + table};
  double best_error = std::numeric_limits<double>::infinity();
  for (int e = 100; e <= 200; ++e) {   // gemm_efficiency_max 0.500 .. 1.000, step 0.005
    for (int w = 0; w <= 1000; ++w) {  // gemm_half_width 0 .. 20000, step 20
      const double efficiency_max = e * 0.005, half_width = w * 20.0;
      double error = 0;
      for (const auto& line : lines)
        error += std::abs(line.at(efficiency_max, half_width) / line.published - 1);
      if (error < best_error - 1e-12) {
        best_error = error;
        best.gemm_efficiency_max = efficiency_max;
        best.gemm_half_width = half_width;
      }
    }
  }
  return best;
}

}  // namespace gputwin
