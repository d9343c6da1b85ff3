#include "gputwin/design/power_and_cost.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "gputwin/design/cabling.hpp"
#include "gputwin/design/facility_overhead.hpp"

namespace gputwin {

int pdus_for(Power rack_load, Power circuit_capacity, PduRedundancy redundancy) {
  const int needed = std::max(1, static_cast<int>(std::ceil(rack_load / circuit_capacity - 1e-9)));
  return redundancy == PduRedundancy::two_n ? 2 * needed : std::max(2, needed + 1);
}

int add_pdus(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster) {
  const FacilitySpec& facility = spec.facility;
  const Pdu& pdu = catalog.get<Pdu>(facility.pdu);
  const Power capacity = catalog.get<Circuit>(pdu.circuit).usable_power();
  // Compute racks are one rack type, provisioned alike: a short last rack gets the PDUs of a full one.
  Power compute_rack_design_load;
  for (const auto& rack : cluster.racks) {
    if (rack.kind == RackKind::compute && rack.system.empty())
      compute_rack_design_load = std::max(compute_rack_design_load, rack.power_max);
  }
  int added = 0;
  for (std::size_t r = 0; r < cluster.racks.size(); ++r) {
    Rack& rack = cluster.racks[r];
    if (!rack.system.empty()) continue;  // a rack-scale system's power shelves feed its bus bar, not PDUs
    const Power provisioned = rack.kind == RackKind::compute ? compute_rack_design_load : rack.power_max;
    const int needed = pdus_for(std::max(provisioned, rack.power_max), capacity, facility.pdu_redundancy);
    for (; rack.pdus < needed; ++rack.pdus, ++added) {
      Device device;
      // PDUs alternate between the A and B feeds.
      device.name =
          rack.name + "-pdu-" + (rack.pdus % 2 == 0 ? "a" : "b") + std::to_string(rack.pdus / 2 + 1);
      device.kind = DeviceKind::pdu;
      device.part = pdu.info.id;
      device.rack = static_cast<int>(r);
      device.rack_unit =
          static_cast<int>(in_rack_units(facility.rack_units));  // its network port sits at the top
      cluster.devices.push_back(device);
      rack.devices.push_back(static_cast<int>(cluster.devices.size()) - 1);
    }
  }
  return added;
}

// Where a rack's heat goes: a rack-scale system says how much of it its liquid loop takes; packed servers are
// air-cooled (the room's cooling, even a liquid one, removes their heat from the air).
void split_heat(const Catalog& catalog, Rack& rack) {
  if (const auto* system = catalog.find<RackSystem>(rack.system)) {
    rack.cooling = system->cooling;
    rack.heat_to_liquid = rack.power_max * system->heat_to_liquid;
    rack.heat_to_air = rack.power_max - rack.heat_to_liquid;
    return;
  }
  rack.cooling = CoolingMethod::air;
  rack.heat_to_liquid = Power{};
  rack.heat_to_air = rack.power_max;
}

Power rack_power_ceiling(Power rack_power_limit, Power rack_cooling_limit) {
  const bool cooling_binds = rack_cooling_limit > Power{} && rack_cooling_limit < rack_power_limit;
  return cooling_binds ? rack_cooling_limit : rack_power_limit;
}

namespace {

// Facility power with each rack's heat removed at the PUE of what carries it: its share to liquid at the
// liquid PUE, the rest at the room's (air) PUE. With no liquid PUE set the two are equal and this is IT power
// x facility.pue.
void facility_power_by_cooling(const ClusterSpec& spec, const Cooling& cooling, Cluster& cluster) {
  PowerSummary& power = cluster.power;
  power.air_pue = spec.facility.pue;
  power.liquid_pue = spec.facility.liquid.pue.value_or(cooling.pue.value_or(spec.facility.pue));
  if (power.liquid_pue == power.air_pue) {  // one PUE for the whole room
    power.pue = spec.facility.pue;
    power.facility_max = power.it_max * power.pue;
    power.facility_typical = power.it_typical * power.pue;
    return;
  }
  power.facility_max = Power{};
  power.facility_typical = Power{};
  for (const Rack& rack : cluster.racks) {
    const double liquid_share = rack.power_max > Power{} ? rack.heat_to_liquid / rack.power_max : 0.0;
    const double rack_pue = liquid_share * power.liquid_pue + (1.0 - liquid_share) * power.air_pue;
    power.facility_max += rack.power_max * rack_pue;
    power.facility_typical += rack.power_typical * rack_pue;
  }
  power.pue = power.it_max > Power{} ? power.facility_max / power.it_max : power.air_pue;
}

// What the published figures of the part in `device` say about the modules in its cages; a part without
// the field (a PDU, a rack-scale system's switch tray, a user's part) is unknown.
ModulePowerScopes host_scopes(const Catalog& catalog, const Device& device) {
  if (const auto* system = catalog.find<System>(device.part)) return system->module_power;
  if (const auto* part = catalog.find<Switch>(device.part)) return part->module_power;
  if (const auto* appliance = catalog.find<Appliance>(device.part)) return appliance->module_power;
  return {};
}

// The line of `load`'s part in the cages of `host`'s part, made once from the host part's published scopes;
// lines stay sorted by host and module part.
ModulePowerLine& line_for(const Catalog& catalog, const Device& host, const ModuleLoad& load,
                          std::vector<ModulePowerLine>& lines) {
  const auto key = [](const ModulePowerLine& line) { return std::tie(line.host_part, line.module_part); };
  const auto at =
      std::lower_bound(lines.begin(), lines.end(), std::tie(host.part, load.part),
                       [&](const ModulePowerLine& line, const auto& wanted) { return key(line) < wanted; });
  if (at != lines.end() && key(*at) == std::tie(host.part, load.part)) return *at;
  const ModulePowerScopes scopes = host_scopes(catalog, host);
  ModulePowerLine line;
  line.host_part = host.part;
  line.module_part = load.part;
  line.cable = load.cable;
  line.max_each = load.max_each;
  line.typical_each = load.typical_each;
  line.host_max_scope = scopes.max;
  line.host_typical_scope = scopes.typical;
  line.host_scope_source = scopes.source;
  return *lines.insert(at, std::move(line));
}

}  // namespace

std::vector<Power> module_power_to_reserve(const ClusterSpec& spec, const Catalog& catalog,
                                           const Cluster& cluster, std::size_t first_fabric) {
  std::vector<Power> reserve = most_module_power(spec, catalog, cluster, first_fabric);
  for (std::size_t d = 0; d < reserve.size(); ++d) {
    if (!adds_module_power(host_scopes(catalog, cluster.devices[d]).max)) reserve[d] = Power{};
  }
  return reserve;
}

void add_module_power(const Catalog& catalog, Cluster& cluster, std::size_t first_fabric) {
  PowerSummary& power = cluster.power;
  for (std::size_t f = first_fabric; f < cluster.fabrics.size(); ++f) {
    for (const ModuleLoad& load : cluster.fabrics[f].module_loads) {
      const Device& host = cluster.devices[load.device];
      ModulePowerLine& line = line_for(catalog, host, load, power.modules);
      line.count += load.count;
      // The rack and the totals take the same amounts, so IT power (the racks' sum) counts every module
      // the totals name; route_cables only records modules of devices in a rack.
      Rack& rack = cluster.racks.at(static_cast<std::size_t>(host.rack));
      const Power max = line.added_to_max() ? load.max_each * load.count : Power{};
      const Power typical = line.added_to_typical() ? load.typical_each * load.count : Power{};
      rack.power_max += max;
      power.modules_max += max;
      rack.power_typical += typical;
      power.modules_typical += typical;
    }
  }
}

void summarize_power(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster) {
  const FacilitySpec& facility = spec.facility;
  const Pdu& pdu = catalog.get<Pdu>(facility.pdu);
  const Cooling& cooling = catalog.get<Cooling>(facility.cooling);
  PowerSummary& power = cluster.power;
  power.circuit_capacity = catalog.get<Circuit>(pdu.circuit).usable_power();
  power.rack_power_limit = facility.rack_power_limit;
  power.rack_cooling_limit = cooling.max_rack_power;
  power.rack_power_ceiling = rack_power_ceiling(power.rack_power_limit, power.rack_cooling_limit);
  power.rack_units = facility.rack_units;
  int over_cooling = 0;
  Power hottest;
  for (auto& rack : cluster.racks) split_heat(catalog, rack);
  for (const auto& rack : cluster.racks) {
    power.circuits += rack.pdus;
    power.it_max += rack.power_max;
    power.it_typical += rack.power_typical;
    if (rack.power_max > facility.rack_power_limit) {
      cluster.warnings.push_back(
          {"rack-over-limit", rack.name + " draws up to " + format_power(rack.power_max) +
                                  ", over the rack limit of " + format_power(facility.rack_power_limit)});
    }
    if (rack.power_max > cooling.max_rack_power) {
      ++over_cooling;
      hottest = std::max(hottest, rack.power_max);
    }
  }
  if (over_cooling > 0) {
    cluster.warnings.push_back({"rack-over-cooling", std::to_string(over_cooling) +
                                                         " racks draw more (up to " + format_power(hottest) +
                                                         ") than " + cooling.info.id + " removes per rack (" +
                                                         format_power(cooling.max_rack_power) + ")"});
  }
  facility_power_by_cooling(spec, cooling, cluster);
  // Below full load an air-cooled room's overhead follows the IT load (a fixed and a proportional part); at
  // full load it is IT x PUE, as above. The model keeps the curve for plan, the report and the replay.
  power.cooling = spec.facility.cooling;
  power.overhead = design_facility_overhead(power.cooling, power);
  if (power.overhead.curve) power.facility_typical = power.overhead.facility_power(power.it_typical);
  power.cooling_load = power.it_max;
  // Each group's devices carry their own system's typical power; the summary names the first group's and
  // where it is from, and warns for every system without one.
  bool first = true;
  for (const NodeGroupSpec& group : spec.groups()) {
    const System& node = catalog.get<System>(group.node_system);
    if (!node.power_typical) {
      power.typical_from_max = true;
      cluster.warnings.push_back(
          {"typical-power-unknown", "neither the catalog nor the power model has a typical power for " +
                                        node.info.id + "; energy and typical figures use its maximum power"});
    } else if (first) {
      power.node_typical = node.power_typical;
      power.node_typical_basis = node.typical_note ? node.typical_note->basis : "catalog";
      power.node_typical_source = node.typical_note ? node.typical_note->source : node.info.source;
    }
    first = false;
  }
}

namespace {

class BomBuilder {
 public:
  BomBuilder(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster)
      : spec_(spec), catalog_(catalog), cluster_(cluster) {}

