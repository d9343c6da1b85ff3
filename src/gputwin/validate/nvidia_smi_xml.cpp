#include "gputwin/validate/nvidia_smi_xml.hpp"

#include <tinyxml2.h>

#include <initializer_list>

#include "gputwin/core/input_file.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

using tinyxml2::XMLElement;

// One element's text and where it is, for values and their errors.
struct ElementText {
  std::string_view text;
  FieldAt at;
};

class GpuElementReader {
 public:
  GpuElementReader(const XMLElement& gpu, const std::string& source, int line_offset)
      : gpu_(gpu), source_(source), line_offset_(line_offset) {}

  [[nodiscard]] GpuFacts read(int ordinal) const;

 private:
  // The first element found along any of `paths` ("pci/pci_gpu_link_info/pcie_gen/max_link_gen").
  [[nodiscard]] std::optional<ElementText> find(std::initializer_list<std::string_view> paths) const;
  [[nodiscard]] std::optional<ElementText> find_under(const XMLElement& start, std::string_view path,
                                                      std::string_view shown_prefix) const;
  [[nodiscard]] const XMLElement* element(std::initializer_list<std::string_view> paths) const;
  [[nodiscard]] FieldAt at(const XMLElement& element, std::string field) const;

  template <class Convert>
  auto value(std::initializer_list<std::string_view> paths, Convert convert) const
      -> decltype(convert(std::string_view(), std::declval<const FieldAt&>())) {
    if (auto found = find(paths)) return convert(found->text, found->at);
    return std::nullopt;
  }

  [[nodiscard]] EccCounts ecc() const;
  [[nodiscard]] std::optional<std::int64_t> ecc_total(const XMLElement* counts) const;
  [[nodiscard]] std::optional<std::int64_t> sum_children(const XMLElement& counts,
                                                         std::initializer_list<std::string_view> names) const;
  [[nodiscard]] std::optional<std::vector<std::string>> active_clock_event_reasons() const;
  [[nodiscard]] PowerReadings power() const;
  [[nodiscard]] std::vector<MigDevice> mig_devices() const;

  const XMLElement& gpu_;
  const std::string& source_;
  int line_offset_;
};

