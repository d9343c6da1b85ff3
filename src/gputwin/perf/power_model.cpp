#include "gputwin/perf/power_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

double watts(Power p) {
  return p.base();
}

double value_of_parameter(const YamlField& root, std::string_view key) {
  const YamlField field = root.child(key);
  field.expect_keys({"value", "kind", "source"});
  (void)field.child("source").text_or_list();  // required: why the default is what it is
  return field.child("value").positive_number();
}

FigureLocation located(const YamlField& field, const std::string& id, std::string_view key) {
  return {field.location().line, fmt::format("accelerators[{}].{}", id, key)};
}

AcceleratorPowerFigures read_accelerator(const YamlField& item) {
  item.expect_keys({"id", "min_limit", "max_limit", "idle", "compute_bound_draw", "memory_bound_draw",
                    "loaded_decode_draw",
                    "min_sm_clock_mhz", "max_sm_clock_mhz", "confidence", "field_confidence", "source",
                    "notes"});
  AcceleratorPowerFigures figures;
  figures.accelerator = item.child("id").text();
  auto power = [&](std::string_view key) -> std::optional<Power> {
    const auto field = item.optional_child(key);
    if (!field) return std::nullopt;
    return field->positive_quantity<Power>();
  };
  figures.min_limit = power("min_limit");
  figures.max_limit = power("max_limit");
  if (const auto f = item.optional_child("min_limit"))
    figures.min_limit_at = located(*f, figures.accelerator, "min_limit");
  if (const auto f = item.optional_child("max_limit"))
    figures.max_limit_at = located(*f, figures.accelerator, "max_limit");
  figures.idle = power("idle");
  figures.compute_bound_draw = power("compute_bound_draw");
  figures.memory_bound_draw = power("memory_bound_draw");
  figures.loaded_decode_draw = power("loaded_decode_draw");
  for (const auto& [key, value, at] :
       {std::tuple{"min_sm_clock_mhz", &figures.min_sm_clock_mhz, &figures.min_sm_clock_at},
        std::tuple{"max_sm_clock_mhz", &figures.max_sm_clock_mhz, &figures.max_sm_clock_at}}) {
    if (const auto f = item.optional_child(key)) {
      *value = f->positive_number();
      *at = located(*f, figures.accelerator, key);
    }
  }
  if (figures.min_sm_clock_mhz.has_value() != figures.max_sm_clock_mhz.has_value())
    item.fail("min_sm_clock_mhz and max_sm_clock_mhz go together (the range --clock-limit may lock in)");
  if (figures.min_sm_clock_mhz && *figures.min_sm_clock_mhz >= *figures.max_sm_clock_mhz)
    item.child("min_sm_clock_mhz").fail("must be below max_sm_clock_mhz");
  figures.confidence =
      item.child("confidence").one_of({"read", "read-plot", "secondary", "derived", "unverified"});
  figures.source = item.child("source").text_or_list();
  if (figures.min_limit && figures.max_limit && *figures.min_limit > *figures.max_limit)
    item.child("min_limit").fail("is above max_limit");
  if (figures.idle && figures.memory_bound_draw && *figures.idle >= *figures.memory_bound_draw)
    item.child("idle").fail("must be below memory_bound_draw");
  if (figures.compute_bound_draw && figures.memory_bound_draw &&
      *figures.compute_bound_draw <= *figures.memory_bound_draw)
    item.child("compute_bound_draw").fail("must be above memory_bound_draw");
  if (figures.compute_bound_draw && figures.max_limit && *figures.compute_bound_draw > *figures.max_limit)
    item.child("compute_bound_draw").fail("must not exceed max_limit");
  return figures;
}

ArchitectureExponent read_architecture_exponent(const YamlField& item) {
  item.expect_keys({"architecture", "value", "kind", "fit_rows", "source"});
  ArchitectureExponent exponent;
  exponent.architecture = item.child("architecture").text();
  const YamlField value = item.child("value");
  exponent.value = value.positive_number();
  exponent.value_at = {value.location().line,
                       fmt::format("architecture_exponents[{}].value", exponent.architecture)};
  (void)item.child("kind").one_of({"fitted"});
  for (const YamlField& row : item.child("fit_rows").items()) exponent.fit_rows.push_back(row.text());
  if (exponent.fit_rows.empty()) item.child("fit_rows").fail("a fitted exponent names the rows it was fitted on");
  exponent.source = item.child("source").text_or_list();
  return exponent;
}