  void build() {
    for (const auto& device : cluster_.devices) {
      if (in_rack_system(device)) continue;  // bought as part of the rack-scale system
      const char* category =
          device.kind == DeviceKind::network_switch ? "switch" : device_kind_name(device.kind);
      add(device.part, category, "", 1);
    }
    int system_racks = 0;
    for (const auto& rack : cluster_.racks) {
      if (rack.system.empty()) continue;
      add(rack.system, "rack_system", "", 1);
      ++system_racks;
    }
    if (cluster_.cooling.cdus > 0) add(cluster_.cooling.cdu, "cooling", "", cluster_.cooling.cdus);
    for (const auto& fabric : cluster_.fabrics) {
      for (const auto& [end, parts] : fabric.transceivers) {
        for (const auto& [part, count] : parts) add(part, "transceiver", "", count);
      }
      for (const auto& bundle : fabric.bundles) {
        if (bundle.cable_part.empty()) continue;
        add(bundle.cable_part, "cable", format_length(bundle.cable_length), bundle.links,
            in_metres(bundle.cable_length));
      }
    }
    add("rack", "rack", format_rack_units(spec_.facility.rack_units),
        static_cast<int>(cluster_.racks.size()) - system_racks);  // a rack-scale system ships in its rack
    for (auto& [key, line] : lines_) cluster_.bom.push_back(line);
    price();
  }

