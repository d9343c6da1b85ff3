#include "gputwin/report/html/fabric_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "gputwin/design/node_groups.hpp"
#include "gputwin/report/html/html_text.hpp"

namespace gputwin {
namespace {

constexpr double kWidth = 1200;
constexpr double kLabelWidth = 110;  // tier names on the left
constexpr double kTierPitch = 90;
constexpr double kBoxHeight = 34;

// Boxes of one tier: each holds the devices that serve the same scalable units, or a merged run of them.
struct TierBoxes {
  Tier tier = Tier::endpoint;
  std::vector<std::vector<int>> members;  // device indices per box
  std::vector<std::string> labels;
};

// The scalable units a device serves: its own for an endpoint, the span of those below it for a switch (a
// pod's spines serve its leaves' units). {-1, -1} for devices placed centrally that serve no unit.
using UnitSpan = std::pair<int, int>;
constexpr UnitSpan kCentral{-1, -1};

std::string span_label(UnitSpan span) {
  if (span.first < 0) return "central";
  if (span.first == span.second) return fmt::format("SU {}", span.first + 1);
  return fmt::format("SU {}-{}", span.first + 1, span.second + 1);
}

UnitSpan widened(UnitSpan span, UnitSpan by) {
  if (by.first < 0) return span;
  if (span.first < 0) return by;
  return {std::min(span.first, by.first), std::max(span.second, by.second)};
}

// Spans tier by tier from the bottom: endpoints from their placement group, each switch from what it links
// down to.
std::unordered_map<int, UnitSpan> unit_spans(const Cluster& cluster, const Fabric& fabric) {
  std::unordered_map<int, UnitSpan> spans;
  for (const Tier lower : {Tier::endpoint, Tier::leaf, Tier::spine}) {
    for (const auto& bundle : fabric.bundles) {
      if (bundle.tier_a != lower) continue;
      const int group = cluster.devices[bundle.device_a].placement_group;
      const auto below = spans.find(bundle.device_a);
      const UnitSpan span_a = below != spans.end() ? below->second : UnitSpan{group, group};
      if (lower == Tier::endpoint) spans[bundle.device_a] = span_a;
      const auto [above, added] = spans.emplace(bundle.device_b, span_a);
      if (!added) above->second = widened(above->second, span_a);
    }
  }
  return spans;
}

// Few devices: one box each. Many: one box per span of units, consecutive spans merged to fit.
TierBoxes tier_boxes(const Cluster& cluster, Tier tier, const std::vector<int>& devices,
                     const std::unordered_map<int, UnitSpan>& spans) {
  TierBoxes boxes;
  boxes.tier = tier;
  if (static_cast<int>(devices.size()) <= kMaxBoxesPerTier) {
    for (const int d : devices) {
      boxes.members.push_back({d});
      boxes.labels.push_back(cluster.devices[d].name);
    }
    return boxes;
  }
  std::map<UnitSpan, std::vector<int>> by_span;
  for (const int d : devices) {
    const auto span = spans.find(d);
    by_span[span == spans.end() ? kCentral : span->second].push_back(d);
  }
  const std::size_t central = by_span.count(kCentral);
  const std::size_t unit_boxes = kMaxBoxesPerTier - central;  // the central devices take a box of their own
  const std::size_t per_box = (by_span.size() - central + unit_boxes - 1) / unit_boxes;
  std::size_t in_box = 0;
  UnitSpan box_span = kCentral;
  for (const auto& [span, members] : by_span) {
    if (in_box == 0) {
      boxes.members.emplace_back();
      box_span = span;
    }
    auto& box = boxes.members.back();
    box.insert(box.end(), members.begin(), members.end());
    box_span = widened(box_span, span);
    if (++in_box == per_box || span.first < 0) {  // central devices never merge with a unit's
      boxes.labels.push_back(span_label(box_span));
      in_box = 0;
    }
  }
  if (in_box != 0) boxes.labels.push_back(span_label(box_span));
  return boxes;
}

// The endpoints of a fabric are the lower ends of its node-to-leaf bundles, in device order.
std::vector<int> fabric_endpoints(const Fabric& fabric) {
  std::set<int> endpoints;
  for (const auto& bundle : fabric.bundles) {
    if (bundle.tier_a == Tier::endpoint) endpoints.insert(bundle.device_a);
  }
  return {endpoints.begin(), endpoints.end()};
}

double box_x(std::size_t index, std::size_t count) {
  const double slot = (kWidth - kLabelWidth) / static_cast<double>(count);
  return kLabelWidth + slot * static_cast<double>(index) + slot * 0.06;
}

double box_width(std::size_t count) {
  return (kWidth - kLabelWidth) / static_cast<double>(count) * 0.88;
}

// A switch's name when it fits its box, else what tells it from its neighbours (the part after the last '-').
std::string fitted_label(const std::string& label, std::size_t boxes) {
  constexpr double kCharWidth = 5.6;  // 10 px sans-serif, on average
  if (static_cast<double>(label.size()) * kCharWidth <= box_width(boxes)) return label;
  const std::size_t dash = label.rfind('-');
  return dash == std::string::npos ? label : "#" + label.substr(dash + 1);
}

struct Placed {
  std::vector<TierBoxes> tiers;                         // bottom (endpoints) first
  std::unordered_map<int, std::pair<int, int>> box_of;  // device -> (tier row, box)
};

Placed place(const Cluster& cluster, const Fabric& fabric) {
  Placed placed;
  const auto spans = unit_spans(cluster, fabric);
  placed.tiers.push_back(tier_boxes(cluster, Tier::endpoint, fabric_endpoints(fabric), spans));
  for (const Tier tier : {Tier::leaf, Tier::spine, Tier::core}) {
    const auto& switches = fabric.switches[static_cast<int>(tier)];
    if (!switches.empty()) placed.tiers.push_back(tier_boxes(cluster, tier, switches, spans));
  }
  for (std::size_t row = 0; row < placed.tiers.size(); ++row) {
    for (std::size_t box = 0; box < placed.tiers[row].members.size(); ++box) {
      for (const int d : placed.tiers[row].members[box])
        placed.box_of[d] = {static_cast<int>(row), static_cast<int>(box)};
    }
  }
  return placed;
}

double row_y(std::size_t row, std::size_t rows) {
  return 20 + kTierPitch * static_cast<double>(rows - 1 - row);
}

std::string link_lines(const Fabric& fabric, const Placed& placed) {
  std::map<std::tuple<int, int, int, int>, long> links;  // (row a, box a, row b, box b) -> links
  for (const auto& bundle : fabric.bundles) {
    const auto a = placed.box_of.find(bundle.device_a);
    const auto b = placed.box_of.find(bundle.device_b);
    if (a == placed.box_of.end() || b == placed.box_of.end()) continue;
    links[{a->second.first, a->second.second, b->second.first, b->second.second}] += bundle.links;
  }
  const std::size_t rows = placed.tiers.size();
  std::string svg;
  for (const auto& [ends, count] : links) {
    const auto [row_a, box_a, row_b, box_b] = ends;
    const std::size_t boxes_a = placed.tiers[row_a].members.size();
    const std::size_t boxes_b = placed.tiers[row_b].members.size();
    // Width grows with the log of the link count so one SU's uplinks and one cable both stay visible.
    svg += fmt::format(
        "<line class=\"link\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke-width=\"{}\"><title>{} "
        "links</title></line>",
        svg_number(box_x(box_a, boxes_a) + box_width(boxes_a) / 2), svg_number(row_y(row_a, rows)),
        svg_number(box_x(box_b, boxes_b) + box_width(boxes_b) / 2),
        svg_number(row_y(row_b, rows) + kBoxHeight), svg_number(0.6 + std::log10(static_cast<double>(count))),
        count);
  }
  return svg;
}

std::string tier_row(const Cluster& cluster, const TierBoxes& boxes, double y) {
  const bool endpoints = boxes.tier == Tier::endpoint;
  std::size_t total = 0;
  for (const auto& members : boxes.members) total += members.size();
  std::string svg = fmt::format("<text class=\"tier-label\" x=\"0\" y=\"{}\">{} ({})</text>",
                                svg_number(y + 21), endpoints ? "endpoints" : tier_name(boxes.tier), total);
  const std::size_t count = boxes.members.size();
  for (std::size_t i = 0; i < count; ++i) {
    const auto& members = boxes.members[i];
    const std::string part = members.size() == 1 ? cluster.devices[members.front()].part : "";
    svg += fmt::format(
        "<g class=\"tier-box {0}\" data-tier=\"{0}\" data-{1}=\"{2}\"><rect x=\"{3}\" y=\"{4}\" "
        "width=\"{5}\" "
        "height=\"{6}\"/><text x=\"{7}\" y=\"{8}\">{9}</text><text class=\"count\" x=\"{7}\" "
        "y=\"{10}\">{11}</text>"
        "<title>{12}: {2} {13}</title></g>",
        endpoints ? "endpoint" : tier_name(boxes.tier), endpoints ? "endpoints" : "switches", members.size(),
        svg_number(box_x(i, count)), svg_number(y), svg_number(box_width(count)), svg_number(kBoxHeight),
        svg_number(box_x(i, count) + box_width(count) / 2), svg_number(y + 14),
        html_escape(fitted_label(boxes.labels[i], count)), svg_number(y + 28),
        members.size() == 1 ? html_escape(part) : fmt::format("x{}", members.size()),
        html_escape(boxes.labels[i]), endpoints ? "endpoints" : "switches");
  }
  return svg;
}

}  // namespace

std::string fabric_svg(const Cluster& cluster, const Fabric& fabric) {
  const Placed placed = place(cluster, fabric);
  const std::size_t rows = placed.tiers.size();
  std::string svg = fmt::format(
      "<svg class=\"fabric-diagram\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{} fabric by tier\">",
      svg_number(kWidth), svg_number(kTierPitch * static_cast<double>(rows) + 10),
      fabric_name(cluster, fabric));
  svg += link_lines(fabric, placed);
  for (std::size_t row = 0; row < rows; ++row) svg += tier_row(cluster, placed.tiers[row], row_y(row, rows));
  return svg + "</svg>";
}

}  // namespace gputwin
