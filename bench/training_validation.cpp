// Prints the training validation tables: every published A100 run of data/reference/training.yaml
// (Megatron-LM Table 1, Korthikanti et al. Table 5) with gputwin's prediction and the error, the mean and max
// per table, and the held-out check (the efficiency curve fitted on one table, the other predicted).
//
//   build-train/bench/training_validation      (Markdown tables, pasted into docs/accuracy.md)
#include "gputwin/perf/training_validation.hpp"

#include <fmt/format.h>

#include <iostream>

namespace {

std::string path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

void print_table(const std::vector<gputwin::RunPrediction>& rows, const std::string& table) {
  const bool table1 = table == "megatron_table_1";
  std::cout << (table1
                    ? "| model | tp | pp | GPUs | batch | published TFLOP/s/GPU | predicted | iteration s "
                      "(published) | "
                      "predicted s | error |\n|---|---|---|---|---|---|---|---|---|---|\n"
                    : "| run | tp | pp | v | GPUs | batch | published s | predicted s | error | MFU pred. |\n"
                      "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& row : rows) {
    if (row.run.table != table) continue;
    const auto& c = row.run.config;
    if (table1) {
      const double predicted_tflops =
          row.run.published_tflops_per_gpu * row.run.published_step_s / row.estimate.step_time_s;
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {:.0f} | {:.0f} | {:.2f} | {:.2f} | {:+.1f} % |\n",
                               row.run.label, c.tp, c.pp, row.run.gpus, c.global_batch,
                               row.run.published_tflops_per_gpu, predicted_tflops, row.run.published_step_s,
                               row.estimate.step_time_s, 100 * row.error);
    } else {
      std::cout << fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:+.1f} % | {:.1f} % |\n",
                               row.run.label, c.tp, c.pp, c.virtual_stages, row.run.gpus, c.global_batch,
                               row.run.published_step_s, row.estimate.step_time_s, 100 * row.error,
                               100 * row.estimate.mfu);
    }
  }
  const auto summary = gputwin::summarize(rows, table);
  std::cout << fmt::format("\n{}: {} rows, mean |error| {:.2f} %, max |error| {:.2f} %\n\n", table,
                           summary.rows, 100 * summary.mean_abs_error, 100 * summary.max_abs_error);
}

}  // namespace

int main() {
  const auto catalog = gputwin::Catalog::load({path("data/catalog")});
  const auto collectives = gputwin::load_collective_model(path("data/perf/nccl-cost-model.yaml"));
  const auto calibration = gputwin::load_training_calibration(path("data/perf/training-model.yaml"));
  const auto runs = gputwin::load_published_runs(path("data/reference/training.yaml"));
  if (!catalog.ok() || !collectives.ok() || !calibration.ok() || !runs.ok()) {
    std::cerr << catalog.error_text() << collectives.error_text() << calibration.error_text()
              << runs.error_text();
    return 1;
  }
  const auto& c = calibration.value();
  std::cout << fmt::format("Efficiency curve: {} h / (h + {}) of peak ({})\n\n", c.gemm_efficiency_max,
                           c.gemm_half_width, c.source);
  const auto rows = gputwin::predict_runs(catalog.value(), collectives.value(), c, runs.value());
  if (!rows.ok()) {
    std::cerr << rows.error_text();
    return 1;
  }
  print_table(rows.value(), "megatron_table_1");
  print_table(rows.value(), "korthikanti_table_5");
  std::cout << "Held out (fit on one table, predict the other):\n";
  for (const auto& [fit_on, predict] :
       {std::pair<std::string, std::string>{"korthikanti_table_5", "megatron_table_1"},
        {"megatron_table_1", "korthikanti_table_5"}}) {
    const auto fit =
        gputwin::fit_training_calibration(catalog.value(), collectives.value(), c, runs.value(), fit_on);
    const auto held = gputwin::predict_runs(catalog.value(), collectives.value(), fit.value(), runs.value());
    const auto summary = gputwin::summarize(held.value(), predict);
    std::cout << fmt::format("  fit on {} ({} h / (h + {})): {} mean |error| {:.2f} %, max {:.2f} %\n",
                             fit_on, fit.value().gemm_efficiency_max, fit.value().gemm_half_width, predict,
                             100 * summary.mean_abs_error, 100 * summary.max_abs_error);
  }
  return 0;
}
