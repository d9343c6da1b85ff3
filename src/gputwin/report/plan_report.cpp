#include "gputwin/report/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gputwin/design/node_groups.hpp"
#include "gputwin/report/facility_report.hpp"
#include "gputwin/report/json_document.hpp"
#include "gputwin/report/module_power_report.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

using Json = nlohmann::ordered_json;

double rounded(double value, int decimals = 3) {
  return round_decimals(value, decimals);
}

double kw(Power power) {
  return rounded(in_kilowatts(power));
}

struct CableTally {
  std::string medium;
  std::string part;
  double length_m = 0;
  int count = 0;
};

// Cables of a fabric by medium, part and orderable length, shortest first.
std::vector<CableTally> cable_tallies(const Fabric& fabric) {
  std::map<std::tuple<std::string, std::string, double>, int> counts;
  for (const auto& bundle : fabric.bundles) {
    const std::string medium = bundle.medium ? medium_name(*bundle.medium) : "none";
    counts[{medium, bundle.cable_part,
            bundle.medium ? in_metres(bundle.cable_length) : in_metres(bundle.length)}] += bundle.links;
  }
  std::vector<CableTally> tallies;
  for (const auto& [key, count] : counts) {
    tallies.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), count});
  }
  return tallies;
}

Json fabric_json(const Fabric& fabric) {
  Json json;
  json["topology"] = fabric.topology;
  json["switch"] = fabric.switch_part;
  json["link_speed_gbit_s"] = in_gigabits_per_second(fabric.link_speed);
  json["radix"] = fabric.radix;
  json["tiers"] = fabric.tiers;
  if (fabric.topology == "rail_optimized") {
    json["rails"] = fabric.rails;
    json["scalable_units"] = fabric.scalable_units;
    json["nodes_per_scalable_unit"] = fabric.nodes_per_scalable_unit;
  }
  json["pods"] = fabric.pods;
  json["leaf_downlinks"] = fabric.leaf_downlinks;
  json["leaf_uplinks"] = fabric.leaf_uplinks;
  json["blocking_ratio"] = rounded(fabric.blocking_ratio());
  json["switches"] = {{"leaf", fabric.switches_in(Tier::leaf)},
                      {"spine", fabric.switches_in(Tier::spine)},
                      {"core", fabric.switches_in(Tier::core)},
                      {"total", fabric.switches_in(Tier::leaf) + fabric.switches_in(Tier::spine) +
                                    fabric.switches_in(Tier::core)}};
  json["links"] = {{"node_leaf", fabric.links_between(Tier::endpoint, Tier::leaf)},
                   {"leaf_spine", fabric.links_between(Tier::leaf, Tier::spine)},
                   {"spine_core", fabric.links_between(Tier::spine, Tier::core)}};
  json["ports"] = {{"total", fabric.ports_total},
                   {"used", fabric.ports_used},
                   {"free", fabric.ports_total - fabric.ports_used}};
  Json transceivers = Json::object();
  for (const auto& end : {"switch", "node", "appliance", "server"})
    transceivers[end] = fabric.transceivers_at(end);
  Json by_part = Json::object();
  for (const auto& [end, parts] : fabric.transceivers) {
    for (const auto& [part, count] : parts) by_part[end][part] = count;
  }
  transceivers["by_part"] = by_part;
  json["transceivers"] = transceivers;
  Json cables = Json::array();
  for (const auto& tally : cable_tallies(fabric)) {
    cables.push_back({{"medium", tally.medium},
                      {"part", tally.part},
                      {"length_m", tally.length_m},
                      {"count", tally.count}});
  }
  json["cables"] = cables;
  return json;
}

