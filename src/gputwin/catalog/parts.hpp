// Typed catalog parts: what a datasheet says about an accelerator, server, switch, optic, cable or circuit.
//
//   const Switch& leaf = catalog.get<Switch>("qm9700");
//   int radix = leaf.radix_at(gigabits_per_second(400));   // 64
//
// Parts are plain values; every one carries where it was defined and the source of its figures.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"

namespace gputwin {

struct PartInfo {
  std::string id;
  std::string name;
  std::string source;
  std::string confidence;
  std::string notes;
  SourceLocation defined_at;
};

struct LinkSpec {
  std::string type;
  std::optional<DataRate> bandwidth;
};

// Dense compute per precision: absent key = no published figure, present with no value = not supported.
using DenseCompute = std::map<std::string, std::optional<ComputeRate>>;

struct Accelerator {
  PartInfo info;
  std::string vendor;
  std::string form_factor;
  std::string architecture;  // generation: ampere, hopper, blackwell, ...; empty when not given
  DenseCompute dense_compute;
  ByteSize memory;
  std::string memory_type;
  DataRate memory_bandwidth;
  Power tdp;
  std::optional<LinkSpec> scale_up;
  std::optional<LinkSpec> host_link;
  std::string mig_profile_set;  // empty when the GPU has no MIG
};

struct MigProfile {
  std::string name;
  int profile_id = -1;  // -1 when not published
  int compute_slices = 0;
  std::optional<ByteSize> memory;
  int size_slots = 0;  // 0 when placements are not published
  std::vector<int> start_slots;
  int max_instances = 0;
};

struct MigProfileSet {
  PartInfo info;
  int memory_slots = 0;
  int compute_slices = 0;
  std::vector<MigProfile> profiles;
};

enum class NetworkRole { compute, storage, inband, oob };
[[nodiscard]] const char* role_name(NetworkRole role);

struct NicGroup {
  int ports = 0;
  DataRate speed;
  int ports_per_cage = 1;
  std::string cage;
  [[nodiscard]] int cages() const { return (ports + ports_per_cage - 1) / ports_per_cage; }
};

using Nics = std::map<NetworkRole, NicGroup>;

struct PowerSupplies {
  int count = 0;
  Power rating;
  std::string redundancy;
};

// Where a system's typical power comes from when its catalog entry gives none: a published measured draw, or
// the power model (GPUs at their typical draw under training plus the system's non-GPU power). plan's
// load_catalog fills it (plan/typical_power.hpp); a figure the catalog file gives is kept and has no note.
struct TypicalPowerNote {
  std::string basis;  // "published" or "modelled"
  std::string confidence;
  std::string source;
  std::optional<Power> inference;  // under a loaded inference server, where a draw for it is published
  std::string inference_source;
};

// Whether a part's published power figures count the transceivers and active cables plugged into its cages
// (QM9700: its maximum "with active cables", its typical "with passive cables"). plan adds a module's power to
// IT power only where its host's figure leaves it out, so each module is counted once; `unknown` is added too
// and said so. The catalog key is `power_includes_modules`, with the source sentence.
enum class ModulePowerScope { included, excluded, unknown };
[[nodiscard]] const char* module_power_scope_name(ModulePowerScope scope);
// The rule above: whether plan adds the modules' power to a host figure of this scope.
[[nodiscard]] constexpr bool adds_module_power(ModulePowerScope host_scope) {
  return host_scope != ModulePowerScope::included;
}

struct ModulePowerScopes {
  ModulePowerScope max = ModulePowerScope::unknown;      // of power_max
  ModulePowerScope typical = ModulePowerScope::unknown;  // of power_typical (a maximum used as typical: max's)
  std::string source;                                    // the sentence or reasoning it rests on
};

struct System {
  PartInfo info;
  std::string accelerator;  // empty for CPU-only servers
  int accelerators = 0;
  int scale_up_domain = 1;
  std::string cpu;
  int cpu_sockets = 0;           // 0 = unknown
  int cpu_cores = 0;             // all sockets together
  int cpu_threads_per_core = 0;  // 0 = unknown (SMT is a BIOS choice; the figure is what the CPU offers)
  std::optional<ByteSize> system_memory;
  RackSpace rack_units;
  Power power_max;
  std::optional<Power> power_typical;            // under training
  std::optional<TypicalPowerNote> typical_note;  // set when power_typical did not come from the catalog file
  std::optional<PowerSupplies> psus;
  Nics nics;
  ModulePowerScopes module_power;
};

// How a rack's heat leaves it: all by air, mostly by liquid (direct-to-chip) with the rest by air, or all by
// liquid.
enum class CoolingMethod { air, hybrid, liquid };
[[nodiscard]] const char* cooling_method_name(CoolingMethod method);

// The NVLink switch trays of a rack-scale system: they join every GPU of the rack into one scale-up domain.
struct ScaleUpSwitchTrays {
  std::string name;
  int count = 0;
  int chips_per_tray = 0;  // 0 = not published
  RackSpace rack_units;    // of one tray
  Power power_max;         // of one tray
};

// Power shelves feeding a rack's DC bus bar (each shelf holds several PSUs).
struct PowerShelves {
  int count = 0;
  RackSpace rack_units;  // of one shelf
  Power rating;          // of one shelf
  int psus_per_shelf = 0;
  Power psu_rating;
  std::string redundancy;  // as published, e.g. "N+1" per shelf; empty when not published
};

// A purchased rack-scale system (GB200 NVL72): compute trays of one System, NVLink switch trays and power
// shelves in one rack that is one scale-up domain. Figures for the whole rack.
//
//   const RackSystem& nvl72 = catalog.get<RackSystem>("gb200-nvl72");
//   int gpus = nvl72.compute_trays * catalog.get<System>(nvl72.compute_tray).accelerators;   // 72
struct RackSystem {
  PartInfo info;
  std::string compute_tray;  // a System id
  int compute_trays = 0;
  ScaleUpSwitchTrays switch_trays;
  PowerShelves power_shelves;
  RackSpace other_rack_units;  // in-rack management switches and the like
  RackSpace rack_units;        // height of the rack the system ships in
  Power power_max;
  std::optional<Power> power_typical;
  std::optional<TypicalPowerNote> typical_note;  // as System's
  CoolingMethod cooling = CoolingMethod::liquid;
  double heat_to_liquid = 1.0;  // fraction of the rack's heat removed by liquid
  double weight_kg = 0.0;       // 0 = not published
  DataRate scale_up_bandwidth;  // per GPU, one direction
  std::string scale_up_link;    // "NVLink 5"

