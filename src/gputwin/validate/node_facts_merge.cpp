#include "gputwin/validate/node_facts_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace gputwin::validate {
namespace {

std::string text_of(const std::string& value) {
  return value;
}
std::string text_of(bool value) {
  return value ? "yes" : "no";
}
std::string text_of(std::int64_t value) {
  return std::to_string(value);
}
std::string text_of(int value) {
  return std::to_string(value);
}
std::string text_of(Power value) {
  return fmt::format("{:g} W", in_watts(value));
}
std::string text_of(ByteSize value) {
  constexpr double kBytesPerMebibyte = 1048576.0;
  return fmt::format("{:.0f} MiB", value.base() / kBytesPerMebibyte);
}

// Two outputs print the same setting with different rounding ("700.00 W", "700W"; memory in MiB from
// nvidia-smi or summed from dcgm-exporter's parts): within 1 % is the same value.
bool close(double a, double b) {
  constexpr double kSameWithin = 0.01;
  return std::abs(a - b) <= kSameWithin * std::max(std::abs(a), std::abs(b));
}
template <class T>
bool same(const T& a, const T& b) {
  return a == b;
}
template <>
bool same(const Power& a, const Power& b) {
  return close(a.base(), b.base());
}
template <>
bool same(const ByteSize& a, const ByteSize& b) {
  return close(a.base(), b.base());
}

// "0000:18:00.0" and "00000000:18:00.0" name the same device.
std::string bus_id_key(const std::string& bus_id) {
  std::string key;
  for (char c : bus_id) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = key.find(':');
  if (colon != std::string::npos && colon < 8) key.insert(0, 8 - colon, '0');
  return key;
}

bool same_gpu(const GpuFacts& a, const GpuFacts& b) {
  if (a.uuid && b.uuid) return *a.uuid == *b.uuid;
  if (a.bus_id && b.bus_id) return bus_id_key(*a.bus_id) == bus_id_key(*b.bus_id);
  return a.index && b.index && *a.index == *b.index;
}

std::string location(const std::string& source, int line) {
  return line > 0 ? fmt::format("{}:{}", source, line) : source;
}

std::vector<double> instance_gigabytes(const std::vector<MigDevice>& devices) {
  std::vector<double> sizes;
  for (const MigDevice& device : devices)
    sizes.push_back(device.memory_total ? std::round(in_gigabytes(*device.memory_total)) : 0);
  std::sort(sizes.rbegin(), sizes.rend());
  return sizes;
}

std::string instances_text(const std::vector<MigDevice>& devices) {
  std::string sizes;
  for (double size : instance_gigabytes(devices))
    sizes += fmt::format("{}{:g}", sizes.empty() ? "" : "+", size);
  return fmt::format("{} instances ({} GB)", devices.size(), sizes);
}

// Folds what one more source says about a GPU into the GPU's facts so far.
class GpuMerger {
 public:
  GpuMerger(GpuFacts& kept, const GpuFacts& other, std::vector<FactDisagreement>& out)
      : kept_(kept),
        other_(other),
        kept_at_(location(kept.source, kept.line)),
        other_at_(location(other.source, other.line)),
        out_(out) {}

  void merge() {
    merge_identity();
    merge_settings();
    merge_faults();
    merge_readings();
  }

 private:
  void disagree(std::string_view fact, std::string used, const std::string& used_at, std::string other,
                const std::string& other_at) {
    out_.push_back({kept_.index, std::string(fact), std::move(used), used_at, std::move(other), other_at});
  }

  template <class T>
  void setting(std::optional<T>& kept, const std::optional<T>& other, std::string_view fact) {
    if (!other) return;
    if (!kept)
      kept = other;
    else if (!same(*kept, *other))
      disagree(fact, text_of(*kept), kept_at_, text_of(*other), other_at_);
  }

  template <class T>
  void fault(std::optional<T>& kept, const std::optional<T>& other, std::string_view fact) {
    if (!other) return;
    if (!kept) {
      kept = other;
    } else if (*other > *kept) {
      disagree(fact, text_of(*other), other_at_, text_of(*kept), kept_at_);
      kept = other;
    } else if (*kept > *other) {
      disagree(fact, text_of(*kept), kept_at_, text_of(*other), other_at_);
    }
  }

