// Power, PDUs and circuits per rack; the bill of materials; cost over the cluster's life.
//
//   place_devices(spec, catalog, cluster, module_power_to_reserve(spec, catalog, cluster));
//                                              // racks keep room for the modules routing will add
//   route_cables(spec, catalog, cluster);      // after place_devices(): modules in every device's cages
//   add_module_power(catalog, cluster);        // their power in their hosts' racks, where the hosts' figures
//                                              // leave it out (ModulePowerScopes)
//   add_pdus(spec, catalog, cluster);          // then PDUs per rack, sized for hosts and modules
//   summarize_power(spec, catalog, cluster);   // IT, facility and cooling power; limit warnings
//   build_bom(spec, catalog, cluster);    // after route_cables(): parts and counts, capex, energy, TCO
//
// PDUs: each PDU is fed by one circuit of the spec's PDU part, alternating A and B feeds. "2n": each feed
// alone carries the rack (twice the PDUs one feed needs); "n_plus_1": losing any one PDU still carries the
// rack, with at least one PDU per feed. TCO = capex + lifetime x (energy + support); energy = typical IT
// power x PUE x hours x price; support = a yearly fraction of capex.
#pragma once

#include <cstddef>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

inline constexpr double kHoursPerYear = 365.25 * 24.0;  // calendar year, leap years averaged

// Before placement: per device, the room its rack must keep for the modules in its cages on the fabrics from
// index `first_fabric` on, the most they can draw once routed (most_module_power) where the device's maximum
// leaves them out or does not say (ModulePowerScopes), else nothing. place_devices counts it, so a design the
// planner builds stays within its own rack limit after routing.
[[nodiscard]] std::vector<Power> module_power_to_reserve(const ClusterSpec& spec, const Catalog& catalog,
                                                         const Cluster& cluster,
                                                         std::size_t first_fabric = 0);
// Adds the power of the transceivers and active-cable ends that route_cables put in the cages of
// cluster.fabrics from index `first_fabric` on to their hosts' racks and to the totals (power.modules,
// modules_max, modules_typical), where the host part's published figure leaves it out. Before add_pdus, so a
// rack's PDUs carry its modules.
void add_module_power(const Catalog& catalog, Cluster& cluster, std::size_t first_fabric = 0);
// Adds PDU devices (0 U, side-mounted) until every rack carries its provisioned load; returns how many it
// added.
int add_pdus(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster);
// Totals IT, facility and cooling power and warns about racks over their power or cooling limit.
void summarize_power(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster);
// The most one rack may draw: the spec's rack power limit, or the cooling's when that is known (non-zero) and
// lower.
[[nodiscard]] Power rack_power_ceiling(Power rack_power_limit, Power rack_cooling_limit);
void build_bom(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster);

[[nodiscard]] int pdus_for(Power rack_load, Power circuit_capacity, PduRedundancy redundancy);

}  // namespace gputwin