  // Rack units the system occupies: trays, switch trays, power shelves and the rest.
  [[nodiscard]] RackSpace occupied_rack_units(const System& tray) const;
};

// A coolant distribution unit: moves heat from the racks' liquid loop to the facility water.
struct CoolantDistributionUnit {
  PartInfo info;
  std::string placement;              // "in_rack" or "in_row"
  Power capacity;                     // heat it removes at its rated conditions
  std::string redundancy;             // of its pumps and supplies as published, e.g. "N+1 pumps"
  double flow_l_per_min = 0.0;        // secondary (rack-side) flow at rated capacity; 0 = not published
  double supply_temperature_c = 0.0;  // facility water supply at which `capacity` is rated; 0 = not given
  RackSpace rack_units;               // in-rack units take rack space; in-row units take a rack position
};

// Rack power delivered by a DC bus bar fed from power shelves (rack-scale systems), instead of rack PDUs.
struct BusbarFeed {
  PartInfo info;
  Power capacity;  // the most the bus bar carries to one rack
  double voltage_v = 0.0;
};

// The heat-carrying liquid of the facility water loop: Q = m_dot x c_p x dT.
struct Coolant {
  PartInfo info;
  double specific_heat_j_per_kg_k = 0.0;
  double density_kg_per_l = 0.0;
};

// What one storage appliance (one unit as sold: an appliance, an HA pair) delivers to the storage fabric.
struct StoragePerformance {
  std::string filesystem;
  DataRate read_bandwidth;                  // aggregate sequential read of one unit
  std::optional<DataRate> write_bandwidth;  // empty when no source prints one
  std::optional<ByteSize> usable_capacity;  // of the largest configuration; empty when not published
};

// A device on a fabric that is not a node: a fabric manager (UFM), or a storage appliance (with `storage`).
struct Appliance {
  PartInfo info;
  RackSpace rack_units;
  Power power_max;
  Nics nics;
  std::optional<StoragePerformance> storage;  // set for storage appliances
  ModulePowerScopes module_power;
};

enum class StorageTier { good, better, best };
[[nodiscard]] const char* storage_tier_name(StorageTier tier);

struct StorageRates {
  DataRate read;
  DataRate write;
};

// The storage performance a reference architecture asks for, per tier: what one node reads and writes, and
// what the whole storage system delivers at the scalable-unit counts it prints.
//
//   const StorageTierTable& table = catalog.get<StorageTierTable>("dgx-h100-superpod");
//   StorageRates four_su = table.aggregate_at(StorageTier::better, 4);   // 160 GB/s read, 80 GB/s write
struct StorageTierTable {
  struct Row {
    int scalable_units = 0;
    std::map<StorageTier, StorageRates> rates;
  };
  PartInfo info;
  int nodes_per_scalable_unit = 0;
  std::map<StorageTier, StorageRates> per_node;
  std::vector<Row> aggregate;  // ascending scalable_units, every tier in every row

