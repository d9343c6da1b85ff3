#include "gputwin/perf/power_validation.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

// A row's accelerator must be in the catalog and a throughput_factor's cap within the part's settable range
// (the published maximum, else the catalog tdp), each a located error on the row's field.
void check_against_catalog(const YamlField& item, const PowerReferencePoint& p, const PowerModelData& data,
                           const Catalog& catalog) {
  if (p.accelerator.empty()) return;
  const auto* accelerator = catalog.find<Accelerator>(p.accelerator);
  if (accelerator == nullptr)
    item.child("accelerator").fail("unknown accelerator '" + p.accelerator + "' (not in the catalog)");
  if (p.kind != "throughput_factor") return;
  Power max = accelerator->tdp;
  std::string basis = "its default limit (catalog tdp)";
  if (const auto found = data.accelerators.find(p.accelerator);
      found != data.accelerators.end() && found->second.max_limit) {
    max = *found->second.max_limit;
    basis = "its maximum settable limit (" + data.file_label + ")";
  }
  if (p.cap > max)
    item.child("cap").fail(fmt::format("{:g} W is above {}'s {:g} W, {}", p.cap.base(), p.accelerator,
                                       max.base(), basis));
}

std::vector<PowerReferencePoint> read_reference(const std::string& path, const PowerModelData& data,
                                                const Catalog& catalog) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"points"});
  std::vector<PowerReferencePoint> points;
  for (const YamlField& item : root.child("points").items()) {
    item.expect_keys({"id", "set", "kind", "accelerator", "system", "phase", "cap", "clock_mhz",
                      "max_clock_mhz", "published", "tolerance", "confidence", "source"});
    PowerReferencePoint p;
    p.id = item.child("id").text();
    p.set = item.child("set").one_of({"fit", "evaluation"});
    p.kind =
        item.child("kind").one_of({"throughput_factor", "clock_throughput_factor", "node_training_power"});
    p.source = item.child("source").text_or_list();
    const std::vector<YamlField> range = item.child("published").items();
    if (range.size() != 2) item.child("published").fail("expected [low, high]");
    if (p.kind == "throughput_factor") {
      p.accelerator = item.child("accelerator").text();
      p.phase = item.child("phase").one_of({"compute", "memory"});
      p.cap = item.child("cap").positive_quantity<Power>();
      p.low = range[0].positive_number();
      p.high = range[1].positive_number();
    } else if (p.kind == "clock_throughput_factor") {
      p.accelerator = item.child("accelerator").text();
      p.phase = item.child("phase").one_of({"compute"});
      p.clock_mhz = item.child("clock_mhz").positive_number();
      p.max_clock_mhz = item.child("max_clock_mhz").positive_number();
      if (p.clock_mhz > p.max_clock_mhz) item.child("clock_mhz").fail("above max_clock_mhz");
      p.low = range[0].positive_number();
      p.high = range[1].positive_number();
    } else {
      p.system = item.child("system").text();
      p.low = range[0].positive_quantity<Power>().base();
      p.high = range[1].positive_quantity<Power>().base();
    }
    if (p.low > p.high) item.child("published").fail("low is above high");
    if (const auto tolerance = item.optional_child("tolerance")) p.tolerance = tolerance->positive_number();
    check_against_catalog(item, p, data, catalog);
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace

Result<std::vector<PowerReferencePoint>> load_power_reference(const std::string& path, const PowerModelData& data,
                                                              const Catalog& catalog) {
  return result_of<std::vector<PowerReferencePoint>>([&] { return read_reference(path, data, catalog); });
}

double range_error(double predicted, double low, double high) {
  if (predicted < low) return predicted / low - 1;
  if (predicted > high) return predicted / high - 1;
  return 0;
}

Result<PowerCheck> check_throughput_point(const PowerModelData& data, const Catalog& catalog,
                                          const PowerReferencePoint& point) {
  const auto* accelerator = catalog.find<Accelerator>(point.accelerator);
  if (accelerator == nullptr)
    return InputError{{}, point.id, "unknown accelerator '" + point.accelerator + "'"};
  auto at_default = power_operating_point(data, *accelerator, std::nullopt);
  if (!at_default.ok()) return at_default.errors();
  const PhaseDraw& draw = at_default.value().draw;
  PowerCheck check;
  check.predicted = clock_fraction(point.cap, point.phase == "compute" ? draw.compute : draw.memory,
                                   draw.idle, exponent_for(data, *accelerator));
  check.error = range_error(check.predicted, point.low, point.high);
  return check;
}

Result<ExponentFit> fit_exponent(PowerModelData data, const Catalog& catalog,
                                 const std::vector<PowerReferencePoint>& points, double low, double high,
                                 double step) {
  data.architecture_exponents.clear();  // every point at the trial exponent
  ExponentFit best{0, std::numeric_limits<double>::infinity()};
  const int steps = static_cast<int>(std::lround((high - low) / step));
  for (int i = 0; i <= steps; ++i) {
    data.dynamic_power_exponent = low + i * step;
    double squares = 0;
    for (const PowerReferencePoint& point : points) {
      const auto check = check_throughput_point(data, catalog, point);
      if (!check.ok()) return check.errors();
      squares += check.value().error * check.value().error;
    }
    const double rms = std::sqrt(squares / static_cast<double>(points.size()));
    if (rms < best.rms_error) best = {data.dynamic_power_exponent, rms};
  }
  return best;
}

PowerCheck check_clock_point(const PowerReferencePoint& point) {
  PowerCheck check;
  check.predicted = point.clock_mhz / point.max_clock_mhz;
  check.error = range_error(check.predicted, point.low, point.high);
  return check;
}

}  // namespace gputwin
