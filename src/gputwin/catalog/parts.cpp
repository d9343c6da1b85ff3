#include "gputwin/catalog/parts.hpp"

#include <cmath>

namespace gputwin {

const char* role_name(NetworkRole role) {
  switch (role) {
    case NetworkRole::compute:
      return "compute";
    case NetworkRole::storage:
      return "storage";
    case NetworkRole::inband:
      return "inband";
    case NetworkRole::oob:
      return "oob";
  }
  return "?";
}

const char* medium_name(Medium medium) {
  switch (medium) {
    case Medium::passive_copper:
      return "passive_copper";
    case Medium::active_copper:
      return "active_copper";
    case Medium::multimode:
      return "multimode";
    case Medium::singlemode:
      return "singlemode";
    case Medium::twisted_pair:
      return "twisted_pair";
  }
  return "?";
}

const char* cooling_method_name(CoolingMethod method) {
  switch (method) {
    case CoolingMethod::air:
      return "air";
    case CoolingMethod::hybrid:
      return "hybrid";
    case CoolingMethod::liquid:
      return "liquid";
  }
  return "?";
}

RackSpace RackSystem::occupied_rack_units(const System& tray) const {
  return tray.rack_units * compute_trays + switch_trays.rack_units * switch_trays.count +
         power_shelves.rack_units * power_shelves.count + other_rack_units;
}

bool needs_transceivers(Medium medium) {
  return medium == Medium::multimode || medium == Medium::singlemode;
}

int Switch::radix_at(DataRate speed) const {
  for (const auto& mode : port_modes) {
    if (mode.speed == speed) return mode.ports;
  }
  return 0;
}

int Switch::ports_per_cage_at(DataRate speed) const {
  const int radix = radix_at(speed);
  if (radix == 0 || cages == 0) return 1;
  return std::max(1, radix / cages);
}

Power Circuit::usable_power() const {
  const double phase_factor = phases == 3 ? std::sqrt(3.0) : 1.0;
  return watts(voltage.base() * current.base() * phase_factor * continuous_derating);
}

}  // namespace gputwin
