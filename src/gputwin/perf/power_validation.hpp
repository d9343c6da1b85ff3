// The power model against published points it was not built from (data/reference/power-published.yaml).
//
//   Result<std::vector<PowerReferencePoint>> points = load_power_reference(path, model_data, catalog);
//   PowerCheck c = check_throughput_point(model_data, catalog, point);   // c.predicted, c.error (0 inside
//   range); check_clock_point(point) for a throughput measured at a lowered SM clock
//
// Rows are split by source (the file's header): `set: fit` rows built the Hopper exponent
// (data/power/power-model.yaml architecture_exponents, bench/power_validation.cpp --fit), `set: evaluation`
// rows check it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/power_model.hpp"

namespace gputwin {

struct PowerReferencePoint {
  std::string id;
  std::string set;   // fit | evaluation
  std::string kind;  // throughput_factor | clock_throughput_factor | node_training_power
  std::string accelerator, system;
  std::string phase;  // compute | memory (throughput_factor)
  Power cap;
  // clock_throughput_factor: the SM clock it ran at, of this maximum.
  double clock_mhz = 0;
  double max_clock_mhz = 0;
  double low = 0, high = 0;         // the published range (a factor, or watts)
  std::optional<double> tolerance;  // the |error| a test holds it to; empty: reported only (a known gap)
  std::string source;
};

// Reads the published points; every row's accelerator must be in `catalog` and a throughput_factor's cap
// within the part's settable range (the model's published maximum, else the catalog tdp): a bad row is a
// located error (file, line, field).
[[nodiscard]] Result<std::vector<PowerReferencePoint>> load_power_reference(const std::string& path,
                                                                            const PowerModelData& data,
                                                                            const Catalog& catalog);

// The exponent in [low, high] (steps of `step`) with the least root-mean-square relative range error over the
// throughput_factor `points` (of one architecture), and that error: the calibration bench/power_validation.cpp
// --fit prints.
struct ExponentFit {
  double exponent = 0;
  double rms_error = 0;
};
[[nodiscard]] Result<ExponentFit> fit_exponent(PowerModelData data, const Catalog& catalog,
                                               const std::vector<PowerReferencePoint>& points, double low,
                                               double high, double step);

struct PowerCheck {
  double predicted = 0;
  double error = 0;  // relative to the nearest end of the published range; 0 inside it
};

// Relative error of `predicted` against [low, high].
[[nodiscard]] double range_error(double predicted, double low, double high);

// A throughput_factor point: the model's factor of the point's phase at its cap, by the rule of
// power_model.hpp with the accelerator's figures (or the generic draws), also where --power-cap refuses the
// accelerator for want of a published minimum limit.
[[nodiscard]] Result<PowerCheck> check_throughput_point(const PowerModelData& data, const Catalog& catalog,
                                                        const PowerReferencePoint& point);

// A clock_throughput_factor point: compute-bound throughput at SM clock fraction f = clock / max clock is f,
// the rule --clock-limit applies (clock_limited_operating_point), checked also where the accelerator has no
// published clock range for --clock-limit to accept.
[[nodiscard]] PowerCheck check_clock_point(const PowerReferencePoint& point);

}  // namespace gputwin
