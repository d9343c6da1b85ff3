#include "gputwin/perf/system_power.hpp"

#include <fmt/format.h>

namespace gputwin {
namespace {

double watts(Power p) {
  return p.base();
}

std::string percent(double share) {
  return fmt::format("{:.0f} %", share * 100);
}

// The one-line derivation of a modelled training figure.
std::string modelled_source(const PowerModelData& data, const System& system,
                            const PowerOperatingPoint& point, Power gpu, Power non_gpu) {
  const TrainingPhaseMix& mix = data.training_mix;
  return fmt::format(
      "{} x {:.0f} W ({} at the training phase mix: {} compute-bound at {:.0f} W, {} memory-bound at {:.0f} "
      "W, {} "
      "idle at {:.0f} W{}) + {} non-GPU (power_max - GPUs x TDP); {}",
      system.accelerators, watts(gpu), point.accelerator, percent(mix.compute), watts(point.draw.compute),
      percent(mix.memory), watts(point.draw.memory), percent(mix.idle), watts(point.draw.idle),
      point.generic ? ", generic draws" : "", format_power(non_gpu), data.file_label);
}

}  // namespace

Power typical_training_gpu_draw(const PowerModelData& data, const Accelerator& accelerator) {
  const auto point = power_operating_point(data, accelerator, std::nullopt);
  if (!point.ok()) return accelerator.tdp;  // unreachable: the default limit needs no figure
  const PhaseDraw& draw = point.value().draw;
  const TrainingPhaseMix& mix = data.training_mix;
  return draw.compute * mix.compute + draw.memory * mix.memory + draw.idle * mix.idle;
}

std::optional<SystemTypicalPower> typical_system_power(const PowerModelData& data, const Catalog& catalog,
                                                       const System& system) {
  if (system.accelerator.empty() || system.accelerators <= 0) return std::nullopt;
  const Accelerator* accelerator = catalog.find<Accelerator>(system.accelerator);
  if (accelerator == nullptr) return std::nullopt;
  const auto point = power_operating_point(data, *accelerator, std::nullopt);
  if (!point.ok()) return std::nullopt;
  const Power non_gpu = non_gpu_power(system, *accelerator);
  const Power gpu = typical_training_gpu_draw(data, *accelerator);
  SystemTypicalPower typical{system.info.id, gpu * system.accelerators + non_gpu, {}};
  typical.note.basis = "modelled";
  typical.note.confidence = point.value().generic ? "generic" : "derived";
  typical.note.source = modelled_source(data, system, point.value(), gpu, non_gpu);
  if (const auto published = data.systems.find(system.info.id); published != data.systems.end()) {
    typical.training = published->second.training_typical;
    typical.note.basis = "published";
    typical.note.confidence = published->second.confidence;
    typical.note.source = published->second.source;
  }
  const auto figures = data.accelerators.find(accelerator->info.id);
  if (figures != data.accelerators.end() && figures->second.loaded_decode_draw) {
    const Power loaded = *figures->second.loaded_decode_draw;
    typical.note.inference = loaded * system.accelerators + non_gpu;
    typical.note.inference_source =
        fmt::format("{} x {:.0f} W ({}'s published loaded-decode draw) + {} non-GPU; {}", system.accelerators,
                    watts(loaded), accelerator->info.id, format_power(non_gpu), data.file_label);
  }
  return typical;
}

std::optional<SystemTypicalPower> typical_rack_system_power(const PowerModelData& data,
                                                            const Catalog& catalog, const RackSystem& rack) {
  const System* tray = catalog.find<System>(rack.compute_tray);
  if (tray == nullptr) return std::nullopt;
  // The tray's own catalog figure when its file gives one, else the model's (as the tray itself gets).
  const bool from_catalog = tray->power_typical && !tray->typical_note;
  std::optional<SystemTypicalPower> of_tray;
  if (!from_catalog) {
    of_tray = typical_system_power(data, catalog, *tray);
    if (!of_tray) return std::nullopt;
  }
  const Power tray_typical = from_catalog ? *tray->power_typical : Power{};
  const Power per_tray = of_tray ? of_tray->training : tray_typical;
  const Power switches = rack.switch_trays.power_max * rack.switch_trays.count;
  SystemTypicalPower typical{rack.info.id, per_tray * rack.compute_trays + switches, {}};
  const std::string tray_basis = of_tray ? of_tray->note.basis + ": " + of_tray->note.source : "catalog";
  typical.note.basis = of_tray ? of_tray->note.basis : "modelled";
  typical.note.confidence = of_tray ? of_tray->note.confidence : "derived";
  typical.note.source =
      fmt::format("{} x {} {} typical ({}) + {} x {} {} at their maximum", rack.compute_trays,
                  format_power(per_tray), rack.compute_tray, tray_basis, rack.switch_trays.count,
                  format_power(rack.switch_trays.power_max), rack.switch_trays.name);
  return typical;
}

}  // namespace gputwin
