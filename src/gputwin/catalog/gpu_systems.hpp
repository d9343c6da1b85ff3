// A catalog system as the performance models see it: the GPUs of its scale-up domain, and a rack-scale system
// (catalog rack_systems, e.g. gb200-nvl72) read as its compute trays. The one place these rules live.
//
//   GpuSystemLookup found = find_gpu_system(catalog, "gb200-nvl72");
//   found.node->info.id                        // "gb200-nvl72-tray", the system the models run on
//   gpus_per_scale_up_domain(*found.node)      // 72: NVLink across the rack's 18 trays
//   systems_per_scale_up_domain(*found.node)   // 18
//   rack_system_holding(catalog, *found.node)  // the gb200-nvl72 RackSystem again
#pragma once

#include <string_view>

#include "gputwin/catalog/catalog.hpp"

namespace gputwin {

// GPUs one scale-up domain of `system` joins: its scale_up_domain when that spans several systems (an NVL72
// tray: 72), else the system's own GPUs (an 8-GPU box: 8, whatever scale_up_domain it gives); at least 1.
[[nodiscard]] int gpus_per_scale_up_domain(const System& system);
// Systems one domain spans: 18 NVL72 trays, else 1.
[[nodiscard]] int systems_per_scale_up_domain(const System& system);
// The domain spans several systems: they are built and bought with the rack-scale system that holds it.
[[nodiscard]] bool scale_up_domain_spans_systems(const System& system);

// The rack-scale system whose compute tray `tray` is; null when none is (a box, or a tray no rack holds).
[[nodiscard]] const RackSystem* rack_system_holding(const Catalog& catalog, const System& tray);

// What a catalog id names for the performance models: a system, or a rack-scale system read as its compute
// tray (counted in whole racks, one scale-up domain a rack).
struct GpuSystemLookup {
  const System* node = nullptr;      // the id's system or the rack system's compute tray; null: neither
  const RackSystem* rack = nullptr;  // the rack system named, or null
  [[nodiscard]] bool has_gpus() const { return node != nullptr && node->accelerators > 0; }
  // Nodes in one counted unit: a rack system's compute trays, else 1.
  [[nodiscard]] int nodes_per_unit() const { return rack == nullptr ? 1 : rack->compute_trays; }
};
[[nodiscard]] GpuSystemLookup find_gpu_system(const Catalog& catalog, std::string_view id);

}  // namespace gputwin