Json racks_json(const Cluster& cluster) {
  Json racks = Json::array();
  for (const auto& rack : cluster.racks) {
    Json devices = Json::array();
    for (const int d : rack.devices) {
      const Device& device = cluster.devices[d];
      devices.push_back({{"name", device.name},
                         {"kind", device_kind_name(device.kind)},
                         {"part", device.part},
                         {"rack_unit", device.rack_unit},
                         {"height_u", in_rack_units(device.height)}});
    }
    Json item = {{"name", rack.name},
                 {"kind", rack_kind_name(rack.kind)},
                 {"row", rack.row},
                 {"slot", rack.slot},
                 {"units_used", in_rack_units(rack.used)},
                 {"power_kw_max", kw(rack.power_max)},
                 {"power_kw_typical", kw(rack.power_typical)},
                 {"pdus", rack.pdus},
                 {"devices", devices}};
    // Racks of rack-scale systems or with liquid heat say so; packed air-cooled racks keep their old shape.
    if (!rack.system.empty() || rack.heat_to_liquid > Power{}) {
      item["system"] = rack.system;
      item["cooling"] = cooling_method_name(rack.cooling);
      item["heat_to_liquid_kw"] = kw(rack.heat_to_liquid);
      item["heat_to_air_kw"] = kw(rack.heat_to_air);
      item["power_limit_kw"] = kw(rack.power_limit);
    }
    racks.push_back(item);
  }
  return racks;
}

Json domains_json(const Cluster& cluster) {
  Json domains = Json::array();
  for (const auto& domain : cluster.domains) {
    Json nodes = Json::array();
    for (const int node : domain.nodes) nodes.push_back(cluster.devices[node].name);
    domains.push_back({{"gpus", domain.gpus},
                       {"rack_system", domain.rack_system},
                       {"nodes", nodes},
                       {"switch_trays", domain.switches.size()},
                       {"gpu_bandwidth_gb_per_s", rounded(in_gigabytes_per_second(domain.gpu_bandwidth))}});
  }
  return domains;
}

// Every CDU where the plan put it: a floor position (in-row) or a rack and rack unit (in-rack).
Json cdu_units_json(const Cluster& cluster) {
  Json units = Json::array();
  for (const CduUnit& unit : cluster.cooling.units) {
    Json racks = Json::array();
    for (const int r : unit.racks) racks.push_back(cluster.racks[r].name);
    Json item = {{"name", unit.name}, {"spare", unit.spare}, {"row", unit.row}, {"slot", unit.slot}};
    if (unit.rack >= 0) {
      item["rack"] = cluster.racks[unit.rack].name;
      item["rack_unit"] = unit.rack_unit;
    }
    item["racks"] = racks;
    item["load_kw"] = kw(unit.load);
    units.push_back(item);
  }
  return units;
}

Json cooling_json(const Cluster& cluster) {
  const CoolingPlant& plant = cluster.cooling;
  return {
      {"liquid_load_kw", kw(plant.liquid_load)},
      {"air_load_kw", kw(plant.air_load)},
      {"cdu", plant.cdu},
      {"cdu_capacity_kw", kw(plant.cdu_capacity)},
      {"cdus_needed", plant.cdus_needed},
      {"cdus", plant.cdus},
      {"redundancy", plant.redundancy},
      {"coolant", plant.coolant},
      {"water_supply_temperature_c", plant.water_supply_temperature_c},
      {"water_delta_t_c", plant.water_delta_t_c},
      {"water_flow_kg_per_s", rounded(plant.water_flow_kg_per_s, 2)},
      {"water_flow_l_per_min", rounded(plant.water_flow_l_per_min, 1)},
      {"room_air_capacity_kw", plant.room_air_capacity ? Json(kw(*plant.room_air_capacity)) : Json(nullptr)},
      {"room_liquid_capacity_kw",
       plant.room_liquid_capacity ? Json(kw(*plant.room_liquid_capacity)) : Json(nullptr)},
      {"liquid_pue", plant.liquid_pue ? Json(*plant.liquid_pue) : Json(nullptr)},
      {"placement", plant.placement},
      {"units", cdu_units_json(cluster)}};
}

// The rack-scale systems the design's domains are, in the order first placed.
std::vector<std::string> rack_systems_of(const Cluster& cluster) {
  std::vector<std::string> systems;
  for (const auto& domain : cluster.domains) {
    if (!domain.rack_system.empty() &&
        std::find(systems.begin(), systems.end(), domain.rack_system) == systems.end())
      systems.push_back(domain.rack_system);
  }
  return systems;
}

