#include "gputwin/validate/nvidia_smi_query_csv.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

std::vector<std::string_view> cells_of(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    cells.push_back(
        trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

// "power.draw [W]" -> "power.draw".
std::string column_name(std::string_view header_cell) {
  const auto bracket = header_cell.find(" [");
  return std::string(trim(header_cell.substr(0, bracket)));
}

std::optional<int> small_integer(std::string_view text, const FieldAt& at) {
  const auto value = count_value(text, at);
  if (value && *value > 1'000'000) fail_at(at, "value out of range");
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

// The columns gputwin reads and where each goes. Names are nvidia-smi's (see nvidia-smi --help-query-gpu).
using CellReader = std::function<void(NodeFacts&, GpuFacts&, std::string_view, const FieldAt&)>;

const std::map<std::string, CellReader, std::less<>>& cell_readers() {
  static const std::map<std::string, CellReader, std::less<>> readers = {
      {"index",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) { g.index = small_integer(t, a); }},
      {"name", [](NodeFacts&, GpuFacts& g, std::string_view t,
                  const FieldAt&) { g.model = text_value(t).value_or(""); }},
      {"serial",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt&) { g.serial = text_value(t); }},
      {"uuid", [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt&) { g.uuid = text_value(t); }},
      {"pci.bus_id",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt&) { g.bus_id = text_value(t); }},
      {"vbios_version",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt&) { g.vbios_version = text_value(t); }},
      {"pstate", [](NodeFacts&, GpuFacts& g, std::string_view t,
                    const FieldAt&) { g.performance_state = text_value(t); }},
      {"driver_version",
       [](NodeFacts& n, GpuFacts&, std::string_view t, const FieldAt&) { n.driver_version = text_value(t); }},
      {"hostname",
       [](NodeFacts& n, GpuFacts&, std::string_view t, const FieldAt&) { n.hostname = text_value(t); }},
      {"memory.total", [](NodeFacts&, GpuFacts& g, std::string_view t,
                          const FieldAt& a) { g.memory_total = mebibytes_value(t, a); }},
      {"memory.used", [](NodeFacts&, GpuFacts& g, std::string_view t,
                         const FieldAt& a) { g.memory_used = mebibytes_value(t, a); }},
      {"ecc.mode.current", [](NodeFacts&, GpuFacts& g, std::string_view t,
                              const FieldAt& a) { g.ecc_enabled = switch_value(t, a); }},
      {"ecc.errors.corrected.volatile.total",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.ecc.volatile_correctable = count_value(t, a);
       }},
      {"ecc.errors.uncorrected.volatile.total",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.ecc.volatile_uncorrectable = count_value(t, a);
       }},
      {"ecc.errors.corrected.aggregate.total",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.ecc.aggregate_correctable = count_value(t, a);
       }},
      {"ecc.errors.uncorrected.aggregate.total",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.ecc.aggregate_uncorrectable = count_value(t, a);
       }},
      {"retired_pages.single_bit_ecc.count",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.retired_pages.single_bit_ecc = count_value(t, a);
       }},
      {"retired_pages.double_bit.count",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.retired_pages.double_bit_ecc = count_value(t, a);
       }},
      {"retired_pages.pending", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                   const FieldAt& a) { g.retired_pages.pending = switch_value(t, a); }},
      {"remapped_rows.correctable",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.row_remapping.correctable = count_value(t, a);
       }},
      {"remapped_rows.uncorrectable",
       [](NodeFacts&, GpuFacts& g, std::string_view t, const FieldAt& a) {
         g.row_remapping.uncorrectable = count_value(t, a);
       }},
      {"remapped_rows.pending", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                   const FieldAt& a) { g.row_remapping.pending = switch_value(t, a); }},
      {"remapped_rows.failure", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                   const FieldAt& a) { g.row_remapping.failure = switch_value(t, a); }},
      {"clocks.current.graphics", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                     const FieldAt& a) { g.clocks.graphics_mhz = megahertz_value(t, a); }},
      {"clocks.current.sm", [](NodeFacts&, GpuFacts& g, std::string_view t,
                               const FieldAt& a) { g.clocks.sm_mhz = megahertz_value(t, a); }},
      {"clocks.current.memory", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                   const FieldAt& a) { g.clocks.memory_mhz = megahertz_value(t, a); }},
      {"clocks.max.graphics", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                 const FieldAt& a) { g.max_clocks.graphics_mhz = megahertz_value(t, a); }},
      {"clocks.max.sm", [](NodeFacts&, GpuFacts& g, std::string_view t,
                           const FieldAt& a) { g.max_clocks.sm_mhz = megahertz_value(t, a); }},
      {"clocks.max.memory", [](NodeFacts&, GpuFacts& g, std::string_view t,
                               const FieldAt& a) { g.max_clocks.memory_mhz = megahertz_value(t, a); }},
      {"power.draw", [](NodeFacts&, GpuFacts& g, std::string_view t,
                        const FieldAt& a) { g.power.draw = power_value(t, a); }},
      {"power.limit", [](NodeFacts&, GpuFacts& g, std::string_view t,
                         const FieldAt& a) { g.power.limit = power_value(t, a); }},
      {"power.default_limit", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                 const FieldAt& a) { g.power.default_limit = power_value(t, a); }},
      {"enforced.power.limit", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                  const FieldAt& a) { g.power.enforced_limit = power_value(t, a); }},
      {"power.min_limit", [](NodeFacts&, GpuFacts& g, std::string_view t,
                             const FieldAt& a) { g.power.min_limit = power_value(t, a); }},
      {"power.max_limit", [](NodeFacts&, GpuFacts& g, std::string_view t,
                             const FieldAt& a) { g.power.max_limit = power_value(t, a); }},
      {"temperature.gpu", [](NodeFacts&, GpuFacts& g, std::string_view t,
                             const FieldAt& a) { g.temperature_celsius = celsius_value(t, a); }},
      {"temperature.memory", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                const FieldAt& a) { g.memory_temperature_celsius = celsius_value(t, a); }},
      {"pcie.link.gen.current", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                   const FieldAt& a) { g.pcie.generation_current = small_integer(t, a); }},
      {"pcie.link.gen.max", [](NodeFacts&, GpuFacts& g, std::string_view t,
                               const FieldAt& a) { g.pcie.generation_max = small_integer(t, a); }},
      {"pcie.link.width.current", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                     const FieldAt& a) { g.pcie.width_current = link_width_value(t, a); }},
      {"pcie.link.width.max", [](NodeFacts&, GpuFacts& g, std::string_view t,
                                 const FieldAt& a) { g.pcie.width_max = link_width_value(t, a); }},
      {"persistence_mode", [](NodeFacts&, GpuFacts& g, std::string_view t,
                              const FieldAt& a) { g.persistence_mode = switch_value(t, a); }},
      {"mig.mode.current", [](NodeFacts&, GpuFacts& g, std::string_view t,
                              const FieldAt& a) { g.mig_enabled = switch_value(t, a); }},
      {"mig.mode.pending", [](NodeFacts&, GpuFacts& g, std::string_view t,
                              const FieldAt& a) { g.mig_pending = switch_value(t, a); }},
  };
  return readers;
}

