// Rack drawings for the HTML report, as inline SVG drawn from the Cluster model.
//
//   RackLayouts layouts = group_rack_layouts(cluster);      // racks with identical contents share one
//   drawing html += floor_plan_svg(cluster, layouts);               // every rack, row by row, coloured by
//   layout for (const auto& racks : layouts.racks_of_layout) html += rack_elevation_svg(cluster,
//   racks.front());
//
// A 100,000-GPU design has thousands of racks but only a handful of distinct contents, so each distinct
// elevation is drawn once with its count; the floor plan keeps one small cell per rack.
#pragma once

#include <string>
#include <vector>

#include "gputwin/design/cluster.hpp"

namespace gputwin {

struct RackLayouts {
  std::vector<std::vector<int>> racks_of_layout;  // rack indices per layout, layouts in order of first rack
  std::vector<int> layout_of_rack;                // index by rack
};

[[nodiscard]] RackLayouts group_rack_layouts(const Cluster& cluster);
[[nodiscard]] std::string floor_plan_svg(const Cluster& cluster, const RackLayouts& layouts);
// One rack by rack unit (U1 at the bottom), with its maximum power against the model's rack power ceiling.
[[nodiscard]] std::string rack_elevation_svg(const Cluster& cluster, int rack);

}  // namespace gputwin
