// Cost cliffs: a handful of ports that push a fabric past a boundary, so that the design buys one more
// scalable unit of leaves (rail-optimized) or one more tier (leaf-spine), never pass silently.
//
//   Cluster cluster = ...;  // designed from `spec`
//   warn_about_boundary_steps(spec, cluster, [&](const ClusterSpec& variant) { return design(variant); });
//   // cluster.warnings now starts with a prominent `boundary-step` warning per such fabric
//
// For each fabric whose endpoints fill only a handful of slots past its last boundary (Fabric::slots_used,
// boundary_slots, unit_slots), the spec is designed again without them: with its appliances off that fabric
// when they are what crosses the boundary, and with the nodes reduced to the boundary. When that design has
// fewer switches on the fabric, the warning names the step (units and tiers, switches, transceivers, cables,
// racks and, with prices, the infrastructure capex) and both alternatives. The DGX SuperPOD reference
// designs stop at the boundary (31, 63, 95, 127 nodes with the UFM in the last node slot), so they do not
// warn; one more node does.
#pragma once

#include <functional>
#include <optional>

#include "gputwin/design/cluster.hpp"
#include "gputwin/spec/cluster_spec.hpp"

namespace gputwin {

// Designs a variant of the spec; empty when the variant cannot be designed.
using Redesign = std::function<std::optional<Cluster>(const ClusterSpec& variant)>;

// A handful: the slots past the boundary fill at most this share of the unit they open (8 node slots of a
// 32-node scalable unit). Past that, the last unit is well used and buying it is the plan, not an accident.
inline constexpr int kHandfulShareOfUnit = 4;  // 1 / 4

// Slots of `fabric` past its last boundary when they are a handful (see above), else 0. The out-of-band
// fabric is left out: every device joins it, one 1 Gb/s port each, and its steps cost little.
[[nodiscard]] int handful_past_boundary(const Fabric& fabric);

// Adds, at the front of cluster.warnings, a prominent `boundary-step` warning for each fabric a handful of
// slots pushes past a boundary, when designing without them gives fewer switches on that fabric.
void warn_about_boundary_steps(const ClusterSpec& spec, Cluster& cluster, const Redesign& redesign);

}  // namespace gputwin
