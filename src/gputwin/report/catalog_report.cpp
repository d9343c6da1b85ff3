#include "gputwin/report/catalog_report.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

using Lines = std::vector<std::pair<std::string, std::string>>;

std::string nics_text(const Nics& nics) {
  std::string text;
  for (const auto& [role, group] : nics) {
    if (!text.empty()) text += "; ";
    text += fmt::format("{} {} x {} ({}, {} per cage)", role_name(role), group.ports,
                        format_data_rate(group.speed), group.cage.empty() ? "?" : group.cage,
                        group.ports_per_cage);
  }
  return text;
}

Lines figures(const Accelerator& part) {
  Lines lines{{"vendor", part.vendor}, {"form factor", part.form_factor}};
  for (const auto& [precision, rate] : part.dense_compute) {
    lines.emplace_back("dense " + precision,
                       rate ? format_number(in_teraflops(*rate), 1) + " TFLOP/s" : "not supported");
  }
  lines.emplace_back("memory", format_number(in_gigabytes(part.memory), 0) + " GB " + part.memory_type);
  lines.emplace_back("memory bandwidth",
                     format_number(in_gigabytes_per_second(part.memory_bandwidth) / 1000, 3) + " TB/s");
  lines.emplace_back("TDP", format_power(part.tdp));
  if (part.scale_up) {
    lines.emplace_back(
        "scale-up",
        part.scale_up->type +
            (part.scale_up->bandwidth
                 ? ", " + format_number(in_gigabytes_per_second(*part.scale_up->bandwidth), 0) + " GB/s"
                 : ""));
  }
  if (part.host_link) lines.emplace_back("host link", part.host_link->type);
  if (!part.mig_profile_set.empty()) lines.emplace_back("MIG", part.mig_profile_set);
  return lines;
}

Lines figures(const MigProfileSet& part) {
  Lines lines{{"memory slots", std::to_string(part.memory_slots)},
              {"compute slices", std::to_string(part.compute_slices)}};
  for (const auto& profile : part.profiles) {
    std::string starts;
    for (const int slot : profile.start_slots) starts += (starts.empty() ? "" : ",") + std::to_string(slot);
    lines.emplace_back(profile.name,
                       fmt::format("max {} instances, size {} slots, starts [{}]", profile.max_instances,
                                   profile.size_slots, starts.empty() ? "unpublished" : starts));
  }
  return lines;
}

// A system's typical power and, when the power model gave it, its basis and source (and the inference
// figure).
void typical_lines(const std::optional<Power>& typical, const std::optional<TypicalPowerNote>& note,
                   Lines& lines) {
  if (!typical) {
    lines.emplace_back("power typical", "unknown (no published draw and no GPUs to model)");
    return;
  }
  if (!note) {
    lines.emplace_back("power typical", format_power(*typical));
    return;
  }
  lines.emplace_back("power typical", fmt::format("{} under training, {} ({})", format_power(*typical),
                                                  note->basis, note->confidence));
  lines.emplace_back("typical source", note->source);
  if (note->inference) {
    lines.emplace_back("typical inference", fmt::format("{}, modelled: {}", format_power(*note->inference),
                                                        note->inference_source));
  }
}

// Whether the part's power figures count the modules in its cages (catalog power_includes_modules).
void module_scope_line(const ModulePowerScopes& scopes, bool has_typical, Lines& lines) {
  std::string text = std::string("max ") + module_power_scope_name(scopes.max);
  if (has_typical) text += std::string(", typical ") + module_power_scope_name(scopes.typical);
  if (!scopes.source.empty()) text += " (" + scopes.source + ")";
  lines.emplace_back("modules in power", text);
}

Lines figures(const System& part) {
  Lines lines;
  if (!part.accelerator.empty())
    lines.emplace_back("accelerators", fmt::format("{} x {}", part.accelerators, part.accelerator));
  lines.emplace_back("rack units", format_rack_units(part.rack_units));
  lines.emplace_back("power max", format_power(part.power_max));
  typical_lines(part.power_typical, part.typical_note, lines);
  module_scope_line(part.module_power, part.power_typical.has_value(), lines);
  if (part.psus)
    lines.emplace_back("PSUs", fmt::format("{} x {} ({})", part.psus->count, format_power(part.psus->rating),
                                           part.psus->redundancy));
  lines.emplace_back("NICs", nics_text(part.nics));
  return lines;
}

std::string bytes_per_second(DataRate rate) {
  return format_number(rate.base() / 8e9, 2) + " GB/s";
}

std::string terabytes(ByteSize size) {
  return format_number(size.base() / 1e12, 2) + " TB";
}