  template <class T>
  static void reading(std::optional<T>& kept, const std::optional<T>& other) {
    if (!kept) kept = other;
  }

  // The default table cuts long names short; a name that starts the other is the same name.
  void merge_model() {
    if (other_.model.empty()) return;
    if (kept_.model.empty()) {
      kept_.model = other_.model;
      return;
    }
    const std::string& shorter = kept_.model.size() < other_.model.size() ? kept_.model : other_.model;
    const std::string& longer = kept_.model.size() < other_.model.size() ? other_.model : kept_.model;
    if (!longer.starts_with(shorter.substr(0, shorter.find("..."))))
      disagree("GPU model", kept_.model, kept_at_, other_.model, other_at_);
  }

  // A source that lists no MIG instances is silent on them (the --query-gpu CSV cannot list any).
  void merge_mig_devices() {
    if (other_.mig_devices.empty()) return;
    if (kept_.mig_devices.empty()) {
      kept_.mig_devices = other_.mig_devices;
    } else if (instance_gigabytes(kept_.mig_devices) != instance_gigabytes(other_.mig_devices)) {
      disagree("MIG instances", instances_text(kept_.mig_devices), kept_at_,
               instances_text(other_.mig_devices), other_at_);
    }
  }

  void merge_identity() {
    setting(kept_.index, other_.index, "GPU index");
    merge_model();
    setting(kept_.serial, other_.serial, "serial number");
    setting(kept_.uuid, other_.uuid, "UUID");
    reading(kept_.bus_id, other_.bus_id);
    setting(kept_.vbios_version, other_.vbios_version, "VBIOS version");
    setting(kept_.memory_total, other_.memory_total, "GPU memory");
  }

  void merge_settings() {
    setting(kept_.ecc_enabled, other_.ecc_enabled, "ECC mode");
    setting(kept_.persistence_mode, other_.persistence_mode, "persistence mode");
    setting(kept_.mig_enabled, other_.mig_enabled, "MIG mode");
    setting(kept_.mig_pending, other_.mig_pending, "pending MIG mode");
    merge_mig_devices();
    setting(kept_.pcie.generation_max, other_.pcie.generation_max, "PCIe max generation");
    setting(kept_.pcie.width_max, other_.pcie.width_max, "PCIe max width");
    setting(kept_.power.limit, other_.power.limit, "power limit");
    setting(kept_.power.default_limit, other_.power.default_limit, "default power limit");
    setting(kept_.power.enforced_limit, other_.power.enforced_limit, "enforced power limit");
    reading(kept_.power.min_limit, other_.power.min_limit);
    reading(kept_.power.max_limit, other_.power.max_limit);
    reading(kept_.max_clocks.graphics_mhz, other_.max_clocks.graphics_mhz);
    reading(kept_.max_clocks.sm_mhz, other_.max_clocks.sm_mhz);
    reading(kept_.max_clocks.memory_mhz, other_.max_clocks.memory_mhz);
    reading(kept_.max_operating_temperature_celsius, other_.max_operating_temperature_celsius);
    reading(kept_.memory_max_operating_temperature_celsius, other_.memory_max_operating_temperature_celsius);
  }