std::string rack_scale_text(const Cluster& cluster) {
  std::string text;
  for (const std::string& system : rack_systems_of(cluster)) {
    const auto of_system = [&](const ScaleUpDomain& held) { return held.rack_system == system; };
    const ScaleUpDomain& domain = *std::find_if(cluster.domains.begin(), cluster.domains.end(), of_system);
    text += fmt::format(
        "  Scale-up: {} domains of {} GPUs, one per {} rack ({} compute trays + {} NVLink switch trays), {} "
        "per "
        "GPU one way\n",
        std::count_if(cluster.domains.begin(), cluster.domains.end(), of_system), domain.gpus, system,
        domain.nodes.size(), domain.switches.size(),
        format_number(in_gigabytes_per_second(domain.gpu_bandwidth), 0) + " GB/s");
  }
  const CoolingPlant& plant = cluster.cooling;
  if (!plant.present()) return text;
  text += fmt::format("  Heat: {} to liquid, {} to the room's air\n", format_power(plant.liquid_load),
                      format_power(plant.air_load));
  const std::string where =
      plant.placement == "in_rack"
          ? fmt::format("one in each liquid-cooled rack, redundancy {}", plant.redundancy)
          : fmt::format("{} carry the load, N+1", plant.cdus_needed);
  text += fmt::format(
      "  Liquid cooling: {} x {} of {} ({}); facility {} at {} C supply, {} C "
      "rise: {} kg/s ({} l/min)\n",
      plant.cdus, plant.cdu, format_power(plant.cdu_capacity), where, plant.coolant,
      format_number(plant.water_supply_temperature_c, 1), format_number(plant.water_delta_t_c, 1),
      format_number(plant.water_flow_kg_per_s, 2), format_number(plant.water_flow_l_per_min, 0));
  return text;
}

double gb_per_s(DataRate rate) {
  return rounded(in_gigabytes_per_second(rate), 3);
}

double terabytes(ByteSize size) {
  return rounded(size.base() / 1e12, 3);
}

std::string need_unit(StorageNeed need) {
  return is_capacity(need) ? "TB" : "GB/s";
}

Json storage_json(const StorageSummary& storage) {
  Json requirements = Json::array();
  for (const auto& requirement : storage.requirements) {
    requirements.push_back({{"need", storage_need_name(requirement.need)},
                            {"amount", rounded(requirement.amount)},
                            {"unit", need_unit(requirement.need)},
                            {"per_appliance", rounded(requirement.per_unit)},
                            {"appliances", requirement.appliances}});
  }
  Json json;
  json["appliance"] = storage.appliance;
  json["filesystem"] = storage.filesystem;
  json["appliances"] = storage.appliances;
  json["read_gb_per_s"] = gb_per_s(storage.read_bandwidth);
  json["write_gb_per_s"] = storage.write_bandwidth ? Json(gb_per_s(*storage.write_bandwidth)) : Json(nullptr);
  json["capacity_tb"] = storage.capacity ? Json(terabytes(*storage.capacity)) : Json(nullptr);
  json["binding"] = storage_need_name(storage.requirements.at(storage.binding).need);
  json["requirements"] = requirements;
  if (storage.checkpoint_write_seconds > 0.0 && storage.checkpoint_size) {
    json["checkpoint"] = {{"size_tb", terabytes(*storage.checkpoint_size)},
                          {"write_within_s", storage.checkpoint_write_seconds},
                          {"from_workload", storage.checkpoint_from_workload}};
  }
  if (!storage.tier.empty()) {
    json["tier"] = {
        {"level", storage.tier}, {"table", storage.tier_table}, {"scalable_units", storage.scalable_units}};
  }
  return json;
}

std::string storage_text(const StorageSummary& storage) {
  std::string text = "\nStorage\n";
  text += fmt::format("  {} x {}{}: read {} GB/s, write {}, usable capacity {}\n", storage.appliances,
                      storage.appliance, storage.filesystem.empty() ? "" : " (" + storage.filesystem + ")",
                      format_number(gb_per_s(storage.read_bandwidth), 1),
                      storage.write_bandwidth ? format_number(gb_per_s(*storage.write_bandwidth), 1) + " GB/s"
                                              : std::string("not published"),
                      storage.capacity ? format_number(terabytes(*storage.capacity), 1) + " TB"
                                       : std::string("not published"));
  if (storage.checkpoint_write_seconds > 0.0 && storage.checkpoint_size) {
    text += fmt::format(
        "  checkpoint: {} TB{} within {} s\n", format_number(terabytes(*storage.checkpoint_size), 3),
        storage.checkpoint_from_workload ? " (the workload's weights and optimizer state)" : "",
        format_number(storage.checkpoint_write_seconds, 1));
  }
  if (!storage.tier.empty()) {
    text += fmt::format("  tier: {} of {} at {} scalable units\n", storage.tier, storage.tier_table,
                        storage.scalable_units);
  }
  TextTable table({"requirement", "need", "per appliance", "appliances", ""},
                  {Align::left, Align::right, Align::right, Align::right, Align::left});
  for (std::size_t r = 0; r < storage.requirements.size(); ++r) {
    const StorageRequirement& requirement = storage.requirements[r];
    const std::string unit = " " + need_unit(requirement.need);
    table.add_row({storage_need_name(requirement.need), format_number(requirement.amount, 2) + unit,
                   format_number(requirement.per_unit, 2) + unit, std::to_string(requirement.appliances),
                   static_cast<int>(r) == storage.binding ? "binds" : ""});
  }
  return text + table.render();
}