Lines figures(const Appliance& part) {
  Lines lines{{"rack units", format_rack_units(part.rack_units)},
              {"power max", format_power(part.power_max)},
              {"NICs", nics_text(part.nics)}};
  module_scope_line(part.module_power, false, lines);
  if (const auto& storage = part.storage) {
    if (!storage->filesystem.empty()) lines.emplace_back("file system", storage->filesystem);
    lines.emplace_back("read", bytes_per_second(storage->read_bandwidth));
    lines.emplace_back(
        "write", storage->write_bandwidth ? bytes_per_second(*storage->write_bandwidth) : "not published");
    lines.emplace_back("usable capacity",
                       storage->usable_capacity ? terabytes(*storage->usable_capacity) : "not published");
  }
  return lines;
}

Lines figures(const StorageTierTable& part) {
  Lines lines{{"nodes per SU", std::to_string(part.nodes_per_scalable_unit)}};
  auto rates_text = [](const StorageRates& rates) {
    return "read " + bytes_per_second(rates.read) + ", write " + bytes_per_second(rates.write);
  };
  for (const auto& [tier, rates] : part.per_node)
    lines.emplace_back(fmt::format("{} per node", storage_tier_name(tier)), rates_text(rates));
  for (const auto& row : part.aggregate) {
    for (const auto& [tier, rates] : row.rates)
      lines.emplace_back(fmt::format("{} {} SU", storage_tier_name(tier), row.scalable_units),
                         rates_text(rates));
  }
  return lines;
}

Lines figures(const Switch& part) {
  Lines lines{{"technology", part.technology},
              {"rack units", format_rack_units(part.rack_units)},
              {"cages", fmt::format("{} x {}", part.cages, part.cage)}};
  for (const auto& mode : part.port_modes)
    lines.emplace_back("ports", fmt::format("{} x {}", mode.ports, format_data_rate(mode.speed)));
  lines.emplace_back("power max", format_power(part.power_max));
  if (part.power_typical) lines.emplace_back("power typical", format_power(*part.power_typical));
  module_scope_line(part.module_power, part.power_typical.has_value(), lines);
  return lines;
}

Lines figures(const Transceiver& part) {
  Lines lines{{"cage", part.cage},
              {"ports", std::to_string(part.ports)},
              {"port speed", format_data_rate(part.port_speed)},
              {"medium", medium_name(part.medium)}};
  for (const auto& [grade, reach] : part.reach) lines.emplace_back("reach " + grade, format_length(reach));
  if (part.power_max) lines.emplace_back("power max", format_power(*part.power_max));
  if (part.power_typical) lines.emplace_back("power typical", format_power(*part.power_typical));
  return lines;
}

Lines figures(const Cable& part) {
  std::string lengths;
  for (const auto& length : part.lengths) lengths += (lengths.empty() ? "" : ", ") + format_length(length);
  return {
      {"medium", medium_name(part.medium)}, {"speed", format_data_rate(part.speed)}, {"lengths", lengths}};
}

Lines figures(const Circuit& part) {
  return {
      {"circuit",
       fmt::format("{} V, {} phase, {} A, derated to {}", format_number(part.voltage.base(), 0), part.phases,
                   format_number(part.current.base(), 0), format_number(part.continuous_derating, 2))},
      {"usable power", format_power(part.usable_power())}};
}

Lines figures(const Pdu& part) {
  return {{"circuit", part.circuit}, {"outlets", std::to_string(part.outlets)}};
}
Lines figures(const Cooling& part) {
  return {{"type", part.type}, {"max rack power", format_power(part.max_rack_power)}};
}
Lines figures(const FacilityDefaults& part) {
  return {{"PUE", format_number(part.pue, 2)},
          {"electricity price", format_number(part.electricity_price.base(), 4) + " USD/kWh"},
          {"rack units", format_rack_units(part.rack_units)}};
}

