// Builds one network fabric: which switches at which tier and which links join them, by general rules.
//
//   std::vector<FabricEndpoint> nodes = ...;   // each node with its ports on this fabric
//   Fabric fabric = build_fabric(spec.compute, catalog.get<Switch>(spec.compute.switch_id), nodes,
//                                appliances, devices);   // appends the switches to `devices`
//
// Rules (checked against the DGX SuperPOD reference architectures, and general for other radices):
// - rail-optimized: port r of every node of a scalable unit (SU) goes to that SU's leaf r; full SUs of leaves
//   and leaf uplinks are built even when the last SU is short; management appliances take node slots, on
//   free ports of the last SU's leaves when there are any (a rack-scale SU's last leaf per rail), else past
//   the last SU.
// - leaf-spine: all ports of a node go to one leaf (top of rack).
// - tiers: one switch when everything fits on it; two tiers while every leaf can reach every spine; then a
//   third: pods of leaves under their own spines, spine j of every pod joined to core plane j.
// - spine_leaf_groups (rack-scale systems, as NVIDIA's DGX SuperPOD with DGX GB200): one leaf per rack per
//   rail, and each rail of each scalable unit a pod of its own (a spine-leaf group), so always three tiers.
// - every leaf has the same number of links to every spine of its pod (and every spine to every core of its
//   plane), so switch counts round up to a divisor of the uplinks (3 SU of QM9700 -> 16 spines, not 12).
#pragma once

#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

struct FabricEndpoint {
  int device = -1;
  int ports = 0;
};

// Throws InputFailure (located at the spec field that makes the fabric impossible).
[[nodiscard]] Fabric build_fabric(const FabricSpec& spec, const ClusterSpec& cluster, const Switch& part,
                                  const std::vector<FabricEndpoint>& nodes,
                                  const std::vector<FabricEndpoint>& appliances,
                                  std::vector<Device>& devices);

// Smallest d >= at_least that divides n; 0 when there is none (at_least > n).
[[nodiscard]] int smallest_divisor_at_least(int n, int at_least);

}  // namespace gputwin
