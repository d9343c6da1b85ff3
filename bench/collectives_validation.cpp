// Prints the collective model's validation table: each published nccl-tests bus bandwidth, or for a small
// message its time (data/reference/collectives-published.yaml, with sources), against the prediction, with
// the error (positive: the model is too fast). The prediction is what nccl-tests' loop would print
// (perf/nccl_tests_loop.hpp); "one op" is the error against one operation alone, as before the loop was
// modelled. Usage: collectives_validation [--markdown]
#include "gputwin/perf/collectives_validation.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

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
  return 0;
}
