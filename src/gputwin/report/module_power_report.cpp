#include "gputwin/report/module_power_report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gputwin {
namespace {

// Why a line's power is, or is not, in IT power, from its host's published figures.
std::string verdict(const ModulePowerLine& line) {
  const std::string& host = line.host_part;
  const bool max = line.added_to_max();
  const bool typical = line.added_to_typical();
  const bool unknown = line.host_max_scope == ModulePowerScope::unknown ||
                       line.host_typical_scope == ModulePowerScope::unknown;
  if (!max && !typical) return "not added: " + host + "'s figures count them";
  if (max && !typical) return "added to max only: " + host + "'s typical counts them, its max does not";
  if (!max) {
    return std::string("added to typical only: ") + host + "'s max counts them, its typical " +
           (line.host_typical_scope == ModulePowerScope::unknown ? "may not" : "does not");
  }
  return unknown ? "added: " + host + "'s figures do not say whether they count them"
                 : "added: " + host + "'s figures leave them out";
}

std::string each_text(const ModulePowerLine& line) {
  if (line.typical_each == line.max_each) return format_power(line.max_each);
  return format_power(line.typical_each) + " typical, " + format_power(line.max_each) + " max";
}

}  // namespace

std::string module_power_text(const PowerSummary& power) {
  if (power.modules.empty()) return "";
  std::string text =
      fmt::format("  Transceivers and active cables: {} max, {} typical added to IT power (each module once)\n",
                  format_power(power.modules_max), format_power(power.modules_typical));
  for (const ModulePowerLine& line : power.modules) {
    text += fmt::format("    {} x {}{} ({}) in {}: {}\n", line.count, line.module_part,
                        line.cable ? " ends" : "", each_text(line), line.host_part, verdict(line));
  }
  return text;
}

nlohmann::ordered_json module_power_json(const PowerSummary& power) {
  const auto kw = [](Power value) { return std::round(in_kilowatts(value) * 1000) / 1000; };
  nlohmann::ordered_json lines = nlohmann::ordered_json::array();
  for (const ModulePowerLine& line : power.modules) {
    lines.push_back({{"host_part", line.host_part},
                     {"part", line.module_part},
                     {"kind", line.cable ? "active_cable_end" : "transceiver"},
                     {"count", line.count},
                     {"max_w_each", in_watts(line.max_each)},
                     {"typical_w_each", in_watts(line.typical_each)},
                     {"host_max_scope", module_power_scope_name(line.host_max_scope)},
                     {"host_typical_scope", module_power_scope_name(line.host_typical_scope)},
                     {"added_to_max", line.added_to_max()},
                     {"added_to_typical", line.added_to_typical()},
                     {"host_scope_source", line.host_scope_source}});
  }
  return {{"modules_max_kw", kw(power.modules_max)},
          {"modules_typical_kw", kw(power.modules_typical)},
          {"modules", lines}};
}

}  // namespace gputwin