PowerModelData read_power_model(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"dynamic_power_exponent", "compute_bound_draw_fraction", "communication_phase",
                    "bubble_phase", "training_phase_mix", "generic", "accelerators", "systems",
                    "budget_cap_step_w", "architecture_exponents"});
  PowerModelData data;
  data.dynamic_power_exponent = value_of_parameter(root, "dynamic_power_exponent");
  if (const auto exponents = root.optional_child("architecture_exponents")) {
    for (const YamlField& item : exponents->items()) {
      ArchitectureExponent exponent = read_architecture_exponent(item);
      if (data.architecture_exponents.contains(exponent.architecture))
        item.child("architecture").fail("listed twice");
      data.architecture_exponents.emplace(exponent.architecture, std::move(exponent));
    }
  }
  data.compute_bound_draw_fraction = value_of_parameter(root, "compute_bound_draw_fraction");
  data.budget_cap_step = Power::from_base(value_of_parameter(root, "budget_cap_step_w"));
  if (data.compute_bound_draw_fraction > 1)
    root.child("compute_bound_draw_fraction").child("value").fail("must not exceed 1 (the default limit)");
  // The two phase assignments are stated in the file so a reader sees them; only these values are modelled.
  (void)root.child("communication_phase").one_of({"memory_bound"});
  (void)root.child("bubble_phase").one_of({"idle"});
  const YamlField mix = root.child("training_phase_mix");
  mix.expect_keys({"compute", "memory", "idle", "source"});
  data.training_mix.compute = mix.child("compute").number();
  data.training_mix.memory = mix.child("memory").number();
  data.training_mix.idle = mix.child("idle").number();
  for (const double share : {data.training_mix.compute, data.training_mix.memory, data.training_mix.idle}) {
    if (share < 0 || share > 1) mix.fail("every share must be between 0 and 1");
  }
  if (std::abs(data.training_mix.compute + data.training_mix.memory + data.training_mix.idle - 1) > 1e-6)
    mix.fail("the shares must add up to 1");
  data.training_mix.source = mix.child("source").text_or_list();
  const YamlField generic = root.child("generic");
  generic.expect_keys({"idle_fraction", "memory_bound_fraction", "source"});
  data.generic_idle_fraction = generic.child("idle_fraction").positive_number();
  data.generic_memory_bound_fraction = generic.child("memory_bound_fraction").positive_number();
  if (data.generic_idle_fraction >= data.generic_memory_bound_fraction ||
      data.generic_memory_bound_fraction > 1)
    generic.fail("idle_fraction < memory_bound_fraction <= 1 is required");
  (void)generic.child("source").text_or_list();
  for (const YamlField& item : root.child("accelerators").items()) {
    AcceleratorPowerFigures figures = read_accelerator(item);
    if (data.accelerators.contains(figures.accelerator)) item.child("id").fail("listed twice");
    data.accelerators.emplace(figures.accelerator, std::move(figures));
  }
  for (const YamlField& item : root.child("systems").items()) {
    item.expect_keys({"id", "training_typical", "confidence", "source"});
    SystemPowerFigure figure{item.child("id").text(),
                             item.child("training_typical").positive_quantity<Power>(),
                             item.child("source").text_or_list(),
                             item.child("confidence").one_of({"read", "secondary", "derived", "unverified"})};
    data.systems.emplace(figure.system, std::move(figure));
  }
  return data;
}

std::string cap_text(Power p) {
  return fmt::format("{:g} W", watts(p));
}

InputError cap_error(const PowerModelData& data, const FigureLocation& at, std::string message) {
  return InputError{{data.file_label, at.line, 0}, at.field, std::move(message)};
}

// The exponent of the clock^k rule for one accelerator, looked up once per operating point: its
// architecture's fitted one (`fitted` set), else the generic dynamic_power_exponent.
struct ChosenExponent {
  double value;
  bool fitted;
};

