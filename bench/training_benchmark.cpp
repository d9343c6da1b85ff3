// Benchmarks the training models. Target (issue 4): `perf train --search` over every TP/PP/DP/CP split (with
// micro-batch, recomputation, interleaving and ZeRO) for 16,384 GPUs in under 1 s.
#include <benchmark/benchmark.h>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/training_search.hpp"

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
  std::vector<gputwin::TransformerModel> presets =
      gputwin::load_model_presets(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/models.yaml").value();
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
  int candidates = 0;
  for (auto _ : state) {
    const auto result = gputwin::search_training(hw, in.collectives, in.calibration, *model, base, gpus);
    candidates = result.candidates;
    benchmark::DoNotOptimize(result.best);
  }
  state.counters["splits"] = candidates;
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
BENCHMARK(estimate_one)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
