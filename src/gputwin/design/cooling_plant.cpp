#include "gputwin/design/cooling_plant.hpp"

#include <algorithm>
#include <cmath>

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
  plant.cdus_needed = static_cast<int>(std::ceil(plant.liquid_load / cdu.capacity - 1e-9));
  plant.cdus = plant.cdus_needed + 1;  // N+1: losing any one CDU still carries the load
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