Lines figures(const RackSystem& part) {
  Lines lines{
      {"compute trays", fmt::format("{} x {}", part.compute_trays, part.compute_tray)},
      {"switch trays", fmt::format("{} x {} ({}, {} each)", part.switch_trays.count, part.switch_trays.name,
                                   format_rack_units(part.switch_trays.rack_units),
                                   format_power(part.switch_trays.power_max))},
      {"power shelves",
       fmt::format("{} x {} ({}, {} x {} PSUs{})", part.power_shelves.count,
                   format_power(part.power_shelves.rating), format_rack_units(part.power_shelves.rack_units),
                   part.power_shelves.psus_per_shelf, format_power(part.power_shelves.psu_rating),
                   part.power_shelves.redundancy.empty() ? "" : ", " + part.power_shelves.redundancy)},
      {"rack units", format_rack_units(part.rack_units)},
      {"power max", format_power(part.power_max)},
      {"cooling", fmt::format("{}, {} % of the heat to liquid", cooling_method_name(part.cooling),
                              format_number(part.heat_to_liquid * 100.0, 1))},
      {"scale-up per GPU",
       fmt::format("{} GB/s one way ({})", format_number(in_gigabytes_per_second(part.scale_up_bandwidth), 0),
                   part.scale_up_link)}};
  typical_lines(part.power_typical, part.typical_note, lines);
  if (part.weight_kg > 0) lines.emplace_back("weight", format_number(part.weight_kg, 0) + " kg");
  return lines;
}
Lines figures(const CoolantDistributionUnit& part) {
  Lines lines{{"placement", part.placement}, {"capacity", format_power(part.capacity)}};
  if (!part.redundancy.empty()) lines.emplace_back("redundancy", part.redundancy);
  if (part.flow_l_per_min > 0) lines.emplace_back("flow", format_number(part.flow_l_per_min, 0) + " l/min");
  return lines;
}
Lines figures(const BusbarFeed& part) {
  return {{"capacity", format_power(part.capacity)}, {"voltage", format_number(part.voltage_v, 0) + " V"}};
}
Lines figures(const Coolant& part) {
  return {{"specific heat", format_number(part.specific_heat_j_per_kg_k, 0) + " J/(kg K)"},
          {"density", format_number(part.density_kg_per_l, 3) + " kg/l"}};
}

template <class Part>
void list_kind(const Catalog& catalog, const std::string& kind, const std::string& filter, TextTable& table) {
  if (!filter.empty() && filter != kind) return;
  for (const auto& part : catalog.all<Part>())
    table.add_row({kind, part.info.id, part.info.name, part.info.confidence});
}

template <class Part>
bool show_kind(const Catalog& catalog, const std::string& kind, const std::string& id, std::string& text) {
  const Part* part = catalog.find<Part>(id);
  if (part == nullptr) return false;
  text += fmt::format("{} ({}): {}\n", part->info.id, kind, part->info.name);
  TextTable table({"figure", "value"}, {Align::left, Align::left});
  for (const auto& [name, value] : figures(*part)) table.add_row({name, value});
  text += table.render();
  text += fmt::format("  source: {}\n  confidence: {}\n", part->info.source, part->info.confidence);
  if (!part->info.notes.empty()) text += fmt::format("  notes: {}\n", part->info.notes);
  // Relative to the working directory when below it, so the listing reads the same on every checkout.
  const std::string file = std::filesystem::path(part->info.defined_at.file)
                               .lexically_proximate(std::filesystem::current_path())
                               .string();
  text += fmt::format("  defined at: {}:{}\n", file.rfind("..", 0) == 0 ? part->info.defined_at.file : file,
                      part->info.defined_at.line);
  return true;
}

// Calls visit.template operator()<Part>(kind) for every kind of part, in listing order, until one returns
// true: the one list of kinds and their names that listing, showing and --kind's check share.
template <class Visitor>
void visit_kinds(Visitor&& visit) {
  (void)(visit.template operator()<Accelerator>("accelerator") ||
         visit.template operator()<MigProfileSet>("mig_profile_set") ||
         visit.template operator()<System>("system") || visit.template operator()<Appliance>("appliance") ||
         visit.template operator()<Switch>("switch") || visit.template operator()<Transceiver>("transceiver") ||
         visit.template operator()<Cable>("cable") || visit.template operator()<Circuit>("circuit") ||
         visit.template operator()<Pdu>("pdu") || visit.template operator()<Cooling>("cooling") ||
         visit.template operator()<FacilityDefaults>("facility_defaults") ||
         visit.template operator()<RackSystem>("rack_system") ||
         visit.template operator()<CoolantDistributionUnit>("cdu") ||
         visit.template operator()<BusbarFeed>("busbar") || visit.template operator()<Coolant>("coolant") ||
         visit.template operator()<StorageTierTable>("storage_tier"));
}

}  // namespace

std::vector<std::string> catalog_kinds() {
  std::vector<std::string> kinds;
  visit_kinds([&]<class Part>(const std::string& kind) {
    kinds.push_back(kind);
    return false;
  });
  return kinds;
}

std::string catalog_list(const Catalog& catalog, const std::string& kind_filter) {
  TextTable table({"kind", "id", "name", "confidence"}, {Align::left, Align::left, Align::left, Align::left});
  visit_kinds([&]<class Part>(const std::string& kind) {
    list_kind<Part>(catalog, kind, kind_filter, table);
    return false;
  });
  return table.render("");
}

std::string catalog_show(const Catalog& catalog, const std::string& id) {
  std::string text;
  visit_kinds([&]<class Part>(const std::string& kind) { return show_kind<Part>(catalog, kind, id, text); });
  return text;
}

}  // namespace gputwin
