// The power model's cap-to-throughput curve against published points: every throughput row of
// data/reference/power-published.yaml (fit rows, then evaluation rows) with the model's factor and error, by
// architecture, at the exponents data/power/power-model.yaml holds. With --fit, the calibration: for each
// architecture with `set: fit` rows, the exponent (1.00-4.00, steps of 0.01) with the least root-mean-square
// error over its fit rows only, with the fit and evaluation errors it gives beside the stored value's and the
// generic one's. Evaluation rows never enter the fit. Usage: power_validation [--fit]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/power_validation.hpp"

namespace {

using gputwin::Catalog;
using gputwin::PowerModelData;
using gputwin::PowerReferencePoint;

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

struct Errors {
  double rms = 0, largest = 0;
};

// Errors of `points` with every architecture at `exponent` (or at the file's exponents when negative).
Errors errors_at(PowerModelData data, const Catalog& catalog, const std::vector<PowerReferencePoint>& points,
                 double exponent) {
  if (exponent > 0) {
    data.architecture_exponents.clear();
    data.dynamic_power_exponent = exponent;
  }
  Errors e;
  double squares = 0;
  for (const PowerReferencePoint& point : points) {
    const double error = gputwin::check_throughput_point(data, catalog, point).value().error;
    squares += error * error;
    if (std::abs(error) > std::abs(e.largest)) e.largest = error;
  }
  if (!points.empty()) e.rms = std::sqrt(squares / static_cast<double>(points.size()));
  return e;
}

void print_rows(const PowerModelData& data, const Catalog& catalog,
                const std::vector<PowerReferencePoint>& points, const char* set) {
  for (const PowerReferencePoint& point : points) {
    if (point.set != set || point.kind != "throughput_factor") continue;
    const auto& accelerator = catalog.get<gputwin::Accelerator>(point.accelerator);
    const auto check = gputwin::check_throughput_point(data, catalog, point).value();
    std::printf("  %-10s %-36s %-9s %4.0f W  %-7s published %.3f-%.3f  model %.3f  error %+6.1f %%  (k %.2f)\n",
                set, point.id.c_str(), point.accelerator.c_str(), point.cap.base(), point.phase.c_str(),
                point.low, point.high, check.predicted, 100 * check.error,
                gputwin::exponent_for(data, accelerator));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool fit = argc > 1 && std::strcmp(argv[1], "--fit") == 0;
  const auto catalog = Catalog::load({source_path("data/catalog")});
  const auto data = gputwin::load_power_model(source_path("data/power/power-model.yaml"));
  if (!catalog.ok() || !data.ok()) {
    std::fprintf(stderr, "%s%s\n", catalog.ok() ? "" : catalog.error_text().c_str(),
                 data.ok() ? "" : data.error_text().c_str());
    return 1;
  }
  const auto points = gputwin::load_power_reference(source_path("data/reference/power-published.yaml"),
                                                    data.value(), catalog.value());
  if (!points.ok()) {
    std::fprintf(stderr, "%s\n", points.error_text().c_str());
    return 1;
  }
  std::printf("Throughput under a power cap, model against published (data/reference/power-published.yaml)\n");
  print_rows(data.value(), catalog.value(), points.value(), "fit");
  print_rows(data.value(), catalog.value(), points.value(), "evaluation");
  if (!fit) return 0;

  // The calibration: fit rows and evaluation rows of each architecture, by the catalog's architecture.
  std::map<std::string, std::vector<PowerReferencePoint>> fit_rows, evaluation_rows;
  for (const PowerReferencePoint& point : points.value()) {
    if (point.kind != "throughput_factor") continue;
    const std::string& architecture = catalog.value().get<gputwin::Accelerator>(point.accelerator).architecture;
    (point.set == "fit" ? fit_rows : evaluation_rows)[architecture].push_back(point);
  }
  const double generic = data.value().dynamic_power_exponent;
  std::printf("\nCalibration of the exponent, on fit rows only (generic exponent %.2f)\n", generic);
  for (const auto& [architecture, rows] : fit_rows) {
    const auto best = gputwin::fit_exponent(data.value(), catalog.value(), rows, 1.0, 4.0, 0.01);
    if (!best.ok()) {
      std::fprintf(stderr, "%s\n", best.error_text().c_str());
      return 1;
    }
    const auto stored = data.value().architecture_exponents.find(architecture);
    const double held = stored == data.value().architecture_exponents.end() ? generic : stored->second.value;
    std::printf("  %s: %zu fit rows, %zu evaluation rows; fitted exponent %.2f (stored %.2f)\n",
                architecture.c_str(), rows.size(), evaluation_rows[architecture].size(), best.value().exponent,
                held);
    for (const auto& [label, k] : {std::pair{"fitted", best.value().exponent}, std::pair{"stored", held},
                                   std::pair{"generic", generic}}) {
      const Errors on_fit = errors_at(data.value(), catalog.value(), rows, k);
      const Errors on_evaluation = errors_at(data.value(), catalog.value(), evaluation_rows[architecture], k);
      std::printf("    k %.2f (%s): fit RMS %.1f %% (largest %+.1f %%), evaluation RMS %.1f %% (largest %+.1f %%)\n",
                  k, label, 100 * on_fit.rms, 100 * on_fit.largest, 100 * on_evaluation.rms,
                  100 * on_evaluation.largest);
    }
  }
  for (const auto& [architecture, rows] : evaluation_rows) {
    if (fit_rows.contains(architecture)) continue;
    std::printf("  %s: no fit rows; keeps the generic exponent %.2f (%zu evaluation rows)\n",
                architecture.c_str(), generic, rows.size());
  }
  return 0;
}
