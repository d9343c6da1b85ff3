// Facts measured on a real node, as the readers of tool outputs found them. Plain values, no behaviour.
//
//   Result<NodeFacts> node = read_nvidia_smi_xml_file("node017/nvidia-smi.xml");
//   for (const GpuFacts& gpu : node.value().gpus)
//     if (gpu.ecc.aggregate_uncorrectable.value_or(0) > 0) ...   // a DBE was recorded
//
// Every field a tool may not report is optional: absent ("N/A", "[Not Supported]", missing element) stays
// empty and is never read as 0. Quantities with a unit type carry it (Power, ByteSize, DataRate); clocks are
// in MHz and temperatures in degrees Celsius, as the field names say.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gputwin/core/units.hpp"
#include "gputwin/prometheus/metric_scrape.hpp"

namespace gputwin::validate {

// A line of input a reader did not turn into a fact, with why (an elided "..." line, a log line of another
// program): counted and shown, never silently dropped.
using prometheus::SkippedLine;

// ECC error counts. Correctable = single-bit (SBE), uncorrectable = double-bit (DBE). Volatile counts reset
// at driver load; aggregate counts persist across reboots. Summed over DRAM and SRAM where both are reported.
struct EccCounts {
  std::optional<std::int64_t> volatile_correctable;
  std::optional<std::int64_t> volatile_uncorrectable;
  std::optional<std::int64_t> aggregate_correctable;
  std::optional<std::int64_t> aggregate_uncorrectable;
};

// Page retirement (pre-Ampere GPUs) and row remapping (Ampere and later).
struct RetiredPages {
  std::optional<std::int64_t> single_bit_ecc;
  std::optional<std::int64_t> double_bit_ecc;
  std::optional<bool> pending;
};

struct RowRemapping {
  std::optional<std::int64_t> correctable;
  std::optional<std::int64_t> uncorrectable;
  std::optional<bool> pending;
  std::optional<bool> failure;
};

struct Clocks {
  std::optional<double> graphics_mhz;
  std::optional<double> sm_mhz;
  std::optional<double> memory_mhz;
};

struct PcieLink {
  std::optional<int> generation_current;
  std::optional<int> generation_max;
  std::optional<int> width_current;  // lanes
  std::optional<int> width_max;
};

struct PowerReadings {
  std::optional<Power> draw;
  std::optional<Power> limit;  // the current (requested) limit
  std::optional<Power> default_limit;
  std::optional<Power> enforced_limit;
  std::optional<Power> min_limit;
  std::optional<Power> max_limit;
};

// NVLink error counters, summed over the GPU's links (counts since the driver loaded).
struct NvlinkErrors {
  std::optional<std::int64_t> crc_flit;
  std::optional<std::int64_t> crc_data;
  std::optional<std::int64_t> replay;
  std::optional<std::int64_t> recovery;
};

struct MigDevice {
  std::optional<int> index;
  std::optional<int> gpu_instance_id;
  std::optional<int> compute_instance_id;
  std::optional<int> multiprocessor_count;
  std::optional<ByteSize> memory_total;
};

struct GpuFacts {
  // The file holding the GPU's record, when it differs from NodeFacts::source (a node's facts merged from
  // several outputs); `line` is where the record starts in it, 0 when the format has no such line.
  std::string source;
  int line = 0;
  std::optional<int> index;
  std::string model;  // product name as reported ("NVIDIA H100 80GB HBM3"); empty when not reported
  std::optional<std::string> serial;
  std::optional<std::string> uuid;
  std::optional<std::string> bus_id;
  std::optional<std::string> vbios_version;
  std::optional<ByteSize> memory_total;
  std::optional<ByteSize> memory_used;
  std::optional<bool> ecc_enabled;
  EccCounts ecc;
  RetiredPages retired_pages;
  RowRemapping row_remapping;
  Clocks clocks;
  Clocks max_clocks;
  PowerReadings power;
  std::optional<double> temperature_celsius;
  std::optional<double> memory_temperature_celsius;  // HBM
  // The limits the GPU reports for itself (nvidia-smi "GPU Max Operating Temp", "Memory Max Operating Temp").
  std::optional<double> max_operating_temperature_celsius;
  std::optional<double> memory_max_operating_temperature_celsius;
  std::optional<std::string> performance_state;  // "P0".."P12"
  std::optional<int> last_xid;                   // the last XID error the driver logged; 0 = none
  std::optional<std::int64_t> pcie_replays;      // PCIe replay (retry) counter
  NvlinkErrors nvlink_errors;
  // Names of the active clock-event (throttle) reasons, such as "sw_power_cap", "hw_thermal_slowdown";
  // empty optional when the tool did not report them, empty vector when none is active.
  std::optional<std::vector<std::string>> active_clock_event_reasons;
  PcieLink pcie;
  std::optional<bool> persistence_mode;
  std::optional<bool> mig_enabled;  // current mode
  std::optional<bool> mig_pending;  // mode after the next reset
  std::vector<MigDevice> mig_devices;
};

// Two outputs of one node that report different values of the same fact (merge_node_facts): the value used
// and where it was read, the other value and where. `gpu` is empty for a host-wide fact (driver version).
struct FactDisagreement {
  std::optional<int> gpu;
  std::string fact;  // "MIG instances", "driver version", ...
  std::string used;
  std::string used_at;  // "node01/nvidia-smi.xml:12"
  std::string other;
  std::string other_at;
};

// What the outputs of one node say: host-wide versions and the GPUs.
struct NodeFacts {
  std::string source;  // the file (or file section) read; the preferred one when merged from several
  std::optional<std::string> hostname;
  std::optional<std::string> driver_version;
  std::optional<std::string> cuda_version;
  std::vector<GpuFacts> gpus;
  std::vector<SkippedLine> skipped;
  std::vector<FactDisagreement> disagreements;
};

// One message size of an nccl-tests run, for the out-of-place or the in-place operation.
struct CollectiveTiming {
  std::optional<double> time_us;
  std::optional<DataRate> algorithm_bandwidth;  // nccl-tests "algbw"
  std::optional<DataRate> bus_bandwidth;        // nccl-tests "busbw", comparable across collectives
  std::optional<std::int64_t> wrong;            // "#wrong" (newer versions): elements that failed the check
  std::optional<double> max_error;              // "error" (older versions): largest relative error
};

struct CollectiveRow {
  int line = 0;
  ByteSize size;
  std::int64_t count = 0;  // elements
  std::optional<std::string> type;
  std::optional<std::string> reduction;  // "redop": sum, none, ...; empty for collectives without one
  std::optional<int> root;
  CollectiveTiming out_of_place;
  CollectiveTiming in_place;
};

struct NcclTestsRun {
  std::string source;
  std::optional<std::string> collective;  // "all_reduce" when the output names its binary
  std::optional<int> nccl_version;        // 22903 for 2.29.3 (JSON output only)
  std::vector<std::string> devices;       // one per rank, as the "Rank N ... device" lines name it
  // Ranks when the output gives them apart from the device list: -J JSON lists one device per process,
  // each driving nthreads x ngpus GPUs.
  std::optional<int> ranks;
  std::vector<CollectiveRow> rows;
  std::optional<DataRate> average_bus_bandwidth;
  std::optional<std::int64_t> out_of_bounds;
  std::vector<SkippedLine> skipped;
};

// `dcgmi diag -j`: one result of one test on one entity (a GPU, a CPU, a switch).
struct DiagResult {
  std::optional<std::string> entity_group;  // "GPU" (4.x); 3.x names GPUs only
  std::vector<int> entity_ids;              // 4.x entity_id, or 3.x gpu_ids ("0,1")
  std::string status;                       // Pass, Fail, Warn, Skip, Not Run, ...
  std::vector<std::string> warnings;
  std::optional<std::string> info;
};

struct DiagTest {
  std::string category;  // Deployment, Integration, Hardware, Stress
  std::string name;      // "Memory Bandwidth"
  std::optional<std::string> summary_status;
  std::vector<DiagResult> results;
};

struct DiagEntity {
  std::string group;
  int id = 0;
  std::optional<std::string> device_id;
  std::optional<std::string> serial;
};

struct DcgmDiagReport {
  std::string source;
  int format_major = 0;  // 3 ("DCGM GPU Diagnostic") or 4 ("DCGM Diagnostic")
  std::optional<std::string> dcgm_version;
  std::optional<std::string> driver_version;
  std::optional<std::string> runtime_error;
  std::vector<DiagTest> tests;
  std::vector<DiagEntity> entities;
};

// A dcgm-exporter scrape's samples, read by the prometheus module (its text exposition reader, or its query
// API reader for series from a Prometheus server).
using prometheus::MetricSample;
using prometheus::MetricScrape;

}  // namespace gputwin::validate
