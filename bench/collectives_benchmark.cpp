// Benchmarks the collective model. Target (issue 4, item 8): a 30-size collective sweep in under 1 ms.
#include <benchmark/benchmark.h>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/collectives.hpp"

namespace {

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

// nccl-tests' -b 8 -e 4G -f 2: 30 sizes, 8 B to 4 GiB.
void sweep(benchmark::State& state, gputwin::CollectiveOp op, int nodes) {
  const auto catalog = gputwin::Catalog::load({source_path("data/catalog")});
  const auto model = gputwin::load_collective_model(source_path("data/perf/nccl-cost-model.yaml"));
  if (!catalog.ok() || !model.ok()) {
    state.SkipWithError("cannot load the catalog or the NCCL cost model");
    return;
  }
  const auto hw = gputwin::perf_hardware_of_system(catalog.value(), "dgx-h100", nodes).value();
  const gputwin::CollectiveGroup group{8 * nodes, 8};
  constexpr int kSizes = 30;
  for (auto _ : state) {
    double total_us = 0;
    double bytes = 8;
    for (int i = 0; i < kSizes; ++i, bytes *= 2) {
      total_us +=
          gputwin::estimate_collective(hw, model.value(), op, gputwin::ByteSize::from_base(bytes), group)
              .time_us;
    }
    benchmark::DoNotOptimize(total_us);
  }
  state.counters["sizes"] = kSizes;
}

void BM_AllReduceSweep_OneNode(benchmark::State& state) {
  sweep(state, gputwin::CollectiveOp::all_reduce, 1);
}
void BM_AllReduceSweep_128Nodes(benchmark::State& state) {
  sweep(state, gputwin::CollectiveOp::all_reduce, 128);
}
void BM_AlltoallSweep_128Nodes(benchmark::State& state) {
  sweep(state, gputwin::CollectiveOp::alltoall, 128);
}

}  // namespace

BENCHMARK(BM_AllReduceSweep_OneNode)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AllReduceSweep_128Nodes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AlltoallSweep_128Nodes)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
