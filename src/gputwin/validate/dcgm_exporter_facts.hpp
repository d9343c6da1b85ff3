// The per-GPU facts a dcgm-exporter /metrics scrape carries, in the same fact model the nvidia-smi readers
// fill, so that every check runs on a scrape as on an nvidia-smi output.
//
//   Result<MetricScrape> scrape = prometheus::ExpositionText::read_file("node017/metrics.prom");
//   NodeFacts facts = facts_from_dcgm_scrape(scrape.value());
//   facts.gpus[0].last_xid;                        // 79, from DCGM_FI_DEV_XID_ERRORS{gpu="0",...}
//   facts.driver_version;                          // the DCGM_FI_DRIVER_VERSION label
//
// Samples are grouped by their `gpu` label (samples without one are not GPU facts); the labels modelName,
// UUID, pci_bus_id, Hostname, DCGM_FI_DRIVER_VERSION (and DCGM_FI_DEV_VBIOS_VERSION, DCGM_FI_DEV_SERIAL when
// exported) give the identity. dcgm-exporter's default counter names are read (DCGM_FI_DEV_GPU_TEMP,
// DCGM_FI_DEV_ECC_DBE_VOL_TOTAL, DCGM_FI_DEV_ROW_REMAP_FAILURE, DCGM_FI_DEV_CLOCK_THROTTLE_REASONS, ...; the
// list is dcgm_fields() in the .cpp). A MIG instance's samples (GPU_I_ID, GPU_I_PROFILE labels) give the
// GPU's MIG devices, their memory taken from the profile name ("3g.40gb": 40 GB).
#pragma once

#include <string>
#include <vector>

#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

[[nodiscard]] NodeFacts facts_from_dcgm_scrape(const MetricScrape& scrape);

// The dcgm-exporter metric names facts_from_dcgm_scrape reads, sorted.
[[nodiscard]] std::vector<std::string> dcgm_fact_metrics();
// Those of them that count or flag a fault (XID, ECC, retired pages, row remapping, PCIe replays, NVLink
// errors): over a time range the worst value seen is the fact, as when several outputs of a node are merged.
[[nodiscard]] std::vector<std::string> dcgm_fault_metrics();

}  // namespace gputwin::validate
