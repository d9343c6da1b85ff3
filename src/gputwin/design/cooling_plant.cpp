#include "gputwin/design/cooling_plant.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace gputwin {

double water_flow_kg_per_s(Power heat, const Coolant& coolant, double delta_t_c) {
  if (delta_t_c <= 0.0 || coolant.specific_heat_j_per_kg_k <= 0.0) return 0.0;
  return heat.base() / (coolant.specific_heat_j_per_kg_k * delta_t_c);
}

namespace {

void warn_about_room(const FacilitySpec& facility, Cluster& cluster) {
  const CoolingPlant& plant = cluster.cooling;
  if (facility.room_air_capacity && plant.air_load > *facility.room_air_capacity) {
    cluster.warnings.push_back({"room-air-over-capacity",
                                "the racks leave " + format_power(plant.air_load) +
                                    " of heat to the room's air, more than its air capacity of " +
                                    format_power(*facility.room_air_capacity),
                                true});
  }
  if (facility.room_liquid_capacity && plant.liquid_load > *facility.room_liquid_capacity) {
    cluster.warnings.push_back({"room-liquid-over-capacity",
                                "the racks send " + format_power(plant.liquid_load) +
                                    " of heat to liquid, more than the facility water plant's " +
                                    format_power(*facility.room_liquid_capacity),
                                true});
  }
}

std::string cdu_name(int number) {
  return "cdu-" + std::to_string(number);
}

// A rack whose heat to liquid is more than one CDU carries is served by several, sharing its heat equally.
int units_for_rack(const Rack& rack, Power capacity) {
  return std::max(1, static_cast<int>(std::ceil(rack.heat_to_liquid / capacity - 1e-9)));
}

// In-row units: the liquid-cooled racks of each row, in slot order, are split into runs whose heat to liquid
// one CDU carries; each run's CDU stands at the end of its row, after the racks. One spare (N+1) stands after
// the working units of the row with the most heat to liquid (the first such row).
void place_in_row(Cluster& cluster, Power capacity) {
  CoolingPlant& plant = cluster.cooling;
  std::map<int, std::vector<int>> racks_by_row;  // row -> rack indices in slot order
  std::map<int, int> end_of_row;                 // row -> last slot taken
  for (std::size_t r = 0; r < cluster.racks.size(); ++r) {
    const Rack& rack = cluster.racks[r];
    end_of_row[rack.row] = std::max(end_of_row[rack.row], rack.slot);
    if (rack.heat_to_liquid > Power{}) racks_by_row[rack.row].push_back(static_cast<int>(r));
  }
  int spare_row = -1;
  Power most;
  for (auto& [row, racks] : racks_by_row) {
    std::sort(racks.begin(), racks.end(),
              [&](int a, int b) { return cluster.racks[a].slot < cluster.racks[b].slot; });
    Power row_load;
    const int this_row = row;
    auto add_unit = [&] {
      CduUnit unit;
      unit.row = this_row;
      unit.slot = ++end_of_row[this_row];
      plant.units.push_back(unit);
    };
    for (const int r : racks) {
      const Rack& rack = cluster.racks[r];
      row_load += rack.heat_to_liquid;
      const int shared = units_for_rack(rack, capacity);
      const bool fits = shared == 1 && !plant.units.empty() && plant.units.back().row == row &&
                        plant.units.back().load + rack.heat_to_liquid <= capacity;
      if (!fits) {
        for (int k = 0; k < shared; ++k) add_unit();
      }
      for (int k = 0; k < shared; ++k) {
        CduUnit& unit = plant.units[plant.units.size() - 1 - k];
        unit.racks.push_back(r);
        unit.load += rack.heat_to_liquid / static_cast<double>(shared);
      }
    }
    if (row_load > most) {
      most = row_load;
      spare_row = row;
    }
  }
  CduUnit spare;
  spare.spare = true;
  spare.row = spare_row;
  spare.slot = ++end_of_row[spare_row];
  plant.units.push_back(spare);
  plant.cdus_needed = static_cast<int>(plant.units.size()) - 1;
  plant.cdus = static_cast<int>(plant.units.size());
}

// In-rack units: each liquid-cooled rack holds its own, above its devices; the unit's own pumps are its
// redundancy (no spare unit). A rack without the room for it is warned about.
void place_in_rack(const ClusterSpec& spec, const CoolantDistributionUnit& cdu, Cluster& cluster) {
  CoolingPlant& plant = cluster.cooling;
  std::vector<int> crowded;  // racks taller than the facility's with their CDUs
  for (std::size_t r = 0; r < cluster.racks.size(); ++r) {
    Rack& rack = cluster.racks[r];
    if (rack.heat_to_liquid <= Power{}) continue;
    const int shared = units_for_rack(rack, cdu.capacity);
    for (int k = 0; k < shared; ++k) {
      CduUnit unit;
      unit.row = rack.row;
      unit.slot = rack.slot;
      unit.rack = static_cast<int>(r);
      unit.rack_unit = static_cast<int>(std::lround(in_rack_units(rack.used))) + 1;
      unit.racks = {static_cast<int>(r)};
      unit.load = rack.heat_to_liquid / static_cast<double>(shared);
      plant.units.push_back(unit);
      rack.used += cdu.rack_units;
    }
    if (rack.used > spec.facility.rack_units) crowded.push_back(static_cast<int>(r));
  }
  if (!crowded.empty()) {  // one warning for all: the racks of one system are alike
    const Rack& first = cluster.racks[crowded.front()];
    cluster.warnings.push_back(
        {"cdu-no-rack-space",
         std::to_string(crowded.size()) + " liquid-cooled racks have no room for their " + cdu.info.id +
             " (" + format_rack_units(cdu.rack_units) + "): " + first.name + " with it takes " +
             format_rack_units(first.used) + " of a " + format_rack_units(spec.facility.rack_units) + " rack",
         true});
  }
  plant.cdus_needed = static_cast<int>(plant.units.size());
  plant.cdus = plant.cdus_needed;
  plant.redundancy = cdu.redundancy.empty() ? "none published" : "in each unit: " + cdu.redundancy;
}

void name_units(CoolingPlant& plant) {
  for (std::size_t u = 0; u < plant.units.size(); ++u)
    plant.units[u].name = cdu_name(static_cast<int>(u) + 1);
}

}  // namespace

