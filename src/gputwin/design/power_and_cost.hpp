// Power, PDUs and circuits per rack; the bill of materials; cost over the cluster's life.
//
//   add_pdus(spec, catalog, cluster);          // after place_devices(): PDUs per rack
//   summarize_power(spec, catalog, cluster);   // IT, facility and cooling power; limit warnings
//   build_bom(spec, catalog, cluster);    // after route_cables(): parts and counts, capex, energy, TCO
//
// PDUs: each PDU is fed by one circuit of the spec's PDU part, alternating A and B feeds. "2n": each feed
// alone carries the rack (twice the PDUs one feed needs); "n_plus_1": losing any one PDU still carries the
// rack, with at least one PDU per feed. TCO = capex + lifetime x (energy + support); energy = typical IT
// power x PUE x hours x price; support = a yearly fraction of capex.
#pragma once

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

inline constexpr double kHoursPerYear = 365.25 * 24.0;  // calendar year, leap years averaged

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
