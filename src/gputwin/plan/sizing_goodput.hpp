// What failures do to a sized training run: for each answer of `perf size` (an accelerator on N GPUs for D
// days of work), the expected ETTR, the time-to-train including it and the spare nodes that keep the job
// running, from the goodput Monte Carlo (sim/goodput) with a profile of data/reliability/failure-rates.yaml.
//
//   auto rates = load_failure_rates(bundled_data_dir() + "/reliability/failure-rates.yaml").value();
//   std::vector<SizingGoodput> g = goodput_of_sizing(rows, catalog, rates, "llama3-table5", 10);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/sim/failure_rates.hpp"

namespace gputwin {

struct SizingGoodput {
  std::string accelerator;
  int gpus = 0;
  double work_days = 0;  // the sizing's days at 100 % ETTR
  double mttf_hours = 0;
  double interval_minutes = 0;  // Daly's optimum
  double ettr = 0;              // mean over the seeds, with `spare_nodes` spares
  double wall_days = 0;         // time-to-train including failures
  int spare_nodes = 0;          // covers the nodes in repair 99 % of the time
};

// One run under failures: `gpus` GPUs of `system` needing `work_days` of failure-free work. Empty when the
// profile is not in `rates` or the Monte Carlo cannot run for this system. Checkpoint write and restart are
// the rates file's job defaults (assumed), the interval Daly's optimum, the spares those covering repairs
// 99 % of the time.
[[nodiscard]] std::optional<SizingGoodput> goodput_of_run(const System& system,
                                                          const std::string& accelerator, int gpus,
                                                          double work_days, const FailureRates& rates,
                                                          const std::string& profile, int seeds);

// The deadline rule `perf size` and `plan` share (SizingRequest::time_to_train, count_failures): a run's
// time-to-train is goodput_of_run's wall days. `rates` must outlive the function returned.
[[nodiscard]] TimeToTrain time_to_train_under_failures(const FailureRates& rates, const std::string& profile,
                                                       int seeds);

// One entry per row that has an answer (gpus > 0), in the rows' order. Checkpoint write and restart are the
// rates file's job defaults (assumed), the interval Daly's optimum.
[[nodiscard]] std::vector<SizingGoodput> goodput_of_sizing(const std::vector<SizingRow>& rows,
                                                           const Catalog& catalog, const FailureRates& rates,
                                                           const std::string& profile, int seeds);

}  // namespace gputwin