void plan_liquid_cooling(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster) {
  CoolingPlant& plant = cluster.cooling;
  const Cooling& cooling = catalog.get<Cooling>(spec.facility.cooling);
  for (const auto& rack : cluster.racks) {
    plant.liquid_load += rack.heat_to_liquid;
    plant.air_load += rack.heat_to_air;
  }
  if (!plant.present()) return;  // every rack is air-cooled: no plant, nothing to report
  const LiquidCoolingSpec& liquid = spec.facility.liquid;
  const auto& cdu = catalog.get<CoolantDistributionUnit>(liquid.cdu);
  const auto& coolant = catalog.get<Coolant>(liquid.coolant);
  plant.cdu = cdu.info.id;
  plant.cdu_capacity = cdu.capacity;
  plant.placement = cdu.placement;
  plant.cdu_height = cdu.rack_units;
  if (cdu.placement == "in_rack") {
    place_in_rack(spec, cdu, cluster);
  } else {
    place_in_row(cluster, cdu.capacity);  // N+1: losing any one CDU, the spare takes its racks
  }
  name_units(plant);
  plant.coolant = coolant.info.id;
  plant.water_supply_temperature_c = liquid.water_supply_temperature_c;
  plant.water_delta_t_c = liquid.water_delta_t_c;
  plant.water_flow_kg_per_s = water_flow_kg_per_s(plant.liquid_load, coolant, liquid.water_delta_t_c);
  plant.water_flow_l_per_min = plant.water_flow_kg_per_s / coolant.density_kg_per_l * 60.0;
  plant.room_air_capacity = spec.facility.room_air_capacity;
  plant.room_liquid_capacity = spec.facility.room_liquid_capacity;
  plant.liquid_pue = cooling.pue;
  warn_about_room(spec.facility, cluster);
}

}  // namespace gputwin