Json costs_json(const Cluster& cluster) {
  const Costs& costs = cluster.costs;
  Json json;
  json["priced"] = costs.priced;
  json["complete"] = costs.complete();
  json["lifetime_years"] = costs.lifetime_years;
  json["capex_usd"] = rounded(in_usd(costs.capex), 2);
  json["energy_per_year_usd"] = rounded(in_usd(costs.energy_per_year), 2);
  json["support_per_year_usd"] = rounded(in_usd(costs.support_per_year), 2);
  json["tco_usd"] = rounded(in_usd(costs.total), 2);
  json["cost_per_gpu_hour_usd"] =
      costs.cost_per_gpu_hour ? Json(rounded(in_usd(*costs.cost_per_gpu_hour), 4)) : Json(nullptr);
  json["unpriced_parts"] = costs.unpriced_parts;
  return json;
}

}  // namespace

std::string missing_prices(const Costs& costs) {
  std::string list;
  for (const auto& part : costs.unpriced_parts) list += (list.empty() ? "" : ", ") + part;
  return list;
}

std::string cost_summary(const Costs& costs) {
  if (!costs.priced) return "not priced (no costs.prices)";
  if (!costs.complete() || !costs.cost_per_gpu_hour) {
    return fmt::format("capex {} INCOMPLETE: no price for {}; no cost per GPU-hour from a partial total",
                       format_money(costs.capex), missing_prices(costs));
  }
  return fmt::format("capex {}; TCO over {} years {}; {} per GPU-hour", format_money(costs.capex),
                     format_number(costs.lifetime_years, 1), format_money(costs.total),
                     format_money(*costs.cost_per_gpu_hour));
}

namespace {

// Every node type and its count: a cluster may hold several (compute nodes of two systems, CPU login or
// management servers beside them).
Json node_types_json(const Cluster& cluster) {
  Json types = Json::array();
  for (const NodeTypeCount& count : cluster.node_type_counts()) {
    types.push_back({{"system", count.type->system},
                     {"role", count.kind == DeviceKind::node ? "compute" : "server"},
                     {"count", count.count},
                     {"gpus_per_node", count.type->gpus},
                     {"accelerator", count.type->accelerator}});
  }
  return types;
}

}  // namespace

