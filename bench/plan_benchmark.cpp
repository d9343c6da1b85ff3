// Benchmarks `plan` end to end (catalog and spec already loaded): spec -> Cluster model -> JSON.
// Target (issue 2): a 100,000-GPU three-tier design in under 1 s on one core.
#include <benchmark/benchmark.h>

#include <iostream>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/design.hpp"
#include "gputwin/report/plan_report.hpp"

namespace {

const gputwin::Catalog& bundled_catalog() {
  static const gputwin::Catalog catalog =
      gputwin::Catalog::load({std::string(GPUTWIN_SOURCE_DIR) + "/data/catalog"}).value();
  return catalog;
}

void plan_example(benchmark::State& state, const std::string& example) {
  const auto& catalog = bundled_catalog();
  const auto spec =
      gputwin::load_cluster_spec(std::string(GPUTWIN_SOURCE_DIR) + "/examples/" + example, catalog);
  if (!spec.ok()) {
    state.SkipWithError(spec.error_text().c_str());
    return;
  }
  int gpus = 0;
  for (auto _ : state) {
    const auto cluster = gputwin::design_cluster(spec.value(), catalog);
    if (!cluster.ok()) {
      state.SkipWithError(cluster.error_text().c_str());
      return;
    }
    const auto json = gputwin::plan_json(cluster.value());
    benchmark::DoNotOptimize(json);
    gpus = cluster.value().gpus;
  }
  state.counters["gpus"] = gpus;
}

void BM_PlanSuperPod4Su(benchmark::State& state) {
  plan_example(state, "dgx-h100-superpod-4su.yaml");
}
void BM_Plan100kGpuThreeTier(benchmark::State& state) {
  plan_example(state, "h100-100k-three-tier.yaml");
}

BENCHMARK(BM_PlanSuperPod4Su)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Plan100kGpuThreeTier)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
