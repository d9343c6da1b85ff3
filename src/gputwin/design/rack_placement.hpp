// Places every device of a cluster into racks under the rack's power and rack-unit limits.
//
//   place_devices(spec, catalog, cluster, module_power_to_reserve(spec, catalog, cluster));
//                                   // fills cluster.racks and each device's rack and rack_unit
//
// Order, so racks near each other hold devices that talk to each other: for each scalable unit, its compute
// racks then a network rack with its rail leaves; top-of-rack leaves in a rack of the nodes they serve when
// they fit; then network racks for spines and cores, then management racks for appliances, servers and the
// rest.
#pragma once

#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

// Places the devices not yet in a rack; racks stay within the spec's rack power limit and what the chosen
// cooling removes, each device counted with `module_reserve[device]` (the most the modules routing will put
// in its cages add to its rack; none past the vector's end). Throws InputFailure when a device with its
// modules cannot fit in an empty rack (located at the field that forbids it). Called again after more devices
// are added, it fills the last open racks first; a rack's load from earlier calls is its routed power_max.
void place_devices(const ClusterSpec& spec, const Catalog& catalog, Cluster& cluster,
                   const std::vector<Power>& module_reserve = {});

}  // namespace gputwin