ChosenExponent choose_exponent(const PowerModelData& data, const Accelerator& accelerator) {
  const auto found = data.architecture_exponents.find(accelerator.architecture);
  if (found == data.architecture_exponents.end()) return {data.dynamic_power_exponent, false};
  return {found->second.value, true};
}

}  // namespace

Result<PowerModelData> load_power_model(const std::string& path) {
  return result_of<PowerModelData>([&] { return read_power_model(path); });
}

double exponent_for(const PowerModelData& data, const Accelerator& accelerator) {
  return choose_exponent(data, accelerator).value;
}

double clock_fraction(Power limit, Power full, Power idle, double exponent) {
  if (limit >= full) return 1.0;
  const double headroom = std::max(0.0, watts(limit) - watts(idle));
  const double dynamic = watts(full) - watts(idle);
  if (dynamic <= 0) return 1.0;
  return std::pow(headroom / dynamic, 1.0 / exponent);
}

namespace {

// The operating point under `cap` (none: the default limit), with the exponent chosen once by the caller.
Result<PowerOperatingPoint> operating_point(const PowerModelData& data, const Accelerator& accelerator,
                                            std::optional<Power> cap, const ChosenExponent& exponent) {
  PowerOperatingPoint p;
  p.accelerator = accelerator.info.id;
  p.default_limit = accelerator.tdp;
  p.limit = accelerator.tdp;
  const auto found = data.accelerators.find(accelerator.info.id);
  const AcceleratorPowerFigures* figures = found == data.accelerators.end() ? nullptr : &found->second;
  if (cap) {
    if (figures == nullptr || !figures->min_limit) {
      return InputError{{data.file_label, 0, 0},
                        "accelerators",
                        fmt::format("--power-cap {}: {} has no published minimum settable power limit or "
                                    "capped-throughput figure here, so a cap on it is not modelled",
                                    cap_text(*cap), accelerator.info.id)};
    }
    if (*cap < *figures->min_limit) {
      return cap_error(
          data, figures->min_limit_at,
          fmt::format("--power-cap {} is below {}'s minimum settable power limit, {} ({})", cap_text(*cap),
                      accelerator.info.id, cap_text(*figures->min_limit), figures->confidence));
    }
    const Power max = figures->max_limit.value_or(accelerator.tdp);
    if (*cap > max) {
      return cap_error(data, figures->max_limit_at,
                       fmt::format("--power-cap {} is above {}'s maximum settable power limit, {}",
                                   cap_text(*cap), accelerator.info.id, cap_text(max)));
    }
    p.limit = std::min(*cap, accelerator.tdp);
    p.capped = p.limit < accelerator.tdp;
  }
  const double tdp = watts(accelerator.tdp);
  const bool has_idle = figures != nullptr && figures->idle;
  const bool has_memory = figures != nullptr && figures->memory_bound_draw;
  const Power idle = has_idle ? *figures->idle : Power::from_base(data.generic_idle_fraction * tdp);
  const Power memory_full =
      has_memory ? *figures->memory_bound_draw : Power::from_base(data.generic_memory_bound_fraction * tdp);
  // A published prefill/GEMM draw where there is one, else the stated fraction of the default limit; never
  // above the default limit, which a phase cannot draw more than.
  const bool has_compute = figures != nullptr && figures->compute_bound_draw;
  const Power compute_full = has_compute ? std::min(*figures->compute_bound_draw, accelerator.tdp)
                                         : Power::from_base(data.compute_bound_draw_fraction * tdp);
  p.generic = !has_idle || !has_memory;
  p.compute_factor = clock_fraction(p.limit, compute_full, idle, exponent.value);
  p.memory_factor = clock_fraction(p.limit, memory_full, idle, exponent.value);
  p.draw.compute = std::min(p.limit, compute_full);
  p.draw.memory = std::min(p.limit, memory_full);
  p.draw.communication = p.draw.memory;
  p.draw.idle = std::min(p.limit, idle);
  const std::string idle_basis = has_idle ? "published" : "generic";
  const std::string memory_basis = has_memory ? "published" : "generic";
  const std::string compute_basis =
      has_compute ? std::string("published")
                  : fmt::format("{:g} x the {:.0f} W default limit", data.compute_bound_draw_fraction, tdp);
  p.basis = fmt::format(
      "{}: idle {:.0f} W ({}), memory-bound {:.0f} W ({}), compute-bound {:.0f} W ({}); clock^{:g} rule "
      "({}{})",
      accelerator.info.id, watts(idle), idle_basis, watts(memory_full), memory_basis, watts(compute_full),
      compute_basis, exponent.value,
      exponent.fitted ? "fitted for " + accelerator.architecture + ", " : std::string(), data.file_label);
  return p;
}

}  // namespace