  // The printed row at a printed SU count; between rows linear interpolation; below the first row and beyond
  // the last, that row scaled in proportion to the SU count.
  [[nodiscard]] StorageRates aggregate_at(StorageTier tier, double scalable_units) const;
};

struct PortMode {
  int ports = 0;
  DataRate speed;
};

struct Switch {
  PartInfo info;
  std::string technology;
  RackSpace rack_units;
  int cages = 0;
  std::string cage;
  std::vector<PortMode> port_modes;
  Power power_max;
  std::optional<Power> power_typical;
  ModulePowerScopes module_power;

  // Ports available when the switch runs at `speed`; 0 when it cannot.
  [[nodiscard]] int radix_at(DataRate speed) const;
  [[nodiscard]] int ports_per_cage_at(DataRate speed) const;
};

enum class Medium { passive_copper, active_copper, multimode, singlemode, twisted_pair };
[[nodiscard]] const char* medium_name(Medium medium);
[[nodiscard]] bool needs_transceivers(Medium medium);

struct Transceiver {
  PartInfo info;
  std::string cage;
  int ports = 1;
  DataRate port_speed;
  Medium medium = Medium::multimode;
  std::map<std::string, Length> reach;  // by fiber grade: om3, om4, om5, os2
  std::optional<Power> power_max;
  std::optional<Power> power_typical;  // where published; else power_max stands for it
};

struct Cable {
  PartInfo info;
  Medium medium = Medium::passive_copper;
  DataRate speed;
  std::vector<Length> lengths;  // ascending
  std::optional<Power> power_max;
  [[nodiscard]] Length reach() const { return lengths.empty() ? Length() : lengths.back(); }
};

struct Circuit {
  PartInfo info;
  Voltage voltage;
  int phases = 3;
  Current current;
  double continuous_derating = 0.8;
  // Power the circuit may carry continuously: V x A (x sqrt(3) for three-phase, line-to-line) x derating.
  [[nodiscard]] Power usable_power() const;
};

struct Pdu {
  PartInfo info;
  std::string circuit;
  int outlets = 0;
  RackSpace rack_units;
};

struct Cooling {
  PartInfo info;
  std::string type;
  Power max_rack_power;
  std::optional<double> pue;  // typical PUE of a facility cooled this way, where a source prints one
};

struct FacilityDefaults {
  PartInfo info;
  double pue = 1.0;
  EnergyPrice electricity_price;
  RackSpace rack_units;
  Length rack_width;
  Length row_pitch;
  Length tray_height;
  Length rack_unit_height;
  Length cable_slack;
  // The liquid-cooling plant, used when some rack sends heat to liquid (empty/0 = not given).
  std::string cdu;                          // a CoolantDistributionUnit id
  std::string coolant;                      // a Coolant id (facility water)
  double water_supply_temperature_c = 0.0;  // facility water supply to the CDUs
  double water_delta_t_c = 0.0;             // its rise across the CDUs
};

}  // namespace gputwin
