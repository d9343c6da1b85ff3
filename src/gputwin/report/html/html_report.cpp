#include "gputwin/report/html/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gputwin/design/node_groups.hpp"
#include "gputwin/report/html/charts.hpp"
#include "gputwin/report/html/fabric_svg.hpp"
#include "gputwin/report/html/html_text.hpp"
#include "gputwin/report/html/perf_tables.hpp"
#include "gputwin/report/html/rack_svg.hpp"
#include "gputwin/report/buy_vs_rent_report.hpp"
#include "gputwin/report/plan_report.hpp"

namespace gputwin {
namespace {

using Json = nlohmann::ordered_json;

// Distinct rack contents drawn as elevations; past this the page lists how many more layouts exist, so a
// design with unusual variety cannot grow the page without bound.
constexpr std::size_t kMaxElevations = 24;

constexpr std::string_view kStyle = R"css(
:root { --ink: #1d2733; --muted: #5b6776; --line: #d5dbe3; --card: #f5f7fa; --accent: #2f6fb3; --bad: #c0392b; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif;
       color: var(--ink); background: #fff; }
header { padding: 18px 28px; background: #16324f; color: #fff; }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 4px 0 0; color: #c9d6e6; }
main { padding: 8px 28px 40px; max-width: 1500px; }
section { margin-top: 26px; }
h2 { font-size: 18px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
.note { color: var(--muted); font-size: 12px; }
.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.metric { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; }
.metric .value { font-size: 20px; font-weight: 600; }
.metric .label { color: var(--muted); font-size: 12px; }
ul.warnings li { color: var(--bad); }
p.prominent { border-left: 4px solid var(--bad); background: #fbeeec; padding: 8px 12px; margin: 8px 0; }
p.incomplete { color: var(--bad); }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 10px; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.elevations { display: flex; flex-wrap: wrap; gap: 14px; }
.elevations figure { margin: 0; width: 210px; }
figcaption { font-size: 12px; color: var(--muted); }
figcaption b { color: var(--ink); }
svg { display: block; width: 100%; height: auto; font-family: inherit; }
.floor-plan { max-width: 1220px; }
.row-label, .unit-number, .power-label, .tier-label { font-size: 10px; fill: var(--muted); }
.unit-number { text-anchor: end; }
.rack-frame { fill: #fff; stroke: #5b6776; stroke-width: 1.5; }
.device { stroke: #fff; stroke-width: 0.5; }
.device.node { fill: #4f8fd6; } .device.switch { fill: #e08a2c; } .device.appliance { fill: #7c5cc4; }
.device.server { fill: #3a9d6e; } .device.pdu { fill: #999; }
.device.scale_up_switch { fill: #c0392b; } .device.power_shelf { fill: #555; }
.heat-label { font-size: 9px; fill: #1b6fa8; }
.device-label { font-size: 7px; fill: #fff; pointer-events: none; }
.power-track { fill: #e8ecf1; } .power-used { fill: #3a9d6e; } .power-used.over { fill: var(--bad); }
.power-limit { stroke: var(--ink); stroke-width: 1.5; }
.floor-rack { stroke: none; } .floor-rack.liquid { stroke: #0b6fa4; stroke-width: 2.5; }
.floor-cdu rect, rect.floor-cdu { fill: #0b6fa4; stroke: #0b6fa4; }
.floor-cdu.spare rect { fill: #fff; stroke-dasharray: 2 1.5; }
.floor-cdu text { font-size: 6px; fill: #fff; text-anchor: middle; pointer-events: none; }
.floor-cdu.spare text { fill: #0b6fa4; }
.device.cdu { fill: #0b6fa4; }
table.plant td.over { color: var(--bad); font-weight: 600; }
.layout-0 { fill: #4f8fd6; } .layout-1 { fill: #e08a2c; } .layout-2 { fill: #7c5cc4; } .layout-3 { fill: #3a9d6e; }
.layout-4 { fill: #c9503c; } .layout-5 { fill: #2aa3b0; } .layout-6 { fill: #b5a12f; } .layout-7 { fill: #8a6d52; }
.layout-8 { fill: #d36fa8; } .layout-9 { fill: #607089; } .layout-10 { fill: #8fbf4d; } .layout-11 { fill: #444; }
svg.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
.fabric-diagram .link { stroke: #9fb3c8; }
.tier-box rect { fill: var(--card); stroke: var(--accent); }
.tier-box.endpoint rect { stroke: #4f8fd6; } .tier-box.core rect { stroke: #7c5cc4; }
.tier-box text { font-size: 10px; text-anchor: middle; fill: var(--ink); }
.tier-box text.count { font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 18px; }
.chart { border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
.chart h3 { margin: 0 0 2px; font-size: 15px; }
.chart .canvas-box { position: relative; height: 300px; }
)css";

// Draws every chart from the configurations inlined beside it; marks the page when done so tests can wait.
constexpr std::string_view kBootstrap = R"js(
(function () {
  const configs = JSON.parse(document.getElementById('chart-configs').textContent);
  for (const [id, config] of Object.entries(configs)) {
    new Chart(document.getElementById(id), config);
  }
  document.body.dataset.chartsRendered = String(Object.keys(configs).length);
})();
)js";

std::string metric(const std::string& value, const std::string& label) {
  return fmt::format("<div class=\"metric\"><div class=\"value\">{}</div><div class=\"label\">{}</div></div>",
                     html_escape(value), html_escape(label));
}

std::string json_text(const Json& value) {
  return value.dump();
}

// Warnings that change what the design costs or holds, shown above the summary cards.
std::string prominent_warnings(const Cluster& cluster) {
  std::string html;
  for (const auto& warning : cluster.warnings) {
    if (!warning.prominent) continue;
    html += fmt::format("<p class=\"prominent\" data-code=\"{}\"><b>{}</b>: {}</p>",
                        html_escape(warning.code), html_escape(warning.code), html_escape(warning.message));
  }
  return html;
}

// Each node type with its count, role and GPUs, from the plan document (a cluster may hold several).
std::string node_types_list(const Json& plan) {
  std::string html = "<ul class=\"node-types\">";
  for (const Json& type : plan["node_types"]) {
    const int gpus = type["gpus_per_node"].get<int>();
    html += fmt::format(
        "<li data-system=\"{0}\" data-role=\"{1}\" data-count=\"{2}\" data-gpus-per-node=\"{3}\">{2} x "
        "<b>{0}</b> ({1}, {4})</li>",
        html_escape(type["system"].get<std::string>()), html_escape(type["role"].get<std::string>()),
        type["count"].get<int>(), gpus,
        gpus == 0 ? std::string("no GPUs")
                  : fmt::format("{} x {}", gpus, html_escape(type["accelerator"].get<std::string>())));
  }
  return html + "</ul>";
}

std::string summary_section(const Cluster& cluster, const Json& plan) {
  const Json& totals = plan["totals"];
  const Json& costs = plan["costs"];
  const bool priced = costs["priced"].get<bool>();
  const bool complete = costs["complete"].get<bool>();
  std::string html = fmt::format(
      "<section id=\"summary\"><h2>Summary</h2>{}<div class=\"summary\" data-gpus=\"{}\" data-nodes=\"{}\" "
      "data-racks=\"{}\" data-it-kw=\"{}\" data-facility-kw=\"{}\" data-capex-usd=\"{}\" "
      "data-costs-complete=\"{}\" data-tco-per-gpu-hour-usd=\"{}\">",
      prominent_warnings(cluster), json_text(totals["gpus"]), json_text(totals["nodes"]),
      json_text(totals["racks"]), json_text(totals["it_power_kw_max"]),
      json_text(totals["facility_power_kw"]), json_text(costs["capex_usd"]), json_text(costs["complete"]),
      json_text(costs["cost_per_gpu_hour_usd"]));
  html += metric(json_text(totals["gpus"]), "GPUs");
  html += metric(json_text(totals["nodes"]), "nodes");
  html +=
      metric(fmt::format("{}", totals["racks"].get<int>()),
             fmt::format("racks ({} compute, {} network, {} management)", json_text(totals["compute_racks"]),
                         json_text(totals["network_racks"]), json_text(totals["management_racks"])));
  html += metric(format_number(totals["it_power_kw_max"].get<double>(), 1) + " kW", "IT power, maximum");
  html += metric(format_number(totals["facility_power_kw"].get<double>(), 1) + " kW",
                 "facility power at PUE " + format_number(plan["power"]["pue"].get<double>(), 2));
  const std::string capex = format_money(usd(costs["capex_usd"].get<double>()));
  html += metric(!priced    ? "not priced"
                 : complete ? capex
                            : capex + " (incomplete)",
                 complete ? "capex" : "capex, leaving out the parts without a price");
  html += metric(
      costs["cost_per_gpu_hour_usd"].is_number()
          ? format_money(usd(costs["cost_per_gpu_hour_usd"].get<double>()))
          : (priced ? "prices incomplete" : "not priced"),
      fmt::format("TCO per GPU-hour over {} years", svg_number(costs["lifetime_years"].get<double>())));
  html += "</div>" + node_types_list(plan);
  if (!complete && !cluster.costs.unpriced_parts.empty()) {
    html += "<p class=\"note incomplete\">" +
            html_escape((priced ? "Incomplete prices: no price for " : "Parts without a price: ") +
                        missing_prices(cluster.costs)) +
            "</p>";
  }
  return html + "</section>";
}

std::string warnings_section(const Cluster& cluster) {
  std::string html = fmt::format("<section id=\"warnings\" data-warnings=\"{}\"><h2>Design warnings</h2>",
                                 cluster.warnings.size());
  if (cluster.warnings.empty()) return html + "<p>None.</p></section>";
  html += "<ul class=\"warnings\">";
  for (const auto& warning : cluster.warnings) {
    html += fmt::format("<li data-code=\"{}\"><b>{}</b>: {}</li>", html_escape(warning.code),
                        html_escape(warning.code), html_escape(warning.message));
  }
  return html + "</ul></section>";
}

std::string elevation_figure(const Cluster& cluster, const std::vector<int>& racks, std::size_t layout) {
  const Rack& first = cluster.racks[racks.front()];
  const std::string names =
      racks.size() == 1 ? first.name : fmt::format("{} ... {}", first.name, cluster.racks[racks.back()].name);
  return fmt::format(
      "<figure class=\"rack-layout\" data-layout=\"{}\" data-count=\"{}\">{}<figcaption><svg "
      "class=\"swatch\" "
      "viewBox=\"0 0 10 10\"><rect class=\"layout-{}\" width=\"10\" height=\"10\"/></svg><b>{} x {}</b> "
      "rack{}: {}<br>{} U used, {} kW max, "
      "{} kW typical</figcaption></figure>",
      layout, racks.size(), rack_elevation_svg(cluster, racks.front()), layout % 12, racks.size(),
      rack_kind_name(first.kind), racks.size() == 1 ? "" : "s", html_escape(names),
      format_number(in_rack_units(first.used), 0), format_number(in_kilowatts(first.power_max), 1),
      format_number(in_kilowatts(first.power_typical), 1));
}

// How the floor plan marks the liquid-cooling plant, when there is one.
std::string plant_legend(const CoolingPlant& plant) {
  if (!plant.present()) return "";
  return plant.placement == "in_rack"
             ? " Blue outline: a liquid-cooled rack; the blue band at its foot is its in-rack CDU."
             : " Blue outline: a liquid-cooled rack; CDU: an in-row coolant distribution unit's cabinet "
               "at the end of the row it serves, +1 the plant's spare.";
}

std::string racks_section(const Cluster& cluster) {
  const RackLayouts layouts = group_rack_layouts(cluster);
  std::string html = fmt::format(
      "<section id=\"racks\" data-racks=\"{}\" data-layouts=\"{}\"><h2>Racks</h2><p class=\"note\">Every "
      "rack by row, coloured by its contents; each distinct content is drawn once below with its count. "
      "Bars: "
      "maximum draw against the {} limit of {} kW per rack.{}</p>",
      cluster.racks.size(), layouts.racks_of_layout.size(),
      cluster.power.rack_power_ceiling < cluster.power.rack_power_limit ? "cooling's" : "facility's",
      format_number(in_kilowatts(cluster.power.rack_power_ceiling), 1), plant_legend(cluster.cooling));
  html += floor_plan_svg(cluster, layouts) + "<div class=\"elevations\">";
  const std::size_t drawn = std::min(kMaxElevations, layouts.racks_of_layout.size());
  for (std::size_t layout = 0; layout < drawn; ++layout)
    html += elevation_figure(cluster, layouts.racks_of_layout[layout], layout);
  html += "</div>";
  if (drawn < layouts.racks_of_layout.size()) {
    html += fmt::format("<p class=\"note\">{} more distinct rack layouts are not drawn.</p>",
                        layouts.racks_of_layout.size() - drawn);
  }
  return html + "</section>";
}

// The warnings the plant raised (a room's air or liquid capacity exceeded, a rack without room for its CDU).
bool is_plant_warning(const Warning& warning) {
  return warning.code == "room-air-over-capacity" || warning.code == "room-liquid-over-capacity" ||
         warning.code == "cdu-no-rack-space";
}

bool warned(const Cluster& cluster, const std::string& code) {
  return std::any_of(cluster.warnings.begin(), cluster.warnings.end(),
                     [&](const Warning& warning) { return warning.code == code; });
}

std::string plant_row(const std::string& label, const std::string& value, bool over = false) {
  return fmt::format("<tr><th>{}</th><td{}>{}</td></tr>", html_escape(label), over ? " class=\"over\"" : "",
                     html_escape(value));
}

// A room capacity against the load it takes: "300 kW (over)" when the plan warned about it.
std::string capacity_text(const Json& capacity_kw, bool over) {
  if (capacity_kw.is_null()) return "not given";
  return format_number(capacity_kw.get<double>(), 1) + " kW" + (over ? ": exceeded" : "");
}

long spares(const Json& plant) {
  return std::count_if(plant["units"].begin(), plant["units"].end(),
                       [](const Json& unit) { return unit["spare"].get<bool>(); });
}

// The liquid-cooling plant as the plan sized and placed it (plan --json's liquid_cooling), with its warnings.
std::string cooling_plant_section(const Cluster& cluster, const Json& plan) {
  if (!plan.contains("liquid_cooling")) return "";
  const Json& plant = plan["liquid_cooling"];
  const bool in_rack = plant["placement"] == "in_rack";
  const bool air_over = warned(cluster, "room-air-over-capacity");
  const bool liquid_over = warned(cluster, "room-liquid-over-capacity");
  std::string html = fmt::format(
      "<section id=\"cooling-plant\" data-cdus=\"{}\" data-cdus-needed=\"{}\" data-placement=\"{}\" "
      "data-liquid-kw=\"{}\" data-air-kw=\"{}\"><h2>Liquid-cooling plant</h2><table class=\"plant\"><tbody>",
      json_text(plant["cdus"]), json_text(plant["cdus_needed"]),
      html_escape(plant["placement"].get<std::string>()), json_text(plant["liquid_load_kw"]),
      json_text(plant["air_load_kw"]));
  html += plant_row("heat to liquid (racks at maximum power)",
                    format_number(plant["liquid_load_kw"].get<double>(), 1) + " kW", liquid_over);
  html += plant_row("heat left to the room's air",
                    format_number(plant["air_load_kw"].get<double>(), 1) + " kW", air_over);
  html += plant_row("CDU", fmt::format("{}, {} kW, {}", plant["cdu"].get<std::string>(),
                                       format_number(plant["cdu_capacity_kw"].get<double>(), 0),
                                       in_rack ? "in rack" : "in row"));
  html += plant_row("CDUs placed",
                    in_rack ? fmt::format("{}, one in each liquid-cooled rack (redundancy {})",
                                          json_text(plant["cdus"]), plant["redundancy"].get<std::string>())
                            : fmt::format("{}: {} carry the load, {} spare ({})", json_text(plant["cdus"]),
                                          json_text(plant["cdus_needed"]), spares(plant),
                                          plant["redundancy"].get<std::string>()));
  html += plant_row("facility water",
                    fmt::format("{} kg/s ({} l/min) of {} at {} C supply, {} C rise",
                                format_number(plant["water_flow_kg_per_s"].get<double>(), 2),
                                format_number(plant["water_flow_l_per_min"].get<double>(), 0),
                                plant["coolant"].get<std::string>(),
                                format_number(plant["water_supply_temperature_c"].get<double>(), 1),
                                format_number(plant["water_delta_t_c"].get<double>(), 1)));
  html += plant_row("room air capacity", capacity_text(plant["room_air_capacity_kw"], air_over), air_over);
  html += plant_row("room liquid capacity", capacity_text(plant["room_liquid_capacity_kw"], liquid_over),
                    liquid_over);
  if (!plant["liquid_pue"].is_null())
    html += plant_row("PUE of the liquid cooling", format_number(plant["liquid_pue"].get<double>(), 2));
  html += "</tbody></table>";
  for (const Warning& warning : cluster.warnings) {
    if (!is_plant_warning(warning)) continue;
    html += fmt::format("<p class=\"prominent plant-warning\" data-code=\"{}\"><b>{}</b>: {}</p>",
                        html_escape(warning.code), html_escape(warning.code), html_escape(warning.message));
  }
  return html + "</section>";
}

std::string fabric_caption(const Cluster& cluster, const Fabric& fabric, const Json& json) {
  std::string caption = fmt::format(
      "<b>{}</b>: {} of {} at {} Gb/s, {} tier{}, blocking ratio {}", fabric_name(cluster, fabric),
      fabric.topology, html_escape(fabric.switch_part), json_text(json["link_speed_gbit_s"]), fabric.tiers,
      fabric.tiers == 1 ? "" : "s", json_text(json["blocking_ratio"]));
  if (fabric.topology == "rail_optimized") {
    caption += fmt::format("; {} scalable units of {} nodes, {} rails", fabric.scalable_units,
                           fabric.nodes_per_scalable_unit, fabric.rails);
  }
  if (fabric.pods > 1) caption += fmt::format("; {} pods", fabric.pods);
  return caption + fmt::format(". Links: {} node-leaf, {} leaf-spine, {} spine-core.",
                               json_text(json["links"]["node_leaf"]), json_text(json["links"]["leaf_spine"]),
                               json_text(json["links"]["spine_core"]));
}

std::string fabrics_section(const Cluster& cluster, const Json& plan) {
  std::string html =
      "<section id=\"fabrics\"><h2>Fabrics</h2><p class=\"note\">By tier, endpoints at the bottom. Large "
      "tiers are "
      "grouped by scalable unit (SU) with their counts; line width grows with the links between two "
      "boxes.</p>";
  for (const auto& fabric : cluster.fabrics) {
    const Json& json = plan["fabrics"][fabric_name(cluster, fabric)];
    html += fmt::format(
        "<figure class=\"fabric\" data-fabric=\"{}\" data-leaf=\"{}\" data-spine=\"{}\" data-core=\"{}\">{}"
        "<figcaption>{}</figcaption></figure>",
        fabric_name(cluster, fabric), fabric.switches_in(Tier::leaf), fabric.switches_in(Tier::spine),
        fabric.switches_in(Tier::core), fabric_svg(cluster, fabric), fabric_caption(cluster, fabric, json));
  }
  return html + "</section>";
}

// Links beyond every medium's reach keep their routed lengths, hundreds of them on a large design: one row
// per fabric gives their count and range.
std::string unreachable_row(const std::string& role, const Json& cables) {
  long count = 0;
  double shortest = 0;
  double longest = 0;
  for (const auto& cable : cables) {
    if (cable["medium"] != "none") continue;
    const double length = cable["length_m"].get<double>();
    shortest = count == 0 ? length : std::min(shortest, length);
    longest = std::max(longest, length);
    count += cable["count"].get<long>();
  }
  if (count == 0) return "";
  return fmt::format(
      "<tr class=\"beyond-reach\"><td>{}</td><td>none</td><td>no medium reaches</td>"
      "<td class=\"num\">{}-{} m</td><td class=\"num\">{}</td></tr>",
      html_escape(role), format_number(shortest, 1), format_number(longest, 1), count);
}

std::string cables_section(const Json& plan) {
  std::string html =
      "<section id=\"cables\"><h2>Cables and optics</h2><table><thead><tr><th>fabric</th><th>medium</th>"
      "<th>cable</th><th class=\"num\">length</th><th class=\"num\">count</th></tr></thead><tbody>";
  for (const auto& [role, fabric] : plan["fabrics"].items()) {
    for (const auto& cable : fabric["cables"]) {
      if (cable["medium"] == "none") continue;
      html += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{} m</td><td class=\"num\">{}"
          "</td></tr>",
          html_escape(role), html_escape(cable["medium"].get<std::string>()),
          html_escape(cable["part"].get<std::string>()), format_number(cable["length_m"].get<double>(), 1),
          json_text(cable["count"]));
    }
    html += unreachable_row(role, fabric["cables"]);
  }
  html +=
      "</tbody></table><table><thead><tr><th>fabric</th><th>transceivers at</th><th>part</th>"
      "<th class=\"num\">count</th></tr></thead><tbody>";
  for (const auto& [role, fabric] : plan["fabrics"].items()) {
    for (const auto& [end, parts] : fabric["transceivers"]["by_part"].items()) {
      for (const auto& [part, count] : parts.items()) {
        html += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                            html_escape(role), html_escape(end), html_escape(part), json_text(count));
      }
    }
  }
  return html + "</tbody></table></section>";
}

// The storage appliances sized for the spec's `storage:` section, from the plan document's `storage` object.
std::string storage_section(const Json& plan) {
  if (!plan.contains("storage")) return "";
  const Json& storage = plan["storage"];
  auto optional_figure = [](const Json& value, const std::string& unit) {
    return value.is_null() ? std::string("not published")
                           : format_number(value.get<double>(), 1) + " " + unit;
  };
  std::string html = fmt::format(
      "<section id=\"storage\" data-appliances=\"{}\" data-binding=\"{}\"><h2>Storage</h2><p>{} x {} "
      "({}): read {} GB/s, write {}, usable capacity {}.</p><table><thead><tr><th>requirement</th>"
      "<th class=\"num\">need</th><th class=\"num\">per appliance</th><th class=\"num\">appliances</th>"
      "<th></th></tr></thead><tbody>",
      json_text(storage["appliances"]), html_escape(storage["binding"].get<std::string>()),
      json_text(storage["appliances"]), html_escape(storage["appliance"].get<std::string>()),
      html_escape(storage["filesystem"].get<std::string>()),
      format_number(storage["read_gb_per_s"].get<double>(), 1),
      optional_figure(storage["write_gb_per_s"], "GB/s"), optional_figure(storage["capacity_tb"], "TB"));
  for (const auto& requirement : storage["requirements"]) {
    const std::string unit = " " + requirement["unit"].get<std::string>();
    const std::string need = requirement["need"].get<std::string>();
    html += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td>{}</td></tr>",
        html_escape(need), format_number(requirement["amount"].get<double>(), 2) + unit,
        format_number(requirement["per_appliance"].get<double>(), 2) + unit,
        json_text(requirement["appliances"]), need == storage["binding"].get<std::string>() ? "binds" : "");
  }
  return html + "</tbody></table></section>";
}

std::string bom_section(const Json& plan) {
  std::string html =
      "<section id=\"bom\"><h2>Bill of materials</h2><table><thead><tr><th>category</th><th>part</th>"
      "<th>description</th><th class=\"num\">count</th><th class=\"num\">unit price</th>"
      "<th class=\"num\">extended</th></tr></thead><tbody>";
  for (const auto& line : plan["bom"]) {
    const bool priced = line.contains("unit_price_usd");
    html += fmt::format(
        "<tr data-part=\"{0}\" data-count=\"{1}\"><td>{2}</td><td>{0}</td><td>{3}</td><td "
        "class=\"num\">{1}</td>"
        "<td class=\"num\">{4}</td><td class=\"num\">{5}</td></tr>",
        html_escape(line["part"].get<std::string>()), json_text(line["count"]),
        html_escape(line["category"].get<std::string>()), html_escape(line["description"].get<std::string>()),
        priced ? format_money_exact(usd(line["unit_price_usd"].get<double>())) : "-",
        priced ? format_money_exact(usd(line["extended_usd"].get<double>())) : "-");
  }
  return html + "</tbody></table></section>";
}

std::size_t point_count(const Json& config) {
  std::size_t points = 0;
  for (const auto& dataset : config["data"]["datasets"]) points += dataset["data"].size();
  return points;
}

std::string charts_section(const std::vector<ReportChart>& charts, const std::string& section,
                           const std::string& id, const std::string& title) {
  std::string html;
  for (const auto& chart : charts) {
    if (chart.section != section) continue;
    html += fmt::format(
        "<div class=\"chart\"><h3>{}</h3><p class=\"note\">{}</p><div class=\"canvas-box\"><canvas id=\"{}\" "
        "data-series=\"{}\" data-points=\"{}\" role=\"img\" aria-label=\"{}\"></canvas></div></div>",
        html_escape(chart.title), html_escape(chart.note), chart.id, chart.config["data"]["datasets"].size(),
        point_count(chart.config), html_escape(chart.title));
  }
  if (html.empty()) return "";
  return fmt::format("<section id=\"{}\"><h2>{}</h2><div class=\"charts\">{}</div></section>", id, title,
                     html);
}

// Each validate --json document: its summary line, its findings and outliers as tables, then the timeline
// charts (section "validate").
std::string validation_section(const std::vector<ValidateDocument>& validations,
                               const std::vector<ReportChart>& charts) {
  if (validations.empty()) return "";
  std::string html =
      fmt::format("<section id=\"validation\" data-documents=\"{}\"><h2>Validation</h2>", validations.size());
  for (const ValidateDocument& document : validations) {
    const ValidateSummary& v = document.summary;
    html += fmt::format(
        "<div class=\"validation\" data-findings=\"{}\" data-outliers=\"{}\" data-failed=\"{}\">"
        "<h3>{}</h3><p>{} nodes, {} GPUs read from {}{}: {} critical, {} warning, {} info, {} outliers; "
        "<strong>{}</strong> (--fail-on {})</p>",
        v.findings.size(), v.outliers.size(), v.failed ? "true" : "false", html_escape(document.source),
        v.nodes.size(), v.gpus, html_escape(v.measured),
        v.cluster.empty() ? "" : ", compared with " + html_escape(v.cluster), v.critical, v.warning, v.info,
        v.outliers.size(), v.failed ? "FAIL" : "PASS", validate::severity_name(v.fail_on));
    if (v.findings.empty()) {
      html += "<p>No findings.</p>";
    } else {
      html +=
          "<table class=\"findings\"><thead><tr><th>severity</th><th>node</th><th>GPU</th><th>rule</th>"
          "<th>message</th></tr></thead><tbody>";
      for (const ValidateFindingSummary& finding : v.findings)
        html += fmt::format(
            "<tr data-severity=\"{0}\"><td>{0}</td><td>{1}</td><td class=\"num\">{2}</td><td>{3}</td>"
            "<td>{4}</td></tr>",
            validate::severity_name(finding.severity), html_escape(finding.node),
            finding.gpu ? std::to_string(*finding.gpu) : "-", html_escape(finding.rule),
            html_escape(finding.message));
      html += "</tbody></table>";
    }
    if (!v.outliers.empty()) {
      html +=
          "<table class=\"outliers\"><thead><tr><th>metric</th><th>node</th><th>GPU</th><th>value</th>"
          "<th>median</th><th>robust z</th></tr></thead><tbody>";
      for (const ValidateOutlierSummary& outlier : v.outliers)
        html += fmt::format(
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4g} {}</td>"
            "<td class=\"num\">{:.4g}</td><td class=\"num\">{:.2f}</td></tr>",
            html_escape(outlier.metric), html_escape(outlier.node),
            outlier.gpu ? std::to_string(*outlier.gpu) : "-", outlier.value, html_escape(outlier.unit),
            outlier.median, outlier.robust_z);
      html += "</tbody></table>";
    }
    html += "</div>";
  }
  const std::string timeline =
      charts_section(charts, "validate", "validation-timeline", "Measured utilisation");
  return html + "</section>" + timeline;
}

// `report --rent PRICES`: the break-even utilisation of each cloud tier and the workload's cost both ways.
std::string buy_vs_rent_section(const std::optional<BuyVsRent>& answer) {
  if (!answer) return "";
  const BuyVsRent& a = *answer;
  std::string html = fmt::format(
      "<section id=\"buy-vs-rent\" data-tco-usd=\"{}\" data-own-per-gpu-hour-usd=\"{}\"><h2>Buy or rent</h2>"
      "<p>Owning {} x {}: TCO {} over {} years, {} per GPU-hour used all its life. Renting buys only the "
      "GPU-hours used: owning is cheaper above the break-even share of the cluster's GPU-hours. Prices: "
      "{}.</p>"
      "<table><thead><tr><th>tier</th><th>per GPU-hour</th><th>break-even use</th><th>rent, all hours of the "
      "life</th>{}</tr></thead><tbody>",
      svg_number(in_usd(a.tco)), svg_number(in_usd(a.own_per_gpu_hour)), a.gpus, html_escape(a.accelerator),
      html_escape(format_money(a.tco)), svg_number(a.lifetime_years),
      html_escape(format_money_exact(a.own_per_gpu_hour)), html_escape(a.prices_source),
      a.workload ? "<th>workload rented</th><th>workload owned</th>" : "");
  for (const RentTierAnswer& row : a.tiers) {
    html += fmt::format(
        "<tr data-tier=\"{}\" data-break-even=\"{}\"><td>{}</td><td>{}</td><td>{:.1f} %</td>"
        "<td>{}</td>",
        html_escape(row.tier), svg_number(row.break_even_utilization), html_escape(rent_tier_label(row.tier)),
        html_escape(format_money_exact(row.per_gpu_hour)), 100 * row.break_even_utilization,
        html_escape(format_money(row.rent_over_life)));
    if (a.workload) {
      html += fmt::format("<td>{}</td><td>{}</td>",
                          html_escape(row.workload_rent ? format_money(*row.workload_rent) : "-"),
                          html_escape(format_money(*a.workload_own)));
    }
    html += "</tr>";
  }
  html += "</tbody></table>";
  if (a.workload) {
    html += fmt::format("<p class=\"note\">Workload: {} on {} GPUs for {:.1f} days.</p>",
                        html_escape(a.workload->model), a.workload->gpus, a.workload->days);
  }
  return html + "</section>";
}

// A spec sized to facility.power_budget: every platform and GPU power cap the plan compared within the budget
// (nodes, throughput, days, power), the chosen one marked, then the throughput-by-cap chart (section
// "budget").
std::string power_budget_section(const std::optional<PowerBudgetPlan>& budget,
                                 const std::vector<ReportChart>& charts) {
  if (!budget) return "";
  const PowerBudgetPlan& plan = *budget;
  const BudgetCandidate& chosen = plan.candidates.at(plan.chosen);
  std::string html = fmt::format(
      "<section id=\"power-budget\" data-budget-kw=\"{}\" data-candidates=\"{}\" data-chosen-system=\"{}\" "
      "data-chosen-cap-w=\"{}\"><h2>Within the power budget</h2>"
      "<p>The spec gives {} of facility power instead of a node count: each platform at each GPU power cap "
      "is "
      "sized to the most nodes whose whole design fits (IT power at maximum load, every GPU at its cap, "
      "times "
      "the design's blended PUE), and the most training tokens/s wins. Caps tried: {}.</p>"
      "<table><thead><tr><th>system</th><th>cap per GPU</th><th>nodes</th><th>GPUs</th><th>racks</th>"
      "<th>facility</th><th>IT max</th><th>tokens/s</th><th>days</th><th>MFU</th><th>result</th></tr></thead>"
      "<tbody>",
      fmt::format("{}", in_kilowatts(plan.budget)), plan.candidates.size(), html_escape(chosen.system),
      fmt::format("{}", in_watts(chosen.cap)), html_escape(format_power(plan.budget)),
      html_escape(plan.cap_rule));
  for (const BudgetCandidate& row : plan.candidates) {
    const std::string cap = format_number(in_watts(row.cap), 0) + " W" + (row.capped ? "" : " (TDP)");
    html += fmt::format("<tr data-system=\"{}\" data-cap-w=\"{}\" data-fits=\"{}\" data-chosen=\"{}\"",
                        html_escape(row.system), fmt::format("{}", in_watts(row.cap)),
                        row.fits ? "true" : "false", row.chosen ? "true" : "false");
    if (row.fits) {
      html += fmt::format(
          " data-nodes=\"{}\" data-tokens-per-second=\"{}\" data-facility-kw=\"{}\"><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td><td>{} MW</td><td>{} MW</td><td>{}</td><td>{}</td><td>{} %</td>",
          row.nodes, fmt::format("{}", row.tokens_per_second), fmt::format("{}", row.facility_kw),
          html_escape(row.system), html_escape(cap), row.nodes, row.gpus, row.racks,
          format_number(row.facility_kw / 1000, 3), format_number(row.it_kw / 1000, 3),
          format_number(row.tokens_per_second, 0), format_number(row.days, 1),
          format_number(100 * row.mfu, 1));
    } else {
      html += fmt::format("><td>{}</td><td>{}</td><td colspan=\"8\">{}</td>", html_escape(row.system),
                          html_escape(cap), html_escape(row.note));
    }
    html += fmt::format("<td>{}</td></tr>", row.chosen ? "<b>chosen</b>" : html_escape("lost: " + row.lost));
  }
  html += fmt::format(
      "</tbody></table><p class=\"note\">Chosen: {} at {} per GPU, {} nodes ({} GPUs), {} days; facility {} "
      "MW at maximum.{}</p></section>",
      html_escape(chosen.system), format_number(in_watts(chosen.cap), 0) + " W", chosen.nodes, chosen.gpus,
      format_number(chosen.days, 1), format_number(chosen.facility_kw / 1000, 3),
      plan.meets_days ? "" : " It does not train the workload within the days the spec allows.");
  return html + charts_section(charts, "budget", "power-budget-chart", "Throughput by GPU power cap");
}

std::string energy_cell(double kwh) {
  return kwh >= 1000 ? format_number(kwh / 1000, 3) + " MWh" : format_number(kwh, 1) + " kWh";
}

// The power policies one replay compared under its budget (--compare-power-policies): the cap trade-off in
// work done, queueing and energy.
std::string power_policies_table(const ReplaySeries& replay) {
  std::string html = fmt::format(
      "<table class=\"power-policies\" data-source=\"{}\" data-runs=\"{}\"><caption>Power policies at an IT "
      "budget of {} kW ({})</caption><thead><tr><th>policy</th><th class=\"num\">work done (GPU-h)</th>"
      "<th class=\"num\">mean wait</th><th class=\"num\">IT energy</th><th class=\"num\">facility energy"
      "</th><th class=\"num\">peak IT</th><th class=\"num\">lowest cap</th></tr></thead><tbody>",
      html_escape(replay.source), replay.power_policies.size(),
      format_number(replay.budget_it_kw.value_or(0), 0), html_escape(replay.source));
  for (const PowerPolicyRow& row : replay.power_policies) {
    if (!row.refused.empty()) {
      html += fmt::format("<tr data-policy=\"{0}\"><td>{0}</td><td colspan=\"6\">refused: {1}</td></tr>",
                          html_escape(row.policy), html_escape(row.refused));
      continue;
    }
    html += fmt::format(
        "<tr data-policy=\"{0}\" data-work-gpu-hours=\"{1}\" data-facility-kwh=\"{2}\"><td>{0}</td>"
        "<td class=\"num\">{3}</td><td class=\"num\">{4} h</td><td class=\"num\">{5}</td><td "
        "class=\"num\">{6}"
        "</td><td class=\"num\">{7} kW</td><td class=\"num\">{8} W</td></tr>",
        html_escape(row.policy), fmt::format("{}", row.completed_work_gpu_hours),
        fmt::format("{}", row.facility_kwh), format_number(row.completed_work_gpu_hours, 1),
        format_number(row.mean_wait_s / 3600, 2), energy_cell(row.it_kwh), energy_cell(row.facility_kwh),
        format_number(row.peak_it_kw, 1), format_number(row.lowest_cap_w, 0));
  }
  return html + "</tbody></table>";
}

// Each replay on a known system: its IT and facility energy and the run's mean PUE, the budget and the policy
// that held it, then the policies it compared.
std::string replay_energy_section(const std::vector<ReplaySeries>& replays) {
  std::string rows;
  std::string compared;
  int count = 0;
  for (const ReplaySeries& replay : replays) {
    if (!replay.has_energy) continue;
    ++count;
    rows += fmt::format(
        "<tr data-source=\"{0}\" data-it-kwh=\"{1}\" data-facility-kwh=\"{2}\"><td>{0}</td><td>{3}</td>"
        "<td class=\"num\">{4}</td><td class=\"num\">{5}</td><td class=\"num\">{6}</td><td>{7}</td></tr>",
        html_escape(replay.source), fmt::format("{}", replay.it_kwh), fmt::format("{}", replay.facility_kwh),
        html_escape(replay.policy), energy_cell(replay.it_kwh), energy_cell(replay.facility_kwh),
        format_number(replay.pue, 3),
        replay.budget_it_kw
            ? html_escape(format_number(*replay.budget_it_kw, 0) + " kW IT under " + replay.budget_policy)
            : std::string("none"));
    if (!replay.power_policies.empty()) compared += power_policies_table(replay);
  }
  if (count == 0) return "";
  return fmt::format(
      "<section id=\"replay-energy\" data-replays=\"{}\"><h2>Energy of the replays</h2><table><thead><tr>"
      "<th>replay</th><th>queue policy</th><th class=\"num\">IT energy</th><th class=\"num\">facility "
      "energy</th>"
      "<th class=\"num\">PUE (run's mean)</th><th>power budget</th></tr></thead><tbody>{}</tbody></table>{}"
      "<p class=\"note\">Facility energy is each interval's own at its IT load (the design's facility "
      "curve); "
      "from energy and intervals[] of simulate replay --json.</p></section>",
      count, rows, compared);
}

// Chart data sits in a JSON script element; "</" is escaped so no string in it can close the element.
std::string chart_configs_script(const std::vector<ReportChart>& charts) {
  Json configs = Json::object();
  for (const auto& chart : charts) configs[chart.id] = chart.config;
  std::string text = configs.dump();
  for (std::size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return "<script type=\"application/json\" id=\"chart-configs\">" + text + "</script>";
}

}  // namespace

std::string html_report(const Cluster& cluster, const ReportInputs& inputs, std::string_view chart_script) {
  const Json plan = plan_json(cluster);
  const std::vector<ReportChart> charts = report_charts(cluster, inputs);
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>gputwin report: "
      "{0}</title><style>{1}</style></head>"
      "<body><header><h1>{0}</h1><p>{2} GPUs in {3}; report by gputwin</p></header><main>",
      html_escape(cluster.name), kStyle, cluster.gpus,
      html_escape(node_counts_text(cluster, DeviceKind::node)));
  html += summary_section(cluster, plan) + warnings_section(cluster) + racks_section(cluster) +
          cooling_plant_section(cluster, plan) + fabrics_section(cluster, plan);
  html += charts_section(charts, "design", "power-cost", "Power, cost and cabling");
  html += storage_section(plan) + cables_section(plan) + bom_section(plan) +
          buy_vs_rent_section(inputs.buy_vs_rent) + power_budget_section(inputs.power_budget, charts);
  html += charts_section(charts, "simulation", "simulation", "Simulation");
  html += replay_energy_section(inputs.replays);
  html += charts_section(charts, "perf", "perf", "Performance");
  html += inference_section(inputs.inferences) + sizing_section(inputs.sizings) +
          goodput_section(inputs.goodputs) + serving_section(inputs.serves, inputs.capacities);
  html += validation_section(inputs.validations, charts);
  html += "</main>" + chart_configs_script(charts);
  html +=
      "<script>" + std::string(chart_script) + "</script><script>" + std::string(kBootstrap) + "</script>";
  return html + "</body></html>\n";
}

}  // namespace gputwin