Json plan_json(const Cluster& cluster) {
  Json json;
  json["schema"] = kPlanSchema;
  json["name"] = cluster.name;
  json["node_system"] = cluster.node_system;
  json["node_types"] = node_types_json(cluster);
  int pdus = 0;
  for (const auto& rack : cluster.racks) pdus += rack.pdus;
  json["totals"] = {{"gpus", cluster.gpus},
                    {"nodes", cluster.nodes},
                    {"racks", cluster.racks.size()},
                    {"compute_racks", cluster.racks_of(RackKind::compute)},
                    {"network_racks", cluster.racks_of(RackKind::network)},
                    {"management_racks", cluster.racks_of(RackKind::management)},
                    {"it_power_kw_max", kw(cluster.power.it_max)},
                    {"it_power_kw_typical", kw(cluster.power.it_typical)},
                    {"facility_power_kw", kw(cluster.power.facility_max)},
                    {"facility_power_kw_typical", kw(cluster.power.facility_typical)},
                    {"cooling_load_kw", kw(cluster.power.cooling_load)},
                    {"pdus", pdus}};
  Json fabrics = Json::object();
  for (const auto& fabric : cluster.fabrics) fabrics[fabric_name(cluster, fabric)] = fabric_json(fabric);
  json["fabrics"] = fabrics;
  json["power"] = {
      {"pue", cluster.power.pue},
      {"air_pue", cluster.power.air_pue},
      {"liquid_pue", cluster.power.liquid_pue},
      {"circuit_capacity_kw", kw(cluster.power.circuit_capacity)},
      {"circuits", cluster.power.circuits},
      {"typical_from_max", cluster.power.typical_from_max},
      {"node_typical_kw", cluster.power.node_typical ? Json(kw(*cluster.power.node_typical)) : Json()},
      {"node_typical_basis", cluster.power.node_typical_basis},
      {"node_typical_source", cluster.power.node_typical_source}};
  Json bom = Json::array();
  for (const auto& line : cluster.bom) {
    Json item = {{"part", line.part},
                 {"description", line.description},
                 {"category", line.category},
                 {"count", line.count}};
    if (line.unit_price) {
      item["unit_price_usd"] = in_usd(*line.unit_price);
      item["extended_usd"] = rounded(in_usd(*line.unit_price) * line.count, 2);
    }
    bom.push_back(item);
  }
  json["bom"] = bom;
  json["costs"] = costs_json(cluster);
  Json warnings = Json::array();
  for (const auto& warning : cluster.warnings)
    warnings.push_back(
        {{"code", warning.code}, {"message", warning.message}, {"prominent", warning.prominent}});
  json["warnings"] = warnings;
  json["racks"] = racks_json(cluster);
  if (!cluster.rack_system.empty()) {
    json["rack_system"] = cluster.rack_system;
    json["scale_up_domains"] = domains_json(cluster);
  } else if (!rack_systems_of(cluster).empty()) {
    json["scale_up_domains"] = domains_json(cluster);  // several node groups, some of them rack-scale
  }
  if (const auto typicals = typical_power_by_node_type(cluster); typicals.size() > 1) {
    Json by_type = Json::array();
    for (const auto& typical : typicals)
      by_type.push_back({{"system", typical.system}, {"typical_kw", kw(typical.typical)}});
    json["power"]["node_typicals"] = by_type;
  }
  json["power"].update(facility_overhead_json(cluster.power));
  json["power"].update(module_power_json(cluster.power));
  if (cluster.cooling.present()) json["liquid_cooling"] = cooling_json(cluster);
  if (cluster.storage.present()) json["storage"] = storage_json(cluster.storage);
  return json;
}

namespace {

// The facility's PUE, and the air and liquid ones it blends when they differ.
std::string pue_text(const PowerSummary& power) {
  if (power.liquid_pue == power.air_pue) return format_number(power.pue, 2);
  return fmt::format("{} (heat to air at {}, to liquid at {})", format_number(power.pue, 3),
                     format_number(power.air_pue, 2), format_number(power.liquid_pue, 2));
}

}  // namespace

namespace {

// Where the typical figure comes from, in the power line: the node's typical power and its basis, or plainly
// that there is none.
std::string node_typical_text(const Cluster& cluster) {
  const PowerSummary& power = cluster.power;
  if (const auto typicals = typical_power_by_node_type(cluster); typicals.size() > 1) {
    std::string each;  // several node groups: each type's own figure, as its devices carry it
    for (const auto& typical : typicals)
      each += (each.empty() ? "" : ", ") + typical.system + " " + format_power(typical.typical);
    return " (node typical: " + each + ")";
  }
  if (!power.node_typical) return " (no typical power for " + cluster.node_system + ": max used)";
  return fmt::format(" (node typical {}, {})", format_power(*power.node_typical), power.node_typical_basis);
}

}  // namespace