const XMLElement* descend(const XMLElement& start, std::string_view path) {
  const XMLElement* current = &start;
  while (!path.empty() && current != nullptr) {
    const auto slash = path.find('/');
    const std::string name(path.substr(0, slash));
    current = current->FirstChildElement(name.c_str());
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  return current;
}

std::string_view element_text(const XMLElement& element) {
  const char* text = element.GetText();
  return text == nullptr ? std::string_view() : std::string_view(text);
}

FieldAt GpuElementReader::at(const XMLElement& element, std::string field) const {
  return FieldAt{{source_, element.GetLineNum() + line_offset_, 0}, std::move(field)};
}

std::optional<ElementText> GpuElementReader::find_under(const XMLElement& start, std::string_view path,
                                                        std::string_view shown_prefix) const {
  const XMLElement* found = descend(start, path);
  if (found == nullptr) return std::nullopt;
  std::string field = std::string(shown_prefix) + std::string(path);
  for (char& c : field)
    if (c == '/') c = '.';
  return ElementText{element_text(*found), at(*found, std::move(field))};
}

std::optional<ElementText> GpuElementReader::find(std::initializer_list<std::string_view> paths) const {
  for (std::string_view path : paths)
    if (auto found = find_under(gpu_, path, "gpu.")) return found;
  return std::nullopt;
}

const XMLElement* GpuElementReader::element(std::initializer_list<std::string_view> paths) const {
  for (std::string_view path : paths)
    if (const XMLElement* found = descend(gpu_, path)) return found;
  return nullptr;
}

std::optional<std::int64_t> GpuElementReader::sum_children(
    const XMLElement& counts, std::initializer_list<std::string_view> names) const {
  std::optional<std::int64_t> total;
  for (std::string_view name : names) {
    const XMLElement* child = counts.FirstChildElement(std::string(name).c_str());
    if (child == nullptr) continue;
    const auto count = count_value(element_text(*child), at(*child, "gpu.ecc_errors." + std::string(name)));
    if (count) total = total.value_or(0) + *count;
  }
  return total;
}

// The <total> of an old per-location layout's <single_bit> or <double_bit> (newer drivers report SRAM/DRAM
// counts instead, summed by sum_children).
std::optional<std::int64_t> GpuElementReader::ecc_total(const XMLElement* bit_counts) const {
  if (bit_counts == nullptr) return std::nullopt;
  const XMLElement* total = bit_counts->FirstChildElement("total");
  if (total == nullptr) return std::nullopt;
  return count_value(element_text(*total), at(*total, "gpu.ecc_errors.total"));
}

EccCounts GpuElementReader::ecc() const {
  EccCounts counts;
  const XMLElement* errors = element({"ecc_errors"});
  if (errors == nullptr) return counts;
  auto read = [&](const char* scope, std::optional<std::int64_t>& correctable,
                  std::optional<std::int64_t>& uncorrectable) {
    const XMLElement* scoped = errors->FirstChildElement(scope);
    if (scoped == nullptr) return;
    // <volatile> or <aggregate>: the per-location layout (Pascal-era drivers) or the SRAM/DRAM one.
    if (scoped->FirstChildElement("single_bit") != nullptr ||
        scoped->FirstChildElement("double_bit") != nullptr) {
      correctable = ecc_total(scoped->FirstChildElement("single_bit"));
      uncorrectable = ecc_total(scoped->FirstChildElement("double_bit"));
      return;
    }
    correctable = sum_children(*scoped, {"sram_correctable", "dram_correctable"});
    uncorrectable = sum_children(*scoped, {"sram_uncorrectable", "sram_uncorrectable_parity",
                                           "sram_uncorrectable_secded", "dram_uncorrectable"});
  };
  read("volatile", counts.volatile_correctable, counts.volatile_uncorrectable);
  read("aggregate", counts.aggregate_correctable, counts.aggregate_uncorrectable);
  return counts;
}

std::optional<std::vector<std::string>> GpuElementReader::active_clock_event_reasons() const {
  const XMLElement* reasons = element({"clocks_event_reasons", "clocks_throttle_reasons"});
  if (reasons == nullptr) return std::nullopt;
  std::vector<std::string> active;
  for (const XMLElement* reason = reasons->FirstChildElement(); reason != nullptr;
       reason = reason->NextSiblingElement()) {
    std::string_view name = reason->Name();
    for (std::string_view prefix : {"clocks_event_reason_", "clocks_throttle_reason_"})
      if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
    const auto is_active =
        switch_value(element_text(*reason), at(*reason, "gpu." + std::string(reason->Name())));
    if (is_active.value_or(false)) active.emplace_back(name);
  }
  return active;
}

PowerReadings GpuElementReader::power() const {
  PowerReadings power;
  const XMLElement* readings = element({"gpu_power_readings", "power_readings"});
  if (readings == nullptr) return power;
  const std::string prefix = std::string("gpu.") + readings->Name() + ".";
  auto read = [&](std::initializer_list<std::string_view> names) -> std::optional<Power> {
    for (std::string_view name : names)
      if (auto found = find_under(*readings, name, prefix)) return power_value(found->text, found->at);
    return std::nullopt;
  };
  power.draw = read({"power_draw", "instant_power_draw", "average_power_draw"});
  power.limit = read({"power_limit", "current_power_limit"});
  power.default_limit = read({"default_power_limit"});
  power.enforced_limit = read({"enforced_power_limit"});
  power.min_limit = read({"min_power_limit"});
  power.max_limit = read({"max_power_limit"});
  return power;
}

std::vector<MigDevice> GpuElementReader::mig_devices() const {
  std::vector<MigDevice> devices;
  const XMLElement* list = element({"mig_devices"});
  if (list == nullptr) return devices;
  for (const XMLElement* device = list->FirstChildElement("mig_device"); device != nullptr;
       device = device->NextSiblingElement("mig_device")) {
    auto integer = [&](std::string_view path) -> std::optional<int> {
      auto found = find_under(*device, path, "gpu.mig_devices.mig_device.");
      if (!found) return std::nullopt;
      auto count = count_value(found->text, found->at);
      if (count && *count > 1'000'000) fail_at(found->at, "value out of range");
      return count ? std::optional<int>(static_cast<int>(*count)) : std::nullopt;
    };
    MigDevice mig;
    mig.index = integer("index");
    mig.gpu_instance_id = integer("gpu_instance_id");
    mig.compute_instance_id = integer("compute_instance_id");
    mig.multiprocessor_count = integer("device_attributes/shared/multiprocessor_count");
    if (auto total = find_under(*device, "fb_memory_usage/total", "gpu.mig_devices.mig_device."))
      mig.memory_total = mebibytes_value(total->text, total->at);
    devices.push_back(mig);
  }
  return devices;
}

std::optional<int> small_integer(std::optional<std::int64_t> value, const FieldAt& at) {
  if (!value) return std::nullopt;
  if (*value > 1'000'000) fail_at(at, "value out of range: " + std::to_string(*value));
  return static_cast<int>(*value);
}

GpuFacts GpuElementReader::read(int ordinal) const {
  GpuFacts gpu;
  gpu.index = ordinal;  // nvidia-smi lists GPUs in index order; the XML carries no index element
  gpu.model = value({"product_name"}, [](std::string_view text, const FieldAt&) {
                return text_value(text);
              }).value_or("");
  auto text = [](std::string_view text, const FieldAt&) { return text_value(text); };
  gpu.serial = value({"serial"}, text);
  gpu.uuid = value({"uuid"}, text);
  gpu.vbios_version = value({"vbios_version"}, text);
  gpu.performance_state = value({"performance_state"}, text);
  const char* id = gpu_.Attribute("id");
  gpu.bus_id = id != nullptr ? text_value(id) : value({"pci/pci_bus_id"}, text);
  gpu.memory_total = value({"fb_memory_usage/total"}, mebibytes_value);
  gpu.memory_used = value({"fb_memory_usage/used"}, mebibytes_value);
  gpu.ecc_enabled = value({"ecc_mode/current_ecc"}, switch_value);
  gpu.ecc = ecc();
  gpu.retired_pages.single_bit_ecc =
      value({"retired_pages/multiple_single_bit_retirement/retired_count"}, count_value);
  gpu.retired_pages.double_bit_ecc =
      value({"retired_pages/double_bit_retirement/retired_count"}, count_value);
  gpu.retired_pages.pending =
      value({"retired_pages/pending_retirement", "retired_pages/pending_blacklist"}, switch_value);
  gpu.row_remapping.correctable = value({"remapped_rows/remapped_row_corr"}, count_value);
  gpu.row_remapping.uncorrectable = value({"remapped_rows/remapped_row_unc"}, count_value);
  gpu.row_remapping.pending = value({"remapped_rows/remapped_row_pending"}, switch_value);
  gpu.row_remapping.failure = value({"remapped_rows/remapped_row_failure"}, switch_value);
  gpu.clocks = {value({"clocks/graphics_clock"}, megahertz_value),
                value({"clocks/sm_clock"}, megahertz_value), value({"clocks/mem_clock"}, megahertz_value)};
  gpu.max_clocks = {value({"max_clocks/graphics_clock"}, megahertz_value),
                    value({"max_clocks/sm_clock"}, megahertz_value),
                    value({"max_clocks/mem_clock"}, megahertz_value)};
  gpu.power = power();
  gpu.temperature_celsius = value({"temperature/gpu_temp"}, celsius_value);
  gpu.memory_temperature_celsius = value({"temperature/memory_temp"}, celsius_value);
  gpu.max_operating_temperature_celsius = value({"temperature/gpu_temp_max_gpu_threshold"}, celsius_value);
  gpu.memory_max_operating_temperature_celsius =
      value({"temperature/gpu_temp_max_mem_threshold"}, celsius_value);
  gpu.active_clock_event_reasons = active_clock_event_reasons();
  auto generation = [](std::string_view text, const FieldAt& at) {
    return small_integer(count_value(text, at), at);
  };
  gpu.pcie.generation_current = value({"pci/pci_gpu_link_info/pcie_gen/current_link_gen"}, generation);
  gpu.pcie.generation_max = value({"pci/pci_gpu_link_info/pcie_gen/max_link_gen"}, generation);
  gpu.pcie.width_current = value({"pci/pci_gpu_link_info/link_widths/current_link_width"}, link_width_value);
  gpu.pcie.width_max = value({"pci/pci_gpu_link_info/link_widths/max_link_width"}, link_width_value);
  gpu.persistence_mode = value({"persistence_mode"}, switch_value);
  gpu.mig_enabled = value({"mig_mode/current_mig"}, switch_value);
  gpu.mig_pending = value({"mig_mode/pending_mig"}, switch_value);
  gpu.mig_devices = mig_devices();
  return gpu;
}

std::optional<std::string> root_text(const XMLElement& root, const char* name) {
  const XMLElement* child = root.FirstChildElement(name);
  return child == nullptr ? std::nullopt : text_value(element_text(*child));
}

NodeFacts parse_log(std::string_view text, const std::string& source, int first_line) {
  tinyxml2::XMLDocument document;
  const int line_offset = first_line - 1;
  if (document.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    const int line = document.ErrorLineNum() > 0 ? document.ErrorLineNum() + line_offset : 0;
    throw InputFailure(
        InputError{{source, line, 0}, "", std::string("not well-formed XML: ") + document.ErrorStr()});
  }
  const XMLElement* root = document.RootElement();
  if (root == nullptr || std::string_view(root->Name()) != "nvidia_smi_log") {
    const int line = root == nullptr ? first_line : root->GetLineNum() + line_offset;
    const std::string found = root == nullptr ? "no element" : "<" + std::string(root->Name()) + ">";
    throw InputFailure(
        InputError{{source, line, 0},
                   "",
                   "not an nvidia-smi -q -x log: the root is " + found + ", expected <nvidia_smi_log>"});
  }
  NodeFacts node;
  node.source = source;
  node.driver_version = root_text(*root, "driver_version");
  node.cuda_version = root_text(*root, "cuda_version");
  int ordinal = 0;
  for (const XMLElement* gpu = root->FirstChildElement("gpu"); gpu != nullptr;
       gpu = gpu->NextSiblingElement("gpu")) {
    node.gpus.push_back(GpuElementReader(*gpu, source, line_offset).read(ordinal++));
    node.gpus.back().line = gpu->GetLineNum() + line_offset;
  }
  return node;
}

}  // namespace

Result<NodeFacts> NvidiaSmiXml::read_file(const std::string& path) {
  return guarded_parse<NodeFacts>(path, [&] {
    const std::string text = read_input_file(path);
    return parse_log(text, path, 1);
  });
}

Result<NodeFacts> NvidiaSmiXml::parse(std::string_view text, const std::string& source, int first_line) {
  return guarded_parse<NodeFacts>(source, [&] { return parse_log(text, source, first_line); });
}

}  // namespace gputwin::validate