  void merge_faults() {
    fault(kept_.ecc.volatile_correctable, other_.ecc.volatile_correctable, "volatile correctable ECC errors");
    fault(kept_.ecc.volatile_uncorrectable, other_.ecc.volatile_uncorrectable,
          "volatile uncorrectable ECC errors");
    fault(kept_.ecc.aggregate_correctable, other_.ecc.aggregate_correctable,
          "aggregate correctable ECC errors");
    fault(kept_.ecc.aggregate_uncorrectable, other_.ecc.aggregate_uncorrectable,
          "aggregate uncorrectable ECC errors");
    fault(kept_.retired_pages.single_bit_ecc, other_.retired_pages.single_bit_ecc, "retired pages (SBE)");
    fault(kept_.retired_pages.double_bit_ecc, other_.retired_pages.double_bit_ecc, "retired pages (DBE)");
    fault(kept_.retired_pages.pending, other_.retired_pages.pending, "page retirement pending");
    fault(kept_.row_remapping.correctable, other_.row_remapping.correctable, "rows remapped (correctable)");
    fault(kept_.row_remapping.uncorrectable, other_.row_remapping.uncorrectable,
          "rows remapped (uncorrectable)");
    fault(kept_.row_remapping.pending, other_.row_remapping.pending, "row remapping pending");
    fault(kept_.row_remapping.failure, other_.row_remapping.failure, "row remapping failure");
    fault(kept_.last_xid, other_.last_xid, "last XID");
    fault(kept_.pcie_replays, other_.pcie_replays, "PCIe replays");
    fault(kept_.nvlink_errors.crc_flit, other_.nvlink_errors.crc_flit, "NVLink CRC flit errors");
    fault(kept_.nvlink_errors.crc_data, other_.nvlink_errors.crc_data, "NVLink CRC data errors");
    fault(kept_.nvlink_errors.replay, other_.nvlink_errors.replay, "NVLink replays");
    fault(kept_.nvlink_errors.recovery, other_.nvlink_errors.recovery, "NVLink recoveries");
  }

  void merge_readings() {
    reading(kept_.memory_used, other_.memory_used);
    reading(kept_.clocks.graphics_mhz, other_.clocks.graphics_mhz);
    reading(kept_.clocks.sm_mhz, other_.clocks.sm_mhz);
    reading(kept_.clocks.memory_mhz, other_.clocks.memory_mhz);
    reading(kept_.power.draw, other_.power.draw);
    reading(kept_.temperature_celsius, other_.temperature_celsius);
    reading(kept_.memory_temperature_celsius, other_.memory_temperature_celsius);
    reading(kept_.performance_state, other_.performance_state);
    reading(kept_.active_clock_event_reasons, other_.active_clock_event_reasons);
    reading(kept_.pcie.generation_current, other_.pcie.generation_current);
    reading(kept_.pcie.width_current, other_.pcie.width_current);
  }

  GpuFacts& kept_;
  const GpuFacts& other_;
  std::string kept_at_;
  std::string other_at_;
  std::vector<FactDisagreement>& out_;
};

void merge_host_fact(std::optional<std::string>& kept, const std::string& kept_source,
                     const std::optional<std::string>& other, const std::string& other_source,
                     std::string_view fact, std::vector<FactDisagreement>& out) {
  if (!other) return;
  if (!kept)
    kept = other;
  else if (*kept != *other)
    out.push_back({std::nullopt, std::string(fact), *kept, kept_source, *other, other_source});
}

void merge_into(NodeFacts& node, NodeFacts other) {
  merge_host_fact(node.driver_version, node.source, other.driver_version, other.source, "driver version",
                  node.disagreements);
  merge_host_fact(node.cuda_version, node.source, other.cuda_version, other.source, "CUDA version",
                  node.disagreements);
  if (!node.hostname) node.hostname = other.hostname;
  for (GpuFacts& gpu : other.gpus) {
    if (gpu.source.empty()) gpu.source = other.source;
    const auto match = std::find_if(node.gpus.begin(), node.gpus.end(),
                                    [&](const GpuFacts& kept) { return same_gpu(kept, gpu); });
    if (match == node.gpus.end())
      node.gpus.push_back(std::move(gpu));
    else
      GpuMerger(*match, gpu, node.disagreements).merge();
  }
  node.skipped.insert(node.skipped.end(), other.skipped.begin(), other.skipped.end());
  node.disagreements.insert(node.disagreements.end(), other.disagreements.begin(), other.disagreements.end());
}

}  // namespace

NodeFacts merge_node_facts(std::vector<NodeFacts> sources) {
  if (sources.empty()) return {};
  NodeFacts node = std::move(sources.front());
  for (GpuFacts& gpu : node.gpus)
    if (gpu.source.empty()) gpu.source = node.source;
  for (std::size_t i = 1; i < sources.size(); ++i) merge_into(node, std::move(sources[i]));
  return node;
}

}  // namespace gputwin::validate
