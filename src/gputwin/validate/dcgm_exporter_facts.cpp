#include "gputwin/validate/dcgm_exporter_facts.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

constexpr double kBytesPerMebibyte = 1048576.0;

std::int64_t count_of(double value) {
  return static_cast<std::int64_t>(std::llround(value));
}

// NVML's clock event reason bits (nvml.h, nvmlClocksEventReason*), named as nvidia-smi names them.
std::vector<std::string> clock_event_reasons(double mask_value) {
  static const std::pair<std::uint64_t, const char*> kBits[] = {
      {0x1, "gpu_idle"},
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clocks_setting"},
  };
  const auto mask = static_cast<std::uint64_t>(std::llround(mask_value));
  std::vector<std::string> active;
  for (const auto& [bit, name] : kBits)
    if ((mask & bit) != 0) active.emplace_back(name);
  return active;
}

// The framebuffer parts dcgm-exporter exports by default (MiB); their sum is the GPU's memory when no
// DCGM_FI_DEV_FB_TOTAL is exported.
struct Framebuffer {
  std::optional<double> total, free, used, reserved;
};

using FieldSetter = std::function<void(GpuFacts&, Framebuffer&, double)>;

// dcgm-exporter counter names (DCGM field names) and the fact each fills.
const std::map<std::string_view, FieldSetter>& dcgm_fields() {
  static const std::map<std::string_view, FieldSetter> fields = {
      {"DCGM_FI_DEV_GPU_TEMP", [](GpuFacts& g, Framebuffer&, double v) { g.temperature_celsius = v; }},
      // GPUs without an HBM sensor (T4, L4) export 0: no reading.
      {"DCGM_FI_DEV_MEMORY_TEMP",
       [](GpuFacts& g, Framebuffer&, double v) {
         if (v > 0) g.memory_temperature_celsius = v;
       }},
      {"DCGM_FI_DEV_SM_CLOCK", [](GpuFacts& g, Framebuffer&, double v) { g.clocks.sm_mhz = v; }},
      {"DCGM_FI_DEV_MEM_CLOCK", [](GpuFacts& g, Framebuffer&, double v) { g.clocks.memory_mhz = v; }},
      {"DCGM_FI_DEV_POWER_USAGE", [](GpuFacts& g, Framebuffer&, double v) { g.power.draw = watts(v); }},
      {"DCGM_FI_DEV_POWER_MGMT_LIMIT", [](GpuFacts& g, Framebuffer&, double v) { g.power.limit = watts(v); }},
      {"DCGM_FI_DEV_POWER_MGMT_LIMIT_DEF",
       [](GpuFacts& g, Framebuffer&, double v) { g.power.default_limit = watts(v); }},
      {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT",
       [](GpuFacts& g, Framebuffer&, double v) { g.power.enforced_limit = watts(v); }},
      {"DCGM_FI_DEV_XID_ERRORS", [](GpuFacts& g, Framebuffer&, double v) { g.last_xid = count_of(v); }},
      {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.ecc.volatile_correctable = count_of(v); }},
      {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.ecc.volatile_uncorrectable = count_of(v); }},
      {"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.ecc.aggregate_correctable = count_of(v); }},
      {"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.ecc.aggregate_uncorrectable = count_of(v); }},
      {"DCGM_FI_DEV_RETIRED_SBE",
       [](GpuFacts& g, Framebuffer&, double v) { g.retired_pages.single_bit_ecc = count_of(v); }},
      {"DCGM_FI_DEV_RETIRED_DBE",
       [](GpuFacts& g, Framebuffer&, double v) { g.retired_pages.double_bit_ecc = count_of(v); }},
      {"DCGM_FI_DEV_RETIRED_PENDING",
       [](GpuFacts& g, Framebuffer&, double v) { g.retired_pages.pending = v > 0; }},
      {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
       [](GpuFacts& g, Framebuffer&, double v) { g.row_remapping.uncorrectable = count_of(v); }},
      {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
       [](GpuFacts& g, Framebuffer&, double v) { g.row_remapping.correctable = count_of(v); }},
      {"DCGM_FI_DEV_ROW_REMAP_FAILURE",
       [](GpuFacts& g, Framebuffer&, double v) { g.row_remapping.failure = v > 0; }},
      {"DCGM_FI_DEV_ROW_REMAP_PENDING",
       [](GpuFacts& g, Framebuffer&, double v) { g.row_remapping.pending = v > 0; }},
      {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
       [](GpuFacts& g, Framebuffer&, double v) { g.pcie_replays = count_of(v); }},
      {"DCGM_FI_DEV_PCIE_LINK_GEN",
       [](GpuFacts& g, Framebuffer&, double v) {
         g.pcie.generation_current = static_cast<int>(count_of(v));
       }},
      {"DCGM_FI_DEV_PCIE_MAX_LINK_GEN",
       [](GpuFacts& g, Framebuffer&, double v) { g.pcie.generation_max = static_cast<int>(count_of(v)); }},
      {"DCGM_FI_DEV_PCIE_LINK_WIDTH",
       [](GpuFacts& g, Framebuffer&, double v) { g.pcie.width_current = static_cast<int>(count_of(v)); }},
      {"DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH",
       [](GpuFacts& g, Framebuffer&, double v) { g.pcie.width_max = static_cast<int>(count_of(v)); }},
      {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.nvlink_errors.crc_flit = count_of(v); }},
      {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.nvlink_errors.crc_data = count_of(v); }},
      {"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.nvlink_errors.replay = count_of(v); }},
      {"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
       [](GpuFacts& g, Framebuffer&, double v) { g.nvlink_errors.recovery = count_of(v); }},
      {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
       [](GpuFacts& g, Framebuffer&, double v) { g.active_clock_event_reasons = clock_event_reasons(v); }},
      {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
       [](GpuFacts& g, Framebuffer&, double v) { g.active_clock_event_reasons = clock_event_reasons(v); }},
      {"DCGM_FI_DEV_PERSISTENCE_MODE",
       [](GpuFacts& g, Framebuffer&, double v) { g.persistence_mode = v > 0; }},
      {"DCGM_FI_DEV_MIG_MODE", [](GpuFacts& g, Framebuffer&, double v) { g.mig_enabled = v > 0; }},
      {"DCGM_FI_DEV_FB_TOTAL", [](GpuFacts&, Framebuffer& fb, double v) { fb.total = v; }},
      {"DCGM_FI_DEV_FB_FREE", [](GpuFacts&, Framebuffer& fb, double v) { fb.free = v; }},
      {"DCGM_FI_DEV_FB_USED", [](GpuFacts&, Framebuffer& fb, double v) { fb.used = v; }},
      {"DCGM_FI_DEV_FB_RESERVED", [](GpuFacts&, Framebuffer& fb, double v) { fb.reserved = v; }},
  };
  return fields;
}