std::string plan_text(const Cluster& cluster) {
  std::string text = fmt::format("{}\n", cluster.name);
  text += fmt::format("  {} GPUs in {}, {} racks ({} compute, {} network, {} management)\n", cluster.gpus,
                      node_counts_text(cluster, DeviceKind::node), cluster.racks.size(),
                      cluster.racks_of(RackKind::compute), cluster.racks_of(RackKind::network),
                      cluster.racks_of(RackKind::management));
  if (const std::string servers = node_counts_text(cluster, DeviceKind::server); !servers.empty())
    text += "  servers: " + servers + "\n";
  const PowerSummary& power = cluster.power;
  text += fmt::format("  IT power {} max, {} typical{}; facility {} at PUE {}; {} PDU circuits of {}\n",
                      format_power(power.it_max), format_power(power.it_typical), node_typical_text(cluster),
                      format_power(power.facility_max), pue_text(power), power.circuits,
                      format_power(power.circuit_capacity));
  text += module_power_text(power);
  text += facility_by_load_text(power);
  text += rack_scale_text(cluster);
  if (cluster.costs.priced) text += "  " + cost_summary(cluster.costs) + "\n";
  // What changes the cost or the shape of the design is read first, not found at the end of a list.
  for (const auto& warning : cluster.warnings) {
    if (warning.prominent) text += fmt::format("\n  !! [{}] {}\n", warning.code, warning.message);
  }

  text += "\nFabrics\n";
  TextTable fabrics(
      {"fabric", "topology", "switch", "speed", "tiers", "leaf", "spine", "core", "node-leaf", "leaf-spine",
       "spine-core", "xcvr sw", "xcvr node", "free ports"},
      {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right, Align::right,
       Align::right, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right});
  for (const auto& fabric : cluster.fabrics) {
    fabrics.add_row(
        {fabric_name(cluster, fabric), fabric.topology, fabric.switch_part,
         format_data_rate(fabric.link_speed), std::to_string(fabric.tiers),
         std::to_string(fabric.switches_in(Tier::leaf)), std::to_string(fabric.switches_in(Tier::spine)),
         std::to_string(fabric.switches_in(Tier::core)),
         std::to_string(fabric.links_between(Tier::endpoint, Tier::leaf)),
         std::to_string(fabric.links_between(Tier::leaf, Tier::spine)),
         std::to_string(fabric.links_between(Tier::spine, Tier::core)),
         std::to_string(fabric.transceivers_at("switch")), std::to_string(fabric.transceivers_at("node")),
         std::to_string(fabric.ports_total - fabric.ports_used)});
  }
  text += fabrics.render();
  if (cluster.storage.present()) text += storage_text(cluster.storage);

  text += "\nCables by medium\n";
  TextTable cables({"fabric", "medium", "links", "shortest", "longest"},
                   {Align::left, Align::left, Align::right, Align::right, Align::right});
  for (const auto& fabric : cluster.fabrics) {
    std::map<std::string, std::tuple<int, double, double>> by_medium;
    for (const auto& tally : cable_tallies(fabric)) {
      auto [it, inserted] = by_medium.try_emplace(tally.medium, 0, tally.length_m, tally.length_m);
      auto& [count, shortest, longest] = it->second;
      count += tally.count;
      shortest = std::min(shortest, tally.length_m);
      longest = std::max(longest, tally.length_m);
    }
    for (const auto& [medium, stats] : by_medium) {
      cables.add_row({fabric_name(cluster, fabric), medium, std::to_string(std::get<0>(stats)),
                      format_number(std::get<1>(stats), 1) + " m",
                      format_number(std::get<2>(stats), 1) + " m"});
    }
  }
  text += cables.render();

  text += "\nBill of materials\n";
  TextTable bom({"category", "part", "description", "count", "unit price", "extended"},
                {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right});
  for (const auto& line : cluster.bom) {
    bom.add_row({line.category, line.part, line.description, std::to_string(line.count),
                 line.unit_price ? format_money_exact(*line.unit_price) : "-",
                 line.unit_price ? format_money_exact(*line.unit_price * line.count) : "-"});
  }
  text += bom.render();

  const Costs& costs = cluster.costs;
  text += "\nCost of ownership\n";
  if (costs.priced) {
    text += "  " + cost_summary(costs) + "\n";
    text += fmt::format("  energy {}/year; support {}/year; TCO over {} years {}{}\n",
                        format_money(costs.energy_per_year), format_money(costs.support_per_year),
                        format_number(costs.lifetime_years, 1), format_money(costs.total),
                        costs.complete() ? "" : " (incomplete)");
  } else {
    text +=
        fmt::format("  no price list: energy {}/year at typical load; add costs.prices for capex and TCO\n",
                    format_money(costs.energy_per_year));
  }

  text += "\nWarnings\n";
  if (cluster.warnings.empty()) text += "  none\n";
  for (const auto& warning : cluster.warnings)
    text += fmt::format("  [{}] {}\n", warning.code, warning.message);
  return text;
}

