// Benchmarks the training models. Targets (issue 14, item 8): `perf train --search` over every named axis
// (TP, PP, VP, CP, EP, ZeRO, micro-batch, recomputation, DP with idle remainders) for 16,384 GPUs in under 1
// s; `perf size` over six platforms in under 2 s.
#include <benchmark/benchmark.h>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/training_search.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/plan/sizing_goodput.hpp"
#include "gputwin/sim/failure_rates.hpp"

namespace {

struct Inputs {
  gputwin::Catalog catalog =
      gputwin::Catalog::load({std::string(GPUTWIN_SOURCE_DIR) + "/data/catalog"}).value();
  gputwin::CollectiveModel collectives =
      gputwin::load_collective_model(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/nccl-cost-model.yaml")
          .value();
  gputwin::TrainingCalibration calibration =
      gputwin::load_training_calibration(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/training-model.yaml")
          .value();
  gputwin::MemoryReserve reserve =
      gputwin::load_memory_reserve(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/memory.yaml").value();
  std::vector<gputwin::TransformerModel> presets =
      gputwin::load_model_presets(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/models.yaml").value();
  gputwin::FailureRates failure_rates =
      gputwin::load_failure_rates(std::string(GPUTWIN_SOURCE_DIR) + "/data/reliability/failure-rates.yaml")
          .value();
};

const Inputs& inputs() {
  static const Inputs loaded;
  return loaded;
}

void search(benchmark::State& state, const std::string& model_name, int gpus) {
  const auto& in = inputs();
  const auto hw = gputwin::perf_hardware_of_system(in.catalog, "dgx-h100", gpus / 8).value();
  const auto* model = gputwin::find_model(in.presets, model_name);
  gputwin::TrainingConfig base;
  base.sequence = 8192;
  base.global_batch = 2048;
  base.memory_reserve = in.reserve.per_gpu(hw.accelerator.memory);
  base.fsdp_blocks = in.reserve.fsdp_blocks;
  int candidates = 0;
  for (auto _ : state) {
    const auto result = gputwin::search_training(hw, in.collectives, in.calibration, *model, base, gpus);
    candidates = result.candidates;
    benchmark::DoNotOptimize(result.best);
  }
  state.counters["splits"] = candidates;
}

// `perf size --model llama3-70b --tokens 15T --days 30` over `accelerators`; with `failures_counted` the
// deadline holds the time-to-train under failures (the goodput model, as `perf size` does by default: profile
// llama3-table5, 10 seeds), else the work days (--days-exclude-failures).
void size(benchmark::State& state, const std::vector<std::string>& accelerators, bool failures_counted) {
  const auto& in = inputs();
  gputwin::SizingRequest request;
  request.model = gputwin::find_model(in.presets, "llama3-70b");
  request.tokens = 15e12;
  request.days = 30;
  request.base.sequence = 8192;
  request.base.global_batch = gputwin::default_global_batch(8192);
  request.accelerators = accelerators;
  request.memory_reserve = in.reserve;
  if (failures_counted)
    request.time_to_train = gputwin::time_to_train_under_failures(in.failure_rates, "llama3-table5", 10);
  int answered = 0;
  for (auto _ : state) {
    const auto rows = gputwin::size_training(in.catalog, in.collectives, in.calibration, request);
    answered = 0;
    for (const auto& row : rows) answered += row.estimate ? 1 : 0;
    benchmark::DoNotOptimize(rows);
  }
  state.counters["answered"] = answered;
}

void estimate_one(benchmark::State& state) {
  const auto& in = inputs();
  const auto hw = gputwin::perf_hardware_of_system(in.catalog, "dgx-h100", 2048).value();
  gputwin::TrainingConfig c;
  c.sequence = 8192;
  c.global_batch = 2048;
  c.tp = 8;
  c.pp = 16;
  c.dp = 128;
  const auto* model = gputwin::find_model(in.presets, "llama3.1-405b");
  for (auto _ : state) {
    benchmark::DoNotOptimize(gputwin::estimate_training(hw, in.collectives, in.calibration, *model, c));
  }
}

}  // namespace

BENCHMARK_CAPTURE(search, llama3_405b_16384_gpus, "llama3.1-405b", 16384)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(search, llama3_70b_16384_gpus, "llama3-70b", 16384)->Unit(benchmark::kMillisecond);
// Six accelerators, five carried by a catalog system, failures excluded (the case measured since the search
// landed).
BENCHMARK_CAPTURE(size, six_accelerators,
                  std::vector<std::string>{"a100-80gb-sxm", "h100-sxm", "h200-sxm", "b200", "l40s", "mi300x"},
                  false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Issue 14's platforms (tests/golden/perf-size-platforms.cmd), failures counted as `perf size` counts them.
BENCHMARK_CAPTURE(size, issue_platforms_failures_counted,
                  std::vector<std::string>{"h100-sxm", "b200", "b300", "gb200", "gb300", "mi300x", "mi355x"},
                  true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(estimate_one)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
