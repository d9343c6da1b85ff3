#include "gputwin/design/facility_overhead.hpp"

#include <fmt/format.h>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

double loss_fraction(const YamlField& field) {
  const double value = field.number();
  if (value < 0.0 || value > 1.0) field.fail("expected a fraction between 0 and 1");
  return value;
}

OverheadCurves read_overhead_curves(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"curves"});
  OverheadCurves curves;
  for (const YamlField& item : root.child("curves").items()) {
    item.expect_keys({"cooling", "source", "confidence", "notes", "components"});
    OverheadCurve curve;
    curve.cooling = item.child("cooling").text();
    curve.source = item.child("source").text_or_list();
    curve.confidence = item.child("confidence").one_of({"read", "secondary", "derived", "unverified"});
    for (const YamlField& component : item.child("components").items()) {
      component.expect_keys({"name", "no_load", "proportional", "square_law"});
      curve.components.push_back({component.child("name").text(), loss_fraction(component.child("no_load")),
                                  loss_fraction(component.child("proportional")),
                                  loss_fraction(component.child("square_law"))});
    }
    if (!(curve.full_load() > 0.0)) item.child("components").fail("the losses must not all be 0");
    if (curves.by_cooling.contains(curve.cooling)) item.child("cooling").fail("listed twice");
    curves.by_cooling.emplace(curve.cooling, std::move(curve));
  }
  return curves;
}

}  // namespace

double OverheadCurve::no_load() const {
  double sum = 0.0;
  for (const auto& component : components) sum += component.no_load;
  return sum;
}

double OverheadCurve::proportional() const {
  double sum = 0.0;
  for (const auto& component : components) sum += component.proportional;
  return sum;
}

double OverheadCurve::square_law() const {
  double sum = 0.0;
  for (const auto& component : components) sum += component.square_law;
  return sum;
}

const OverheadCurve* OverheadCurves::find(const std::string& cooling) const {
  const auto found = by_cooling.find(cooling);
  return found == by_cooling.end() ? nullptr : &found->second;
}

Result<OverheadCurves> load_overhead_curves(const std::string& path) {
  return result_of<OverheadCurves>([&] { return read_overhead_curves(path); });
}

const Result<OverheadCurves>& bundled_overhead_curves() {
  static const Result<OverheadCurves> curves =
      load_overhead_curves(bundled_data_dir() + "/power/facility-overhead.yaml");
  return curves;
}

Power FacilityOverhead::facility_power(Power it) const {
  if (!curve || !(capacity > Power{})) return it * full_load_pue;
  const double load = it / capacity;
  return it + fixed + it * proportional + square_law * (load * load);
}

double FacilityOverhead::pue_at(Power it) const {
  if (!(it > Power{})) return full_load_pue;
  return facility_power(it) / it;
}

double FacilityOverhead::fixed_share() const {
  const Power overhead = capacity * (full_load_pue - 1.0);
  return curve && overhead > Power{} ? fixed / overhead : 0.0;
}

FacilityOverhead facility_overhead(const OverheadCurve* curve, double full_load_pue, Power capacity) {
  FacilityOverhead overhead;
  overhead.full_load_pue = full_load_pue;
  overhead.capacity = capacity;
  overhead.proportional = full_load_pue - 1.0;
  if (curve == nullptr || !(capacity > Power{}) || !(curve->full_load() > 0.0)) return overhead;
  // The source's split of its full-load overhead, scaled to this site's: at full load the three parts sum to
  // (PUE - 1) x capacity, as the source's own parts sum to its single-parameter total.
  const double scale = (full_load_pue - 1.0) / curve->full_load();
  overhead.curve = true;
  overhead.fixed = capacity * (curve->no_load() * scale);
  overhead.proportional = curve->proportional() * scale;
  overhead.square_law = capacity * (curve->square_law() * scale);
  overhead.basis = curve->cooling + " split (data/power/facility-overhead.yaml)";
  return overhead;
}

FacilityOverhead design_facility_overhead(const std::string& cooling, const PowerSummary& power) {
  FacilityOverhead flat = facility_overhead(nullptr, power.pue, power.it_max);
  if (power.liquid_pue != power.air_pue) {
    flat.basis = "no overhead split for heat sent to liquid";
    return flat;
  }
  const Result<OverheadCurves>& curves = bundled_overhead_curves();
  if (!curves.ok()) {
    flat.basis = curves.error_text();
    return flat;
  }
  const OverheadCurve* curve = curves.value().find(cooling);
  if (curve == nullptr) {
    flat.basis = "no overhead split for " + cooling;
    return flat;
  }
  return facility_overhead(curve, power.pue, power.it_max);
}

}  // namespace gputwin