std::string bom_csv(const Cluster& cluster) {
  auto quoted = [](const std::string& value) {
    std::string text = "\"";
    for (const char c : value) text += c == '"' ? std::string("\"\"") : std::string(1, c);
    return text + "\"";
  };
  std::string csv = "category,part,description,count,unit_price_usd,extended_usd\n";
  for (const auto& line : cluster.bom) {
    csv += fmt::format("{},{},{},{},{},{}\n", line.category, quoted(line.part), quoted(line.description),
                       line.count, line.unit_price ? format_number(in_usd(*line.unit_price), 2) : "",
                       line.unit_price ? format_number(in_usd(*line.unit_price) * line.count, 2) : "");
  }
  return csv;
}

namespace {

PlanFabricSummary fabric_summary_from_json(const std::string& role, const JsonField& fabric) {
  PlanFabricSummary summary;
  summary.role = role;
  summary.topology = fabric.child("topology").string();
  summary.switch_part = fabric.child("switch").string();
  summary.tiers = int_of(fabric.child("tiers"));
  const JsonField switches = fabric.child("switches");
  summary.leaf_switches = switches.child("leaf").integer();
  summary.spine_switches = switches.child("spine").integer();
  summary.core_switches = switches.child("core").integer();
  const JsonField links = fabric.child("links");
  summary.node_leaf_links = links.child("node_leaf").integer();
  summary.leaf_spine_links = links.child("leaf_spine").integer();
  summary.spine_core_links = links.child("spine_core").integer();
  return summary;
}

PlanCandidateSummary candidate_summary_from_json(const JsonField& item) {
  PlanCandidateSummary row;
  row.system = item.child("system").string();
  row.accelerator = item.child("accelerator").string();
  row.chosen = boolean_of(item.child("chosen"));
  row.sized = item.has("gpus");
  if (row.sized) {
    row.gpus = item.child("gpus").integer();
    row.racks = item.child("racks").integer();
    row.days = item.child("days").number();
    row.mfu = item.child("mfu").number();
    row.it_power_kw = item.child("it_power_kw").number();
    row.tco_usd = optional_number(item.child("tco_usd"));
  }
  if (!row.chosen) row.lost = item.child("lost").string();
  return row;
}

PlanBudgetSummary budget_summary_from_json(const JsonField& budget) {
  PlanBudgetSummary summary;
  summary.budget_kw = budget.child("budget_kw").number();
  summary.cap_w = optional_number(budget.child("cap_w"));
  summary.meets_days = boolean_of(budget.child("meets_days"));
  const JsonField candidates = budget.child("candidates");
  for (std::size_t i = 0; i < candidates.array_size(); ++i) {
    const JsonField item = candidates.element(i);
    PlanBudgetCandidate row;
    row.system = item.child("system").string();
    row.cap_w = item.child("cap_w").number();
    row.fits = boolean_of(item.child("fits"));
    row.chosen = boolean_of(item.child("chosen"));
    if (item.has("nodes")) {
      row.nodes = item.child("nodes").integer();
      row.facility_kw = item.child("facility_kw").number();
    }
    if (row.fits) row.tokens_per_second = item.child("tokens_per_second").number();
    if (!row.chosen) row.lost = item.child("lost").string();
    summary.candidates.push_back(row);
  }
  return summary;
}

PlanWorkloadSummary workload_summary_from_json(const JsonField& fit) {
  PlanWorkloadSummary workload;
  workload.model = fit.child("model").string();
  workload.system = fit.child("system").string();
  workload.gpus = fit.child("gpus").integer();
  workload.nodes = fit.child("nodes").integer();
  if (fit.has("racks")) workload.racks = fit.child("racks").integer();
  workload.days = fit.child("days").number();
  workload.days_allowed = optional_number(fit.child("days_allowed")).value_or(0.0);
  workload.mfu = fit.child("mfu").number();
  if (fit.has("power_budget")) workload.power_budget = budget_summary_from_json(fit.child("power_budget"));
  if (fit.has("candidates")) {
    workload.choice_rule = fit.child("choice_rule").string();
    const JsonField candidates = fit.child("candidates");
    for (std::size_t i = 0; i < candidates.array_size(); ++i)
      workload.candidates.push_back(candidate_summary_from_json(candidates.element(i)));
  }
  return workload;
}

PlanStorageSummary storage_summary_from_json(const JsonField& storage) {
  PlanStorageSummary summary;
  summary.appliance = storage.child("appliance").string();
  summary.appliances = storage.child("appliances").integer();
  summary.read_gb_per_s = storage.child("read_gb_per_s").number();
  summary.write_gb_per_s = optional_number(storage.child("write_gb_per_s"));
  summary.capacity_tb = optional_number(storage.child("capacity_tb"));
  summary.binding = storage.child("binding").string();
  const JsonField requirements = storage.child("requirements");
  for (std::size_t i = 0; i < requirements.array_size(); ++i) {
    const JsonField item = requirements.element(i);
    summary.requirements.push_back({item.child("need").string(), item.child("amount").number(),
                                    item.child("per_appliance").number(),
                                    item.child("appliances").integer()});
  }
  return summary;
}

}  // namespace

