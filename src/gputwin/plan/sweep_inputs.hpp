// What a sweep runs on, from its files: the sweep file (sim/sweep.hpp), its trace read once, and the cluster
// of every design (a spec designed through plan/load_design, or a plain node count) as the GpuPool a replay
// uses. `gputwin sweep` (local threads) and `gputwin sweep task` (one Slurm array task) both start here.
//
//   Result<SweepInputs> inputs = load_sweep_inputs("policies.yaml", {{"my-parts/"}, true});
//   const SweepInputs& in = inputs.value();
//   auto rows = run_sweep(in.spec, in.jobs, in.pools, /*threads*/ 4, in.reader_skipped);
//
//   // One task builds only its own design's cluster: the others get a one-GPU stand-in that is never used.
//   Result<SweepInputs> one = load_sweep_inputs("policies.yaml", catalog, /*only_design=*/task.design);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/plan/load_design.hpp"
#include "gputwin/sim/gpu_pool.hpp"
#include "gputwin/sim/sweep.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct SweepInputs {
  SweepSpec spec;
  std::vector<JobSpec> jobs;
  int reader_skipped = 0;                  // trace rows the reader left out
  std::vector<GpuPool> pools;              // by design, in the sweep file's order
  std::vector<ReplayTopology> topologies;  // by design: where its nodes sit (what failures strike)
};

// Errors (first failure only, in this order: the sweep file, the trace, the catalog, each design's spec) name
// the file, line and field. The catalog is read once, and only when a design names a spec.
[[nodiscard]] Result<SweepInputs> load_sweep_inputs(const std::string& sweep_file,
                                                    const CatalogSources& catalog,
                                                    std::optional<int> only_design = std::nullopt);

}  // namespace gputwin