 private:
  // `order` sorts variants of one part (cable lengths: shortest first).
  void add(const std::string& part, const std::string& category, const std::string& variant, int count,
           double order = 0.0) {
    if (count == 0) return;
    BomLine& line = lines_[{category_rank(category), part, order, variant}];
    if (line.count == 0) {
      line.part = part;
      line.category = category;
      const PartInfo* info = catalog_.info(part);
      line.description = info != nullptr ? info->name : part;
      if (!variant.empty()) line.description += ", " + variant;
      const auto price = spec_.cost.prices.find(part);
      if (price != spec_.cost.prices.end()) line.unit_price = price->second;
    }
    line.count += count;
  }

  bool in_rack_system(const Device& device) const {
    if (device.rack < 0 || cluster_.racks[device.rack].system.empty()) return false;
    return device.kind == DeviceKind::node || device.kind == DeviceKind::scale_up_switch ||
           device.kind == DeviceKind::power_shelf;
  }

  static int category_rank(const std::string& category) {
    static const std::vector<std::string> kOrder{"rack_system", "node",  "server", "appliance", "switch",
                                                 "transceiver", "cable", "pdu",    "cooling",   "rack"};
    return static_cast<int>(std::find(kOrder.begin(), kOrder.end(), category) - kOrder.begin());
  }

  void price() {
    Costs& costs = cluster_.costs;
    costs.priced = spec_.cost.has_prices;
    costs.lifetime_years = spec_.cost.lifetime_years;
    for (const auto& line : cluster_.bom) {
      if (line.unit_price) {
        costs.capex += *line.unit_price * line.count;
      } else if (std::find(costs.unpriced_parts.begin(), costs.unpriced_parts.end(), line.part) ==
                 costs.unpriced_parts.end()) {
        costs.unpriced_parts.push_back(line.part);
      }
    }
    const double kwh_per_year = in_kilowatts(cluster_.power.facility_typical) * kHoursPerYear;
    costs.energy_per_year = usd(kwh_per_year * spec_.facility.electricity_price.base());
    costs.support_per_year = costs.capex * spec_.cost.support_rate_per_year;
    costs.total = costs.capex + (costs.energy_per_year + costs.support_per_year) * costs.lifetime_years;
    const double gpu_hours = static_cast<double>(cluster_.gpus) * costs.lifetime_years * kHoursPerYear;
    if (costs.complete() && gpu_hours > 0) costs.cost_per_gpu_hour = costs.total / gpu_hours;
    if (costs.priced && !costs.unpriced_parts.empty()) {
      std::string list;
      for (const auto& part : costs.unpriced_parts) list += (list.empty() ? "" : ", ") + part;
      cluster_.warnings.push_back(
          {"unpriced-parts",
           "no price for " + list + "; capex and TCO leave them out and no cost per GPU-hour is given"});
    }
  }

  const ClusterSpec& spec_;
  const Catalog& catalog_;
  Cluster& cluster_;
  std::map<std::tuple<int, std::string, double, std::string>, BomLine> lines_;
};

}  // namespace

void build_bom(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster) {
  BomBuilder(spec, catalog, cluster).build();
}

}  // namespace gputwin
