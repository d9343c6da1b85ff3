#include "gputwin/report/html/rack_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "gputwin/report/html/html_text.hpp"

namespace gputwin {
namespace {

// Drawing scale, in SVG user units (the page scales the SVG to its width).
constexpr double kFloorWidth = 1160;
constexpr double kFloorCellMax = 18;
constexpr double kFloorRowHeight = 30;
constexpr double kFloorRowHeightDense =
    14;  // past kDenseRows rows, so 90 rows of a 100k design stay one screen
constexpr std::size_t kDenseRows = 24;
constexpr double kUnitHeight = 9;
constexpr double kRackWidth = 170;
constexpr double kRackMargin = 26;  // room for the U numbers on the left
constexpr double kPowerBarHeight = 12;

// What makes two racks draw the same: their kind and every device's part and position.
std::string layout_key(const Cluster& cluster, const Rack& rack) {
  std::string key = rack_kind_name(rack.kind);
  for (const int d : rack.devices) {
    const Device& device = cluster.devices[d];
    key += fmt::format("|{}@{}+{}", device.part, device.rack_unit, in_rack_units(device.height));
  }
  return key;
}

// The CDUs the plan put inside rack `r` (in-rack placement), lowest first.
std::vector<const CduUnit*> cdus_in_rack(const Cluster& cluster, int r) {
  std::vector<const CduUnit*> units;
  for (const CduUnit& unit : cluster.cooling.units)
    if (unit.rack == r) units.push_back(&unit);
  return units;
}

int rack_height_units(const Cluster& cluster, int r) {
  const Rack& rack = cluster.racks[r];
  const int facility = static_cast<int>(in_rack_units(cluster.power.rack_units));
  int top = 0;
  for (const int d : rack.devices) {
    const Device& device = cluster.devices[d];
    top = std::max(top, device.rack_unit + static_cast<int>(in_rack_units(device.height)) - 1);
  }
  const int cdu_height = static_cast<int>(in_rack_units(cluster.cooling.cdu_height));
  for (const CduUnit* unit : cdus_in_rack(cluster, r)) top = std::max(top, unit->rack_unit + cdu_height - 1);
  return std::max(facility, top);
}

// "compute-1", "compute-1 and compute-2" or "compute-1 ... compute-4 (4 racks)": the racks a CDU carries.
std::string racks_served(const Cluster& cluster, const CduUnit& unit) {
  if (unit.racks.empty()) return "";
  const std::string& first = cluster.racks[unit.racks.front()].name;
  const std::string& last = cluster.racks[unit.racks.back()].name;
  if (unit.racks.size() == 1) return first;
  if (unit.racks.size() == 2) return first + " and " + last;
  return fmt::format("{} ... {} ({} racks)", first, last, unit.racks.size());
}

// A CDU's tooltip: its part and capacity, then what it carries or that it stands by.
std::string cdu_title(const Cluster& cluster, const CduUnit& unit) {
  const CoolingPlant& plant = cluster.cooling;
  const std::string duty =
      unit.spare ? "N+1 spare: takes over the racks of any one unit that fails"
                 : fmt::format("carries {} kW to liquid of {}", format_number(in_kilowatts(unit.load), 1),
                               racks_served(cluster, unit));
  return html_escape(fmt::format("{}: {}, {} kW capacity; {}", unit.name, plant.cdu,
                                 format_number(in_kilowatts(plant.cdu_capacity), 0), duty));
}

std::string heat_note(const Rack& rack) {
  if (rack.heat_to_liquid <= Power{}) return ", air-cooled";
  return fmt::format("; heat {} kW to liquid, {} kW to air",
                     format_number(in_kilowatts(rack.heat_to_liquid), 1),
                     format_number(in_kilowatts(rack.heat_to_air), 1));
}

std::string floor_cell(const Cluster& cluster, const RackLayouts& layouts, int r, double x, double y,
                       double w, double h) {
  const Rack& rack = cluster.racks[r];
  const bool liquid = rack.heat_to_liquid > Power{};
  std::string cell = fmt::format(
      "<rect class=\"floor-rack layout-{}{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} ({}, {} "
      "kW max{})</title></rect>",
      layouts.layout_of_rack[r] % 12, liquid ? " liquid" : "", svg_number(x), svg_number(y),
      svg_number(w * 0.86), svg_number(h), html_escape(rack.name), rack_kind_name(rack.kind),
      format_number(in_kilowatts(rack.power_max), 1), heat_note(rack));
  // An in-rack CDU is a band across the foot of its rack's cell.
  const std::vector<const CduUnit*> units = cdus_in_rack(cluster, r);
  for (std::size_t k = 0; k < units.size(); ++k) {
    const double band = h * 0.2;
    cell += fmt::format(
        "<rect class=\"floor-cdu in_rack\" data-cdu=\"{}\" data-spare=\"false\" data-racks=\"1\" x=\"{}\" "
        "y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
        units[k]->name, svg_number(x), svg_number(y + h - band * static_cast<double>(k + 1)),
        svg_number(w * 0.86), svg_number(band), cdu_title(cluster, *units[k]));
  }
  return cell;
}

// An in-row CDU: a cabinet of its own at its floor position, "CDU" on it ("+1" on the spare).
std::string floor_cdu(const Cluster& cluster, const CduUnit& unit, double x, double y, double w, double h) {
  return fmt::format(
      "<g class=\"floor-cdu in_row{}\" data-cdu=\"{}\" data-spare=\"{}\" data-racks=\"{}\"><title>{}</title>"
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
      unit.spare ? " spare" : "", unit.name, unit.spare ? "true" : "false", unit.racks.size(),
      cdu_title(cluster, unit), svg_number(x), svg_number(y), svg_number(w * 0.86), svg_number(h),
      svg_number(x + w * 0.43), svg_number(y + h / 2 + 2), unit.spare ? "+1" : "CDU");
}

// Trays and switch trays of a scale-up domain that spans nodes (an NVL72 rack) name it; an 8-GPU box is its
// own.
std::string domain_note(const Cluster& cluster, const Device& device) {
  if (device.domain < 0 || device.domain >= static_cast<int>(cluster.domains.size())) return "";
  if (cluster.domains[device.domain].nodes.size() < 2) return "";
  return fmt::format(", NVLink domain {}", device.domain + 1);
}

std::string device_shape(const Cluster& cluster, const Device& device, int rack_units) {
  const double height_u = in_rack_units(device.height);
  if (device.rack_unit <= 0 || height_u <= 0) return "";  // zero-U parts (PDUs) have no slot to draw
  const double y = (rack_units - (device.rack_unit + height_u - 1)) * kUnitHeight;
  const double h = height_u * kUnitHeight;
  std::string shape = fmt::format(
      "<rect class=\"device {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} ({}, "
      "U{}{})</title></rect>",
      device_kind_name(device.kind), svg_number(kRackMargin + 2), svg_number(y + 0.5),
      svg_number(kRackWidth - 4), svg_number(h - 1), html_escape(device.name), html_escape(device.part),
      device.rack_unit, domain_note(cluster, device));
  if (h >= kUnitHeight) {
    shape +=
        fmt::format("<text class=\"device-label\" x=\"{}\" y=\"{}\">{}</text>", svg_number(kRackMargin + 6),
                    svg_number(y + std::min(h, 2 * kUnitHeight) / 2 + 3), html_escape(device.part));
  }
  return shape;
}

// An in-rack CDU at its rack units, named and labelled like a device.
std::string cdu_shape(const Cluster& cluster, const CduUnit& unit, int rack_units) {
  const double height_u = in_rack_units(cluster.cooling.cdu_height);
  const double y = (rack_units - (unit.rack_unit + height_u - 1)) * kUnitHeight;
  const double h = height_u * kUnitHeight;
  std::string shape = fmt::format(
      "<rect class=\"device cdu\" data-cdu=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} "
      "(U{})</title></rect>",
      unit.name, svg_number(kRackMargin + 2), svg_number(y + 0.5), svg_number(kRackWidth - 4),
      svg_number(h - 1), cdu_title(cluster, unit), unit.rack_unit);
  if (h >= kUnitHeight) {
    shape +=
        fmt::format("<text class=\"device-label\" x=\"{}\" y=\"{}\">{}</text>", svg_number(kRackMargin + 6),
                    svg_number(y + std::min(h, 2 * kUnitHeight) / 2 + 3),
                    html_escape(fmt::format("{} ({} kW)", cluster.cooling.cdu,
                                            format_number(in_kilowatts(cluster.cooling.cdu_capacity), 0))));
  }
  return shape;
}

std::string unit_numbers(int rack_units) {
  std::string numbers;
  for (int u = 1; u <= rack_units; u += (u == 1 ? 4 : 5)) {
    numbers += fmt::format("<text class=\"unit-number\" x=\"{}\" y=\"{}\">{}</text>",
                           svg_number(kRackMargin - 4), svg_number((rack_units - u) * kUnitHeight + 7), u);
  }
  return numbers;
}

}  // namespace

namespace {

// What binds this rack: a rack-scale system's own limit (what its power shelves carry), else the facility's.
Power rack_ceiling(const Cluster& cluster, const Rack& rack) {
  return rack.system.empty() ? cluster.power.rack_power_ceiling : rack.power_limit;
}

// Maximum draw against the rack's ceiling; the bar turns red past it.
std::string power_bar(const Cluster& cluster, const Rack& rack, double y) {
  const double limit_kw = in_kilowatts(rack_ceiling(cluster, rack));
  const double rack_kw = in_kilowatts(rack.power_max);
  const double scale = std::max(limit_kw, rack_kw);
  if (scale <= 0) return "";
  const double width = kRackWidth * rack_kw / scale;
  const double limit_x = kRackMargin + kRackWidth * limit_kw / scale;
  return fmt::format(
      "<rect class=\"power-track\" x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\"/>"
      "<rect class=\"power-used{4}\" x=\"{0}\" y=\"{1}\" width=\"{5}\" height=\"{3}\"/>"
      "<line class=\"power-limit\" x1=\"{6}\" x2=\"{6}\" y1=\"{7}\" y2=\"{8}\"/>"
      "<text class=\"power-label\" x=\"{0}\" y=\"{9}\">{10} of {11} kW limit</text>",
      svg_number(kRackMargin), svg_number(y), svg_number(kRackWidth), svg_number(kPowerBarHeight),
      rack_kw > limit_kw ? " over" : "", svg_number(width), svg_number(limit_x), svg_number(y - 2),
      svg_number(y + kPowerBarHeight + 2), svg_number(y + kPowerBarHeight + 13), format_number(rack_kw, 1),
      format_number(limit_kw, 1));
}

}  // namespace

RackLayouts group_rack_layouts(const Cluster& cluster) {
  RackLayouts layouts;
  std::map<std::string, int> layout_by_key;
  for (std::size_t r = 0; r < cluster.racks.size(); ++r) {
    const auto [it, added] = layout_by_key.emplace(layout_key(cluster, cluster.racks[r]),
                                                   static_cast<int>(layouts.racks_of_layout.size()));
    if (added) layouts.racks_of_layout.emplace_back();
    layouts.racks_of_layout[it->second].push_back(static_cast<int>(r));
    layouts.layout_of_rack.push_back(it->second);
  }
  return layouts;
}

std::string floor_plan_svg(const Cluster& cluster, const RackLayouts& layouts) {
  std::map<int, std::vector<int>> racks_by_row;
  for (std::size_t r = 0; r < cluster.racks.size(); ++r)
    racks_by_row[cluster.racks[r].row].push_back(static_cast<int>(r));
  std::map<int, std::vector<const CduUnit*>> cdus_by_row;  // in-row CDUs stand at their own positions
  std::size_t longest_row = 1;
  for (const CduUnit& unit : cluster.cooling.units) {
    if (unit.rack >= 0) continue;
    cdus_by_row[unit.row].push_back(&unit);
    longest_row = std::max(longest_row, static_cast<std::size_t>(unit.slot) + 1);
  }
  for (auto& [row, racks] : racks_by_row) {
    std::sort(racks.begin(), racks.end(),
              [&](int a, int b) { return cluster.racks[a].slot < cluster.racks[b].slot; });
    longest_row = std::max(longest_row, racks.size());
  }
  const double cell = std::min(kFloorCellMax, kFloorWidth / static_cast<double>(longest_row));
  const double row_height = racks_by_row.size() > kDenseRows ? kFloorRowHeightDense : kFloorRowHeight;
  const double height = row_height * static_cast<double>(racks_by_row.size()) + 4;
  std::string svg =
      fmt::format("<svg class=\"floor-plan\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"rack rows\">",
                  svg_number(kFloorWidth + 60), svg_number(height));
  double y = 4;
  for (const auto& [row, racks] : racks_by_row) {
    svg += fmt::format("<text class=\"row-label\" x=\"0\" y=\"{}\">row {}</text>",
                       svg_number(y + row_height / 2 + 3), row + 1);
    for (std::size_t i = 0; i < racks.size(); ++i)
      svg += floor_cell(cluster, layouts, racks[i], 60 + cell * static_cast<double>(i), y, cell,
                        row_height * 0.7);
    for (const CduUnit* unit : cdus_by_row[row])
      svg += floor_cdu(cluster, *unit, 60 + cell * unit->slot, y, cell, row_height * 0.7);
    y += row_height;
  }
  return svg + "</svg>";
}

std::string rack_elevation_svg(const Cluster& cluster, int rack_index) {
  const Rack& rack = cluster.racks[rack_index];
  const int units = rack_height_units(cluster, rack_index);
  const double frame_height = units * kUnitHeight;
  const double total_height = frame_height + kPowerBarHeight + (rack.heat_to_liquid.base() > 0 ? 38 : 26);
  std::string svg = fmt::format(
      "<svg class=\"elevation\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"rack elevation\">"
      "<rect class=\"rack-frame\" x=\"{}\" y=\"0\" width=\"{}\" height=\"{}\"/>",
      svg_number(kRackMargin + kRackWidth + 2), svg_number(total_height), svg_number(kRackMargin),
      svg_number(kRackWidth), svg_number(frame_height));
  svg += unit_numbers(units);
  for (const int d : rack.devices) svg += device_shape(cluster, cluster.devices[d], units);
  for (const CduUnit* unit : cdus_in_rack(cluster, rack_index)) svg += cdu_shape(cluster, *unit, units);
  svg += power_bar(cluster, rack, frame_height + 8);
  if (rack.heat_to_liquid.base() > 0) {  // liquid-cooled racks: where the heat goes
    svg +=
        fmt::format("<text class=\"heat-label\" x=\"{}\" y=\"{}\">heat: {} kW to liquid, {} kW to air</text>",
                    svg_number(kRackMargin), svg_number(frame_height + kPowerBarHeight + 24),
                    format_number(in_kilowatts(rack.heat_to_liquid), 1),
                    format_number(in_kilowatts(rack.heat_to_air), 1));
  }
  return svg + "</svg>";
}

}  // namespace gputwin
