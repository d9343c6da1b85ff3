// Whole nccl-tests sweeps (every size a run printed, not one point of it) against the collective model, and a
// calibration of one candidate mid-size term fitted on the sweeps marked `set: fit` only.
//
//   auto sweeps = load_collective_sweeps(source_dir + "/data/reference/collective-sweeps.yaml");
//   auto compared = compare_sweep(catalog, model, sweeps.value().sweeps[0], nccl_tests_dir);
//   compared.value().rows[i].error_percent  // published time / predicted time - 1, in %
//   band_summary(compared.value(), SizeBand::mid).mean_abs_error_percent
//
// The outputs in ../shared are read in place (never copied); sweeps published in GitHub threads are
// transcribed as rows (bytes, out-of-place time) with their source. data/reference/collective-sweeps.yaml names
// each sweep's file or rows, the system it ran on, and whether it is a fit or an evaluation source, and lists
// the sweeps the model cannot express with the reason.
#pragma once

#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/collectives_validation.hpp"

namespace gputwin::validate {

// Size bands the errors are summarised in (bytes of nccl-tests' size column).
enum class SizeBand { small, mid, large };  // < 64 KiB, 64 KiB to < 64 MiB, >= 64 MiB
[[nodiscard]] SizeBand size_band(double bytes);
[[nodiscard]] const char* band_name(SizeBand band);

// One size of a sweep transcribed into the data file: nccl-tests' size column and its out-of-place time.
struct TranscribedRow {
  double bytes = 0;
  double time_us = 0;
};

struct CollectiveSweep {
  std::string name;
  std::string file;    // relative to ../shared/fixtures/nccl-tests (empty when `rows` holds the sweep)
  std::vector<TranscribedRow> rows;  // a published sweep transcribed with its source (empty when `file` is set)
  std::string source;  // repository, path and commit of the original (as in ../shared/fixtures/SOURCES.md)
  std::string set;     // "fit" or "evaluation"
  std::string note;    // what the comparison assumes about the run
  // The system, as for a published point: a catalog system and nodes, or an accelerator and its GPUs.
  PublishedCollectivePoint system;
};

struct UnexpressedSweep {
  std::string file;
  std::string why;  // what the model lacks to express the run
};

struct CollectiveSweeps {
  std::vector<CollectiveSweep> sweeps;
  std::vector<UnexpressedSweep> not_expressible;
  // The candidate mid-size term: an extra time per operation whose group spans nodes, fitted on the fit
  // sweeps' mid band (median residual); `applied_us` is what compare_sweep is given by the bench (0: not
  // adopted). The CLI's collective model has no such term.
  double cross_node_op_overhead_fitted_us = 0;
  double cross_node_op_overhead_applied_us = 0;
};

struct SweepRow {
  double bytes = 0;
  double published_time_us = 0;  // out-of-place time nccl-tests printed
  ValidationRow row;             // the model's prediction of the same size (time_us = published)
  double error_percent = 0;      // published time / predicted time - 1 (positive: the model is too fast)
};

struct ComparedSweep {
  CollectiveSweep sweep;
  std::vector<SweepRow> rows;  // sizes > 0, in the file's order
};

struct BandSummary {
  int rows = 0;
  double mean_abs_error_percent = 0;
  double worst_abs_error_percent = 0;
};

[[nodiscard]] Result<CollectiveSweeps> load_collective_sweeps(const std::string& path);
// Every row of the sweep's output (its file, or its transcribed rows) with the model's prediction (plus
// `cross_node_overhead_us` on a group spanning nodes); an absent file is an error naming it.
[[nodiscard]] Result<ComparedSweep> compare_sweep(const Catalog& catalog, const CollectiveModel& model,
                                                  const CollectiveSweep& sweep,
                                                  const std::string& nccl_tests_dir,
                                                  double cross_node_overhead_us = 0);
[[nodiscard]] BandSummary band_summary(const ComparedSweep& sweep, SizeBand band);
// One band pooled over every multi-node sweep of one set ("fit" or "evaluation"), each row's error taken with
// `cross_node_overhead_us` added to its prediction (0: the model as it is).
[[nodiscard]] BandSummary multi_node_band_summary(const std::vector<ComparedSweep>& sweeps,
                                                  const std::string& set, SizeBand band,
                                                  double cross_node_overhead_us = 0);

// The error of a row once `extra_us` is added to the predicted time of a group spanning nodes (unchanged on
// one node): the what-if of the candidate term, for sweep rows and published points alike.
[[nodiscard]] double error_with_cross_node_overhead(const ValidationRow& row, double extra_us);
// The candidate term fitted on the given sweeps' mid band: the median of published - predicted time over
// every multi-node mid-band row (0 when there is none).
[[nodiscard]] double fit_cross_node_op_overhead_us(const std::vector<ComparedSweep>& fit_sweeps);
// The host's cost per GPU and iteration when one process drives several GPUs (nccl-tests -g), fitted on the
// fit sweeps run that way: the median over their rows below 64 KiB of (printed - operation / iters) / GPUs per
// process, on the operations nccl-tests issues as one call per GPU (not alltoall or sendrecv, whose calls go
// per peer); 0 when no such row exists.
[[nodiscard]] double fit_host_launch_us_per_gpu(const std::vector<ComparedSweep>& fit_sweeps, int iters);

}  // namespace gputwin::validate