Result<PowerOperatingPoint> power_operating_point(const PowerModelData& data, const Accelerator& accelerator,
                                                  std::optional<Power> cap) {
  return operating_point(data, accelerator, cap, choose_exponent(data, accelerator));
}

Result<PowerOperatingPoint> clock_limited_operating_point(const PowerModelData& data,
                                                          const Accelerator& accelerator, double clock_mhz) {
  const auto found = data.accelerators.find(accelerator.info.id);
  const AcceleratorPowerFigures* figures = found == data.accelerators.end() ? nullptr : &found->second;
  if (figures == nullptr || !figures->max_sm_clock_mhz) {
    return InputError{
        {data.file_label, 0, 0},
        "accelerators",
        fmt::format("--clock-limit {:g} MHz: {} has no published SM clock range here, so a clock "
                    "limit on it is not modelled",
                    clock_mhz, accelerator.info.id)};
  }
  if (clock_mhz < *figures->min_sm_clock_mhz) {
    return cap_error(
        data, figures->min_sm_clock_at,
        fmt::format("--clock-limit {:g} MHz is below {}'s lowest SM clock, {:g} MHz ({})", clock_mhz,
                    accelerator.info.id, *figures->min_sm_clock_mhz, figures->confidence));
  }
  if (clock_mhz > *figures->max_sm_clock_mhz) {
    return cap_error(data, figures->max_sm_clock_at,
                     fmt::format("--clock-limit {:g} MHz is above {}'s maximum SM clock, {:g} MHz", clock_mhz,
                                 accelerator.info.id, *figures->max_sm_clock_mhz));
  }
  const ChosenExponent exponent = choose_exponent(data, accelerator);
  auto point = operating_point(data, accelerator, std::nullopt, exponent);
  if (!point.ok()) return point;
  PowerOperatingPoint p = std::move(point).value();
  const double f = clock_mhz / *figures->max_sm_clock_mhz;
  const Power idle = p.draw.idle;
  const Power compute_full = p.draw.compute;
  p.clock_limit_mhz = clock_mhz;
  p.max_clock_mhz = *figures->max_sm_clock_mhz;
  p.capped = f < 1;
  p.compute_factor = f;
  p.memory_factor = 1;
  p.draw.compute = idle + (compute_full - idle) * std::pow(f, exponent.value);
  p.draw.memory = std::min(p.draw.memory, p.draw.compute);
  p.draw.communication = p.draw.memory;
  p.basis += fmt::format(
      "; SM clock locked at {:g} of {:g} MHz (f = {:.3f}, compute-bound draw by the rule inverted)",
      clock_mhz, *figures->max_sm_clock_mhz, f);
  return p;
}

PerfHardware capped_hardware(PerfHardware hardware, const PowerOperatingPoint& point) {
  for (auto& [precision, rate] : hardware.accelerator.dense_compute) {
    if (rate) *rate = *rate * point.compute_factor;
  }
  hardware.accelerator.memory_bandwidth = hardware.accelerator.memory_bandwidth * point.memory_factor;
  return hardware;
}

TrainingEstimate at_datasheet_peak(TrainingEstimate estimate, const PowerOperatingPoint& point) {
  if (point.compute_factor >= 1.0 || point.compute_factor <= 0) return estimate;
  estimate.peak_flops_per_gpu /= point.compute_factor;
  estimate.mfu *= point.compute_factor;
  estimate.hfu *= point.compute_factor;
  return estimate;
}