PlanSummary plan_summary_from_json(const JsonField& root) {
  expect_schema(root, kPlanSchema, "plan --json");
  PlanSummary plan;
  plan.name = root.child("name").string();
  plan.node_system = root.child("node_system").string();
  // Documents written before node types were listed hold one compute type, named by node_system.
  if (const auto types = root.optional_child("node_types")) {
    for (std::size_t i = 0; i < types->array_size(); ++i) {
      const JsonField type = types->element(i);
      plan.node_types.push_back({type.child("system").string(), type.child("role").string(),
                                 type.child("count").integer(), type.child("gpus_per_node").integer(),
                                 type.child("accelerator").string()});
    }
  }
  const JsonField totals = root.child("totals");
  plan.gpus = totals.child("gpus").integer();
  plan.nodes = totals.child("nodes").integer();
  plan.racks = totals.child("racks").integer();
  plan.it_power_kw_max = totals.child("it_power_kw_max").number();
  plan.it_power_kw_typical = totals.child("it_power_kw_typical").number();
  plan.facility_power_kw = totals.child("facility_power_kw").number();
  const JsonField fabrics = root.child("fabrics");
  if (!fabrics.json().is_object()) fabrics.fail("expected an object of fabrics by role");
  for (const auto& [role, value] : fabrics.json().items())
    plan.fabrics.push_back(fabric_summary_from_json(role, fabrics.child(role)));
  const JsonField bom = root.child("bom");
  for (std::size_t i = 0; i < bom.array_size(); ++i) {
    const JsonField line = bom.element(i);
    const auto price = line.optional_child("unit_price_usd");
    plan.bom.push_back({line.child("part").string(), line.child("category").string(),
                        line.child("count").integer(),
                        price ? std::optional(price->number()) : std::nullopt});
  }
  const JsonField costs = root.child("costs");
  plan.priced = boolean_of(costs.child("priced"));
  plan.costs_complete = boolean_of(costs.child("complete"));
  plan.capex_usd = costs.child("capex_usd").number();
  plan.tco_usd = costs.child("tco_usd").number();
  plan.cost_per_gpu_hour_usd = optional_number(costs.child("cost_per_gpu_hour_usd"));
  const JsonField unpriced = costs.child("unpriced_parts");
  for (std::size_t i = 0; i < unpriced.array_size(); ++i)
    plan.unpriced_parts.push_back(unpriced.element(i).string());
  const JsonField warnings = root.child("warnings");
  for (std::size_t i = 0; i < warnings.array_size(); ++i) {
    const JsonField warning = warnings.element(i);
    plan.warnings.push_back({warning.child("code").string(), warning.child("message").string(),
                             boolean_of(warning.child("prominent"))});
  }
  if (root.has("workload_fit")) plan.workload_fit = workload_summary_from_json(root.child("workload_fit"));
  if (root.has("storage")) plan.storage = storage_summary_from_json(root.child("storage"));
  if (root.has("buy_vs_rent")) plan.buy_vs_rent = buy_vs_rent_from_json(root.child("buy_vs_rent"));
  return plan;
}

Result<PlanSummary> read_plan_json(std::string_view text, const std::string& source) {
  return read_json_document<PlanSummary>(text, source, plan_summary_from_json);
}

}  // namespace gputwin
