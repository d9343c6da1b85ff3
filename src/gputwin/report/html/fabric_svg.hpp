// A fabric drawn by tier for the HTML report, as inline SVG from the Cluster model: endpoints at the bottom,
// then leaf, spine and core switches, with the links between tiers.
//
//   html += fabric_svg(cluster, fabric);
//
// Large fabrics are aggregated: the endpoints of a tier are grouped by their scalable unit, each switch by
// the span of units below it (a pod's spines serve its leaves' units), and consecutive groups merge until a
// tier has at most kMaxBoxesPerTier boxes. Each box is labelled with its count and carries it in
// data-switches (data-endpoints), so the boxes of a tier always add up to the fabric's count; a line between
// two boxes carries the links between their members.
#pragma once

#include <string>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

inline constexpr int kMaxBoxesPerTier = 16;

[[nodiscard]] std::string fabric_svg(const Cluster& cluster, const Fabric& fabric);

}  // namespace gputwin