const char* phase_name(PowerPhase phase) {
  switch (phase) {
    case PowerPhase::compute:
      return "compute";
    case PowerPhase::memory:
      return "memory";
    case PowerPhase::communication:
      return "communication";
    case PowerPhase::idle:
      return "idle";
  }
  return "?";
}

std::vector<PhaseTime> training_phases(const TrainingEstimate& estimate) {
  std::vector<PhaseTime> phases;
  for (const TimeTerm& t : estimate.terms) {
    PowerPhase phase = PowerPhase::communication;
    if (t.name == "compute" || t.name == "recompute") phase = PowerPhase::compute;
    if (t.name == "optimizer") phase = PowerPhase::memory;
    if (t.name == "pipeline bubble") phase = PowerPhase::idle;
    phases.push_back({phase, t.seconds});
  }
  return phases;
}

std::vector<PhaseTime> inference_phases(const InferenceEstimate& estimate, int output_tokens) {
  std::vector<PhaseTime> phases;
  auto add = [&](const StepTime& step, double times) {
    const PowerPhase bound = step.compute_bound() ? PowerPhase::compute : PowerPhase::memory;
    phases.push_back({bound, times * std::max(step.compute_s, step.memory_s)});
    phases.push_back({PowerPhase::communication, times * step.communication_s});
    phases.push_back({PowerPhase::idle, times * step.host_s});
  };
  add(estimate.prefill, 1);
  add(estimate.decode, output_tokens);
  return phases;
}

Power non_gpu_power(const System& system, const Accelerator& accelerator) {
  const double rest = watts(system.power_max) - system.accelerators * watts(accelerator.tdp);
  return Power::from_base(std::max(0.0, rest));
}

NodePower node_power_of(const Catalog& catalog, const RackDensity& density, const System& system,
                        const Accelerator& accelerator) {
  NodePower node;
  node.gpus_per_node = std::max(1, system.accelerators);
  node.non_gpu = non_gpu_power(system, accelerator);
  node.non_gpu_rule =
      fmt::format("{} power_max {:.1f} kW - {} x {:.0f} W TDP", system.info.id,
                  system.power_max.base() / 1000, system.accelerators, accelerator.tdp.base());
  const SystemsPerRack rack = systems_per_rack(catalog, density, system);
  node.nodes_per_rack = std::max(1, rack.systems);
  node.rack_rule = rack.rule;
  return node;
}

EnergyEstimate energy_of(const std::vector<PhaseTime>& phases, const PowerOperatingPoint& point,
                         const NodePower& node, int gpus) {
  auto draw = [&](PowerPhase phase) {
    switch (phase) {
      case PowerPhase::compute:
        return point.draw.compute;
      case PowerPhase::memory:
        return point.draw.memory;
      case PowerPhase::communication:
        return point.draw.communication;
      case PowerPhase::idle:
        return point.draw.idle;
    }
    return point.draw.idle;
  };
  EnergyEstimate e;
  e.gpus = gpus;
  e.nodes = (gpus + node.gpus_per_node - 1) / std::max(1, node.gpus_per_node);
  double gpu_joules = 0;  // one GPU
  for (const PhaseTime& t : phases) {
    if (t.seconds <= 0) continue;
    e.seconds += t.seconds;
    gpu_joules += watts(draw(t.phase)) * t.seconds;
    e.gpu_peak = std::max(e.gpu_peak, draw(t.phase));
  }
  e.gpu_average = e.seconds > 0 ? Power::from_base(gpu_joules / e.seconds) : Power{};
  const double per_node = node.gpus_per_node;
  e.node_average = e.gpu_average * per_node + node.non_gpu;
  e.node_peak = e.gpu_peak * per_node + node.non_gpu;
  e.rack_average = e.node_average * node.nodes_per_rack;
  e.rack_peak = e.node_peak * node.nodes_per_rack;
  e.gpu_energy_j = gpu_joules * gpus;
  e.energy_j = e.gpu_energy_j + watts(node.non_gpu) * e.nodes * e.seconds;
  return e;
}

}  // namespace gputwin
