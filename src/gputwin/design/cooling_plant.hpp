// The liquid-cooling plant: CDUs for the heat racks send to liquid, the facility water that carries it away,
// and the heat left to the room's air.
//
//   summarize_power(spec, catalog, cluster);       // splits each rack's heat into liquid and air first
//   plan_liquid_cooling(spec, catalog, cluster);   // fills cluster.cooling, warns when the room is exceeded
//   double flow = cluster.cooling.water_flow_l_per_min;
//
// CDUs, placed (cluster.cooling.units), each carrying whole racks' heat to liquid:
//  - in-row units: the liquid-cooled racks of each row, in slot order, split into runs one CDU carries; each
//    run's CDU stands at the end of its row after the racks (their positions, and so the cable lengths, do
//    not move), plus one spare for the plant (N+1) after the units of the row with the most heat to liquid;
//  - in-rack units: one in each liquid-cooled rack, above its devices; the unit's own pumps are its
//    redundancy, there is no spare unit.
// A rack with more heat to liquid than one CDU carries gets several, sharing it. Facility water:
// Q = m_dot x c_p x dT, with c_p and density of the spec's coolant from the catalog and dT the spec's rise
// across the CDUs. Warnings (stable codes): "room-air-over-capacity", "room-liquid-over-capacity",
// "cdu-no-rack-space".
#pragma once

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

void plan_liquid_cooling(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster);

// Facility water flow that carries `heat` with a rise of `delta_t_c`: m_dot = Q / (c_p x dT), in kg/s.
[[nodiscard]] double water_flow_kg_per_s(Power heat, const Coolant& coolant, double delta_t_c);

}  // namespace gputwin