// clocks_event_reasons.sw_power_cap (and the older clocks_throttle_reasons.*): one column per reason.
std::optional<std::string> clock_event_reason(std::string_view column) {
  for (std::string_view prefix : {"clocks_event_reasons.", "clocks_throttle_reasons."}) {
    if (column.substr(0, prefix.size()) != prefix) continue;
    const std::string_view reason = column.substr(prefix.size());
    if (reason == "supported" || reason == "active") return std::nullopt;  // bit masks, same facts
    return std::string(reason);
  }
  return std::nullopt;
}

GpuFacts gpu_of(NodeFacts& node, const std::vector<std::string>& columns,
                const std::vector<std::string_view>& cells, int line) {
  GpuFacts gpu;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const FieldAt at{{node.source, line, 0}, columns[c]};
    if (auto reason = clock_event_reason(columns[c])) {
      const auto active = switch_value(cells[c], at);
      if (!active) continue;
      if (!gpu.active_clock_event_reasons) gpu.active_clock_event_reasons.emplace();
      if (*active) gpu.active_clock_event_reasons->push_back(*reason);
      continue;
    }
    const auto reader = cell_readers().find(columns[c]);
    if (reader != cell_readers().end()) reader->second(node, gpu, cells[c], at);
  }
  return gpu;
}

NodeFacts node_of(std::string_view text, const std::string& source, int first_line) {
  NodeFacts node;
  node.source = source;
  std::vector<std::string> columns;
  int header_line = 0;
  int line = first_line - 1;
  std::size_t position = 0;
  while (position < text.size()) {
    auto end = text.find('\n', position);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view content = trim(text.substr(position, end - position));
    position = end + 1;
    ++line;
    if (content.empty()) continue;
    const auto cells = cells_of(content);
    if (columns.empty()) {
      for (std::string_view cell : cells) columns.push_back(column_name(cell));
      header_line = line;
      if (std::find(columns.begin(), columns.end(), "name") == columns.end() &&
          std::find(columns.begin(), columns.end(), "uuid") == columns.end() &&
          std::find(columns.begin(), columns.end(), "index") == columns.end())
        throw InputFailure(
            InputError{{source, line, 0},
                       "",
                       "not nvidia-smi --query-gpu CSV: the header names no 'index', 'name' or "
                       "'uuid' column (run with --format=csv, keeping the header)"});
      continue;
    }
    if (cells.size() != columns.size())
      throw InputFailure(InputError{{source, line, 0},
                                    "",
                                    "expected " + std::to_string(columns.size()) +
                                        " cells as in the header at line " + std::to_string(header_line) +
                                        ", got " + std::to_string(cells.size())});
    node.gpus.push_back(gpu_of(node, columns, cells, line));
  }
  return node;
}

}  // namespace

Result<NodeFacts> NvidiaSmiQueryCsv::read_file(const std::string& path) {
  return guarded_parse<NodeFacts>(path, [&] {
    const std::string text = read_input_file(path);
    return node_of(text, path, 1);
  });
}

Result<NodeFacts> NvidiaSmiQueryCsv::parse(std::string_view text, const std::string& source, int first_line) {
  return guarded_parse<NodeFacts>(source, [&] { return node_of(text, source, first_line); });
}

}  // namespace gputwin::validate
