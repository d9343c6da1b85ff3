#include "gputwin/catalog/gpu_systems.hpp"

#include <algorithm>

namespace gputwin {

int gpus_per_scale_up_domain(const System& system) {
  return std::max({1, system.accelerators, system.scale_up_domain});
}

int systems_per_scale_up_domain(const System& system) {
  // The catalog refuses a spanning domain that is not a whole number of systems (check_scale_up_domain).
  return gpus_per_scale_up_domain(system) / std::max(1, system.accelerators);
}

bool scale_up_domain_spans_systems(const System& system) {
  return system.accelerators > 0 && system.scale_up_domain > system.accelerators;
}

const RackSystem* rack_system_holding(const Catalog& catalog, const System& tray) {
  const auto& racks = catalog.all<RackSystem>();
  const auto found = std::find_if(racks.begin(), racks.end(),
                                  [&](const RackSystem& rack) { return rack.compute_tray == tray.info.id; });
  return found == racks.end() ? nullptr : &*found;
}

GpuSystemLookup find_gpu_system(const Catalog& catalog, std::string_view id) {
  GpuSystemLookup found;
  found.rack = catalog.find<RackSystem>(id);
  found.node = catalog.find<System>(found.rack == nullptr ? id : std::string_view(found.rack->compute_tray));
  return found;
}

}  // namespace gputwin