// A GPU's record as its first sample labels it.
GpuFacts gpu_of(const MetricSample& sample, int index) {
  GpuFacts gpu;
  gpu.line = sample.line;
  gpu.index = index;
  gpu.model = sample.label("modelName").value_or("");
  gpu.uuid = sample.label("UUID");
  gpu.bus_id = sample.label("pci_bus_id");
  gpu.vbios_version = sample.label("DCGM_FI_DEV_VBIOS_VERSION");
  gpu.serial = sample.label("DCGM_FI_DEV_SERIAL");
  return gpu;
}

// "3g.40gb" -> 40 GB: the instance's nominal memory, as NVIDIA names MIG profiles.
std::optional<ByteSize> profile_memory(std::string_view profile) {
  const auto dot = profile.find('.');
  if (dot == std::string_view::npos || !profile.ends_with("gb")) return std::nullopt;
  const auto size = parse_double(profile.substr(dot + 1, profile.size() - dot - 3));
  if (!size) return std::nullopt;
  return gigabytes(*size);
}

void add_mig_instance(GpuFacts& gpu, const MetricSample& sample, std::set<std::string>& seen) {
  const auto instance = sample.label("GPU_I_ID");
  if (!instance || !seen.insert(*instance).second) return;
  MigDevice device;
  device.index = static_cast<int>(gpu.mig_devices.size());
  if (const auto id = parse_integer(*instance)) device.gpu_instance_id = static_cast<int>(*id);
  if (const auto profile = sample.label("GPU_I_PROFILE")) device.memory_total = profile_memory(*profile);
  gpu.mig_devices.push_back(device);
  gpu.mig_enabled = true;
}

struct GpuBeingRead {
  GpuFacts facts;
  Framebuffer framebuffer;
  std::set<std::string> mig_instances;
};

void finish(GpuBeingRead& gpu) {
  const Framebuffer& fb = gpu.framebuffer;
  if (fb.used) gpu.facts.memory_used = bytes(*fb.used * kBytesPerMebibyte);
  if (fb.total)
    gpu.facts.memory_total = bytes(*fb.total * kBytesPerMebibyte);
  else if (fb.free && fb.used)
    gpu.facts.memory_total = bytes((*fb.free + *fb.used + fb.reserved.value_or(0)) * kBytesPerMebibyte);
}

}  // namespace

NodeFacts facts_from_dcgm_scrape(const MetricScrape& scrape) {
  NodeFacts node;
  node.source = scrape.source;
  std::map<int, GpuBeingRead> gpus;
  for (const MetricSample& sample : scrape.samples) {
    const auto label = sample.label("gpu");
    const auto index = label ? parse_integer(*label) : std::nullopt;
    if (!index || *index < 0 || *index > 1'000'000) continue;
    if (!node.driver_version) node.driver_version = sample.label("DCGM_FI_DRIVER_VERSION");
    if (!node.hostname) node.hostname = sample.label("Hostname");
    auto [at, added] = gpus.try_emplace(static_cast<int>(*index));
    if (added) at->second.facts = gpu_of(sample, static_cast<int>(*index));
    add_mig_instance(at->second.facts, sample, at->second.mig_instances);
    const auto field = dcgm_fields().find(sample.name);
    if (field != dcgm_fields().end() && std::isfinite(sample.value))
      field->second(at->second.facts, at->second.framebuffer, sample.value);
  }
  for (auto& [index, gpu] : gpus) {
    finish(gpu);
    node.gpus.push_back(std::move(gpu.facts));
  }
  return node;
}

std::vector<std::string> dcgm_fact_metrics() {
  std::vector<std::string> names;
  for (const auto& [name, setter] : dcgm_fields()) names.emplace_back(name);
  return names;
}

std::vector<std::string> dcgm_fault_metrics() {
  static const std::set<std::string_view> kFaults = {
      "DCGM_FI_DEV_XID_ERRORS",
      "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL",
      "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL",
      "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL",
      "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL",
      "DCGM_FI_DEV_RETIRED_SBE",
      "DCGM_FI_DEV_RETIRED_DBE",
      "DCGM_FI_DEV_RETIRED_PENDING",
      "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
      "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
      "DCGM_FI_DEV_ROW_REMAP_FAILURE",
      "DCGM_FI_DEV_ROW_REMAP_PENDING",
      "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
      "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
      "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL",
      "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL",
      "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL",
  };
  std::vector<std::string> names;
  for (const auto& [name, setter] : dcgm_fields())
    if (kFaults.contains(name)) names.emplace_back(name);
  return names;
}

}  // namespace gputwin::validate
