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

struct System {
  PartInfo info;
  std::string accelerator;  // empty for CPU-only servers
  int accelerators = 0;
  int scale_up_domain = 1;
  std::string cpu;
  int cpu_sockets = 0;  // 0 = unknown
  int cpu_cores = 0;    // all sockets together
  int cpu_threads_per_core = 0;  // 0 = unknown (SMT is a BIOS choice; the figure is what the CPU offers)
  std::optional<ByteSize> system_memory;
  RackSpace rack_units;
  Power power_max;
  std::optional<Power> power_typical;
  std::optional<PowerSupplies> psus;
  Nics nics;
};

struct Appliance {
  PartInfo info;
  RackSpace rack_units;
  Power power_max;
  Nics nics;
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
};

}  // namespace gputwin
