// Prints the collective model's validation table: each published nccl-tests bus bandwidth, or for a small
// message its time (data/reference/collectives-published.yaml, with sources), against the prediction, with
// the error (positive: the model is too fast). The prediction is what nccl-tests' loop would print
// (perf/nccl_tests_loop.hpp); "one op" is the error against one operation alone, as before the loop was
// modelled. Then every row of the full nccl-tests sweeps in ../shared/fixtures/nccl-tests
// (data/reference/collective-sweeps.yaml), with fit and evaluation errors by size band, and the calibration
// of the one candidate mid-size term (fitted on the fit sweeps only) with what it would do to the held-out
// points. Usage: collectives_validation [--markdown]
#include "gputwin/perf/collectives_validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gputwin/validate/collective_sweeps.hpp"

namespace {

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

std::string range_text(const gputwin::PublishedCollectivePoint& p) {
  char text[64];
  if (p.time_us)
    std::snprintf(text, sizeof text, "%.4g us", *p.time_us);
  else if (p.busbw_min_gbps == p.busbw_max_gbps)
    std::snprintf(text, sizeof text, "%.0f", p.busbw_min_gbps);
  else
    std::snprintf(text, sizeof text, "%.4g-%.4g", p.busbw_min_gbps, p.busbw_max_gbps);
  return text;
}

std::string size_text(double bytes) {
  char text[32];
  if (bytes >= 1048576)
    std::snprintf(text, sizeof text, "%.0f MiB", bytes / 1048576);
  else if (bytes >= 1024)
    std::snprintf(text, sizeof text, "%.0f KiB", bytes / 1024);
  else
    std::snprintf(text, sizeof text, "%.0f B", bytes);
  return text;
}

std::string predicted_text(const gputwin::ValidationRow& r) {
  char text[32];
  if (r.point.time_us)
    std::snprintf(text, sizeof text, "%.1f us", r.predicted_time_us);
  else
    std::snprintf(text, sizeof text, "%.1f", r.predicted_busbw_gbps);
  return text;
}

// The host launch cost of one process driving several GPUs (nccl-tests -g): fitted on the one-process fit
// sweeps, with every such sweep's band errors and held-out point's error without it and with it.
void print_host_launch_calibration(const gputwin::Catalog& catalog, const gputwin::CollectiveModel& model,
                                   const std::vector<gputwin::validate::ComparedSweep>& compared,
                                   const std::vector<gputwin::ValidationRow>& evaluation_rows,
                                   const std::string& dir) {
  namespace v = gputwin::validate;
  gputwin::CollectiveModel without = model;
  without.nccl_tests_loop.host_launch_us_per_gpu = 0;
  std::printf(
      "\nCalibration: host launch cost per GPU (one process driving several GPUs, nccl-tests -g) = "
      "median((printed - operation / iters) / GPUs per process) over the one-process fit sweeps' rows < 64 KiB "
      "(all_reduce, all_gather) = %.2f us (stored %.2f us, applied)\n",
      v::fit_host_launch_us_per_gpu(compared, model.nccl_tests_loop.iters),
      model.nccl_tests_loop.host_launch_us_per_gpu);
  for (const auto& sweep : compared) {
    if (sweep.sweep.system.gpus_per_process <= 1) continue;
    const auto bare = v::compare_sweep(catalog, without, sweep.sweep, dir);
    if (!bare.ok()) continue;
    for (const auto band : {v::SizeBand::small, v::SizeBand::mid, v::SizeBand::large})
      std::printf("  %s %s, %s: mean |error| %.1f %% without -> %.1f %% with the host cost\n",
                  sweep.sweep.set.c_str(), sweep.sweep.name.c_str(), v::band_name(band),
                  v::band_summary(bare.value(), band).mean_abs_error_percent,
                  v::band_summary(sweep, band).mean_abs_error_percent);
  }
  double before = 0;
  double after = 0;
  int count = 0;
  for (const auto& row : evaluation_rows) {
    if (row.point.gpus_per_process <= 1) continue;
    const auto bare = gputwin::validate_collective_point(catalog, without, row.point);
    if (!bare.ok()) continue;
    std::printf("  evaluation %-48s %+7.1f %% -> %+7.1f %%\n", row.point.name.c_str(),
                bare.value().error_percent(), row.error_percent());
    before += std::abs(bare.value().error_percent());
    after += std::abs(row.error_percent());
    ++count;
  }
  if (count > 0)
    std::printf("  %d held-out one-process points: mean |error| %.1f %% without -> %.1f %% with the host cost\n",
                count, before / count, after / count);
}

// The full sweeps, their band errors and the candidate term's calibration (see the file comment).
// False when a sweep cannot be compared: the calibration below would otherwise run on fewer sweeps unseen.
bool print_sweeps(const gputwin::Catalog& catalog, const gputwin::CollectiveModel& model,
                  const std::vector<gputwin::ValidationRow>& evaluation_rows, bool markdown) {
  namespace v = gputwin::validate;
  const std::string yaml = source_path("data/reference/collective-sweeps.yaml");
  const std::string dir = source_path("../shared/fixtures/nccl-tests");
  const auto sweeps = v::load_collective_sweeps(yaml);
  if (!sweeps.ok()) {
    std::fprintf(stderr, "%s", sweeps.error_text().c_str());
    return false;
  }
  std::printf("\nFull nccl-tests sweeps (%s: files read in place from ../shared/fixtures/nccl-tests, "
              "published sweeps transcribed with their source)\n",
              "data/reference/collective-sweeps.yaml");
  const bool have_fixtures = std::filesystem::exists(dir);
  if (!have_fixtures)
    std::printf("%s is absent: the sweeps read from it are skipped, the transcribed ones compared\n", dir.c_str());
  std::vector<v::ComparedSweep> compared;
  for (const auto& sweep : sweeps.value().sweeps) {
    if (!sweep.file.empty() && !have_fixtures) continue;
    const auto result =
        v::compare_sweep(catalog, model, sweep, dir, sweeps.value().cross_node_op_overhead_applied_us);
    if (!result.ok()) {
      std::fprintf(stderr, "%s: %s", sweep.name.c_str(), result.error_text().c_str());
      return false;
    }
    compared.push_back(result.value());
    std::printf("\n%s%s (set: %s)\n", markdown ? "#### " : "", sweep.name.c_str(), sweep.set.c_str());
    if (markdown) {
      std::printf("\n| size | published us | predicted us | algorithm, channels | error |\n");
      std::printf("|---:|---:|---:|---|---:|\n");
    }
    for (const auto& row : result.value().rows) {
      const auto& e = row.row.estimate;
      const std::string algorithm = e.algorithm + "/" + e.protocol + " " + std::to_string(e.channels) + "/" +
                                    std::to_string(e.channels_available);
      if (markdown)
        std::printf("| %s | %.2f | %.2f | %s | %+.1f %% |\n", size_text(row.bytes).c_str(),
                    row.published_time_us, row.row.predicted_time_us, algorithm.c_str(), row.error_percent);
      else
        std::printf("  %9s %11.2f us %11.2f us  %-22s %+7.1f%%\n", size_text(row.bytes).c_str(),
                    row.published_time_us, row.row.predicted_time_us, algorithm.c_str(), row.error_percent);
    }
    for (const auto band : {v::SizeBand::small, v::SizeBand::mid, v::SizeBand::large}) {
      const auto summary = v::band_summary(result.value(), band);
      std::printf("  %-22s %2d rows: mean |error| %.1f %%, worst %.1f %%\n", v::band_name(band), summary.rows,
                  summary.mean_abs_error_percent, summary.worst_abs_error_percent);
    }
  }
  for (const auto& skipped : sweeps.value().not_expressible)
    std::printf("not compared: %s: %s\n", skipped.file.c_str(), skipped.why.c_str());
  std::printf("\nMulti-node sweeps pooled by set (every row of every source spanning nodes):\n");
  for (const char* set : {"fit", "evaluation"})
    for (const auto band : {v::SizeBand::small, v::SizeBand::mid, v::SizeBand::large}) {
      const auto summary = v::multi_node_band_summary(compared, set, band);
      if (summary.rows > 0)
        std::printf("  %-10s %-22s %3d rows: mean |error| %.1f %%, worst %.1f %%\n", set, v::band_name(band),
                    summary.rows, summary.mean_abs_error_percent, summary.worst_abs_error_percent);
    }

  if (have_fixtures) print_host_launch_calibration(catalog, model, compared, evaluation_rows, dir);

  // The candidate term: fitted on the multi-node fit sweeps' mid band, then tried on everything.
  const double fitted = v::fit_cross_node_op_overhead_us(compared);
  std::printf(
      "\nCalibration: cross-node per-operation overhead = median(published - predicted) over the multi-node "
      "fit "
      "sweeps' mid band = %.1f us (stored fitted_us %.1f; applied_us %.1f)%s\n",
      fitted, sweeps.value().cross_node_op_overhead_fitted_us,
      sweeps.value().cross_node_op_overhead_applied_us,
      have_fixtures ? "" : " - on the transcribed fit sweeps only (../shared absent), so not the stored fit");
  for (const char* set : {"fit", "evaluation"})
    for (const auto band : {v::SizeBand::small, v::SizeBand::mid, v::SizeBand::large}) {
      const auto before = v::multi_node_band_summary(compared, set, band);
      const auto after = v::multi_node_band_summary(compared, set, band, fitted);
      if (before.rows > 0)
        std::printf("  multi-node %s sweeps, %-22s %3d rows: mean |error| %.1f %% -> %.1f %% with the term "
                    "(worst %.1f %% -> %.1f %%)\n",
                    set, v::band_name(band), before.rows, before.mean_abs_error_percent,
                    after.mean_abs_error_percent, before.worst_abs_error_percent, after.worst_abs_error_percent);
    }
  double without = 0;
  double with = 0;
  double worst_with = 0;
  for (const auto& row : evaluation_rows) {
    const double after = v::error_with_cross_node_overhead(row, fitted);
    without += std::abs(row.error_percent());
    with += std::abs(after);
    worst_with = std::max(worst_with, std::abs(after));
    if (row.point.nodes > 1)
      std::printf("  evaluation %-42s %+7.1f %% -> %+7.1f %%\n", row.point.name.c_str(), row.error_percent(),
                  after);
  }
  if (!evaluation_rows.empty())
    std::printf(
        "  %zu evaluation points (held out): mean |error| %.1f %% -> %.1f %% with the term (worst %.1f %%): "
        "%s\n",
        evaluation_rows.size(), without / evaluation_rows.size(), with / evaluation_rows.size(), worst_with,
        with <= without ? "better on held-out data" : "worse on held-out data: not adopted");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool markdown = argc > 1 && std::strcmp(argv[1], "--markdown") == 0;
  const auto catalog = gputwin::Catalog::load({source_path("data/catalog")});
  const auto model = gputwin::load_collective_model(source_path("data/perf/nccl-cost-model.yaml"));
  const auto points =
      gputwin::load_published_collectives(source_path("data/reference/collectives-published.yaml"));
  if (!catalog.ok() || !model.ok() || !points.ok()) {
    std::fprintf(stderr, "cannot load the catalog, the cost model or the published points\n");
    return 1;
  }
  if (markdown) {
    std::printf(
        "| point | size | published busbw GB/s (or time) | predicted | algorithm, channels | error one op | "
        "error |\n");
    std::printf("|---|---:|---:|---:|---|---:|---:|\n");
  } else {
    std::printf("%-42s %8s %14s %10s %-21s %8s %8s\n", "point", "size", "published", "predicted",
                "algorithm channels", "one op", "error");
  }
  double worst = 0;
  double sum = 0;
  int counted = 0;
  double evaluation_worst = 0;
  double evaluation_sum = 0;
  double evaluation_one_op_worst = 0;
  double evaluation_one_op_sum = 0;
  int evaluation_count = 0;
  std::vector<gputwin::ValidationRow> evaluation_rows;
  for (const auto& point : points.value()) {
    const auto row = gputwin::validate_collective_point(catalog.value(), model.value(), point);
    if (!row.ok()) {
      std::fprintf(stderr, "%s: %s", point.name.c_str(), row.error_text().c_str());
      return 1;
    }
    const auto& r = row.value();
    // The algorithm/protocol NCCL would choose and the channels it runs on at this size
    // (used/communicator's).
    const std::string algorithm = r.estimate.algorithm + "/" + r.estimate.protocol + " " +
                                  std::to_string(r.estimate.channels) + "/" +
                                  std::to_string(r.estimate.channels_available);
    const std::string note = point.set == "evaluation" ? " (evaluation)"
                             : point.known_gap.empty() ? ""
                                                       : " (known gap)";
    if (markdown) {
      std::printf("| %s | %s | %s | %s | %s | %+.1f %% | %+.1f %%%s |\n", point.name.c_str(),
                  size_text(point.bytes).c_str(), range_text(point).c_str(), predicted_text(r).c_str(),
                  algorithm.c_str(), r.one_operation_error_percent(), r.error_percent(), note.c_str());
    } else {
      std::printf("%-42s %8s %14s %10s %-21s %+7.1f%% %+7.1f%%%s\n", point.name.c_str(),
                  size_text(point.bytes).c_str(), range_text(point).c_str(), predicted_text(r).c_str(),
                  algorithm.c_str(), r.one_operation_error_percent(), r.error_percent(), note.c_str());
    }
    if (point.set == "evaluation") {
      evaluation_rows.push_back(r);
      evaluation_worst = std::max(evaluation_worst, std::abs(r.error_percent()));
      evaluation_sum += std::abs(r.error_percent());
      evaluation_one_op_worst = std::max(evaluation_one_op_worst, std::abs(r.one_operation_error_percent()));
      evaluation_one_op_sum += std::abs(r.one_operation_error_percent());
      ++evaluation_count;
    } else if (point.known_gap.empty()) {
      worst = std::max(worst, std::abs(r.error_percent()));
      sum += std::abs(r.error_percent());
      ++counted;
    }
  }
  std::printf("\n%d points held to 10 %%: mean |error| %.1f %%, worst %.1f %%\n", counted,
              counted ? sum / counted : 0.0, worst);
  std::printf(
      "%d evaluation points (held out, not held to a threshold): mean |error| %.1f %%, worst %.1f %%\n",
      evaluation_count, evaluation_count ? evaluation_sum / evaluation_count : 0.0, evaluation_worst);
  std::printf("  (against one operation alone: mean |error| %.1f %%, worst %.1f %%)\n",
              evaluation_count ? evaluation_one_op_sum / evaluation_count : 0.0, evaluation_one_op_worst);
  double own_process_sum = 0;
  int own_process_count = 0;
  for (const auto& r : evaluation_rows)
    if (r.point.gpus_per_process == 1) {
      own_process_sum += std::abs(r.error_percent());
      ++own_process_count;
    }
  std::printf("  of which %d with one process per GPU: mean |error| %.1f %%\n", own_process_count,
              own_process_count ? own_process_sum / own_process_count : 0.0);
  return print_sweeps(catalog.value(), model.value(), evaluation_rows, markdown) ? 0 : 1;
}
