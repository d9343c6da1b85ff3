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

const char* module_power_scope_name(ModulePowerScope scope) {
  switch (scope) {
    case ModulePowerScope::included:
      return "included";
    case ModulePowerScope::excluded:
      return "excluded";
    case ModulePowerScope::unknown:
      return "unknown";
  }
  return "unknown";
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

const char* storage_tier_name(StorageTier tier) {
  switch (tier) {
    case StorageTier::good:
      return "good";
    case StorageTier::better:
      return "better";
    case StorageTier::best:
      return "best";
  }
  return "?";
}

StorageRates StorageTierTable::aggregate_at(StorageTier tier, double scalable_units) const {
  if (aggregate.empty() || scalable_units <= 0.0) return {};
  auto scaled = [&](const Row& row, double factor) {
    const StorageRates& rates = row.rates.at(tier);
    return StorageRates{rates.read * factor, rates.write * factor};
  };
  const Row& first = aggregate.front();
  if (scalable_units <= first.scalable_units) return scaled(first, scalable_units / first.scalable_units);
  for (std::size_t i = 1; i < aggregate.size(); ++i) {
    const Row& low = aggregate[i - 1];
    const Row& high = aggregate[i];
    if (scalable_units > high.scalable_units) continue;
    const double t = (scalable_units - low.scalable_units) / (high.scalable_units - low.scalable_units);
    const StorageRates& a = low.rates.at(tier);
    const StorageRates& b = high.rates.at(tier);
    return {a.read + (b.read - a.read) * t, a.write + (b.write - a.write) * t};
  }
  const Row& last = aggregate.back();
  return scaled(last, scalable_units / last.scalable_units);
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
