// Gives every link a routed length, a medium and parts: cable at an orderable length, transceivers at both
// ends.
//
//   route_cables(spec, catalog, cluster);   // after place_devices(); fills bundles, fabric.transceivers and
//                                           // fabric.module_loads
//   route_cables(spec, catalog, cluster, first);   // only the fabrics from index `first` on (added since)
//
// Length: up from each device to the overhead tray, along rows and across them (Manhattan), down to the other
// device, plus slack; within one rack, just the vertical run plus slack. Medium: the first of passive copper,
// active copper, multimode fiber, single-mode fiber (in that order, or the spec's allowed list) whose parts
// reach; RJ45 ports use twisted pair. A link nothing reaches is left without medium and reported as a
// warning.
#pragma once

#include <cstddef>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

// Routes cluster.fabrics from index `first_fabric` on. Every device a link ends at must be in a rack
// (place_devices first): a device without one is a programming error (std::logic_error naming it).
void route_cables(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster,
                  std::size_t first_fabric = 0);

// Before placement: per device (indexed like cluster.devices), the most the transceivers and active-cable
// ends in its cages on cluster.fabrics from index `first_fabric` on can draw once routed, whatever lengths
// placement gives their links. Every module route_cables puts in a device's cages is in this bound, so
// placement can leave room for them (module_power_to_reserve) and data still flows one way.
[[nodiscard]] std::vector<Power> most_module_power(const ClusterSpec& spec, const Catalog& catalog,
                                                   const Cluster& cluster, std::size_t first_fabric = 0);

// The routed length of a link between two placed devices.
[[nodiscard]] Length link_length(const RowLayout& layout, RackSpace rack_units, const Rack& rack_a,
                                 const Device& device_a, const Rack& rack_b, const Device& device_b);

}  // namespace gputwin
