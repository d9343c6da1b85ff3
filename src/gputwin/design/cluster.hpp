// The Cluster model: the built, immutable design every analysis reads.
//
//   Result<Cluster> design = design_cluster(spec, catalog);          // design/design.hpp
//   const Cluster& cluster = design.value();
//   int leaves = cluster.fabric(NetworkRole::compute)->switches_in(Tier::leaf);
//   for (const Rack& rack : cluster.racks) { ... rack.power_max ... }
//
// Devices (nodes, switches, appliances, servers) sit in racks at rack-unit positions; fabrics join them with
// link bundles (parallel links between the same two devices) that carry a routed length, a medium and parts.
// Every node has a node type (what the box is) and a scale-up domain (the GPUs NVLink joins): an 8-GPU server
// is one node and one domain; a GB200 NVL72 rack is one domain of 18 tray nodes and 9 NVLink switch trays.
//
//   for (const ScaleUpDomain& domain : cluster.domains) { ... domain.gpus ... domain.nodes.size() ... }
//   const NodeType& type = cluster.node_types[cluster.devices[domain.nodes.front()].node_type];
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/design/facility_power_curve.hpp"

namespace gputwin {

enum class DeviceKind { node, network_switch, appliance, server, pdu, scale_up_switch, power_shelf };
enum class RackKind { compute, network, management };
enum class Tier { endpoint = 0, leaf = 1, spine = 2, core = 3 };

[[nodiscard]] const char* device_kind_name(DeviceKind kind);
[[nodiscard]] const char* rack_kind_name(RackKind kind);
[[nodiscard]] const char* tier_name(Tier tier);

struct Device {
  std::string name;
  DeviceKind kind = DeviceKind::node;
  std::string part;
  int rack = -1;
  int rack_unit = 0;  // lowest rack unit occupied, 1-based
  RackSpace height;
  Power power_max;
  Power power_typical;
  int placement_group = -1;  // scalable unit whose network rack holds it; -1 = placed centrally
  int node_type = -1;        // index into Cluster::node_types for nodes and servers; -1 otherwise
  int domain = -1;           // index into Cluster::domains for nodes and scale-up switches; -1 otherwise
};

// What every node of one type is, so analyses need not go back to the catalog.
struct NodeType {
  std::string system;       // catalog system id
  std::string accelerator;  // empty for CPU-only servers
  int gpus = 0;
  int scale_up_domain = 0;  // GPUs one scale-up fabric joins (catalog); above `gpus` when it spans nodes
  Nics nics;
  std::string cpu;
  int cpu_sockets = 0;
  int cpu_cores = 0;
  std::optional<ByteSize> memory;
};

// GPUs joined by one scale-up fabric (NVLink/NVSwitch): the nodes that hold them and the switch trays between
// nodes (none when the domain is inside one box).
struct ScaleUpDomain {
  int gpus = 0;
  std::vector<int> nodes;     // device indices
  std::vector<int> switches;  // device indices of scale-up switch trays
  DataRate gpu_bandwidth;     // per GPU, one direction; 0 when the GPUs have no scale-up link
  std::string rack_system;    // catalog rack system id when the domain is a purchased rack; empty otherwise
};

struct Rack {
  std::string name;
  RackKind kind = RackKind::compute;
  int row = 0;
  int slot = 0;
  std::vector<int> devices;
  RackSpace used;
  Power power_max;
  Power power_typical;
  int pdus = 0;
  std::string
      system;  // rack-scale system (catalog id) that fills this rack; empty when nodes are packed into it
  Power power_limit;  // the most this rack may draw: the facility's ceiling, or what its power shelves carry
  CoolingMethod cooling = CoolingMethod::air;
  Power heat_to_liquid;  // at maximum power
  Power heat_to_air;
};

// Parallel links between two devices; all share one route, so one length, medium and cable part.
struct LinkBundle {
  int device_a = -1;  // the lower tier end (node, appliance or lower switch)
  int device_b = -1;
  Tier tier_a = Tier::endpoint;
  Tier tier_b = Tier::leaf;
  int links = 1;
  Length length;
  std::optional<Medium> medium;  // empty when no medium reaches
  std::string cable_part;
  Length cable_length;
};

struct TransceiverCount {
  std::string part;
  int modules = 0;
};

// Transceivers or active-cable ends of one part plugged into one device's cages (cabling fills it).
struct ModuleLoad {
  int device = -1;
  std::string part;    // catalog transceiver or cable id
  bool cable = false;  // an active cable's end rather than a transceiver
  int count = 0;
  Power max_each;
  Power typical_each;  // the module's published typical, else its maximum
};

struct Fabric {
  NetworkRole role = NetworkRole::compute;
  std::string topology;  // "rail_optimized" or "leaf_spine"
  std::string switch_part;
  DataRate link_speed;
  int radix = 0;
  int tiers = 0;
  int rails = 1;
  int scalable_units = 0;
  int nodes_per_scalable_unit = 0;
  int leaf_downlinks = 0;
  int leaf_uplinks = 0;
  int pods = 0;
  bool leaves_in_node_racks = false;         // top-of-rack leaves share racks with the nodes they serve
  std::array<std::vector<int>, 4> switches;  // devices per tier (index by Tier)
  std::vector<LinkBundle> bundles;
  int ports_total = 0;
  int ports_used = 0;
  // Where the fabric's last step begins, in endpoint slots: node slots of scalable units on rail-optimized
  // fabrics (a node takes 1), switch ports on leaf-spine ones (a node takes its ports). The endpoints past
  // `boundary_slots` bought the last scalable unit (rail-optimized) or the last tier (leaf-spine); 0 when
  // there is no smaller design of this shape. design/boundary_step.hpp prices that step.
  int slots_used = 0;
  int boundary_slots = 0;
  int unit_slots = 0;       // slots of one unit: a scalable unit's node slots, or one leaf's downlinks
  int node_slots = 1;       // slots one node takes
  int appliance_slots = 0;  // slots taken by appliance ports (they come after the nodes)

  // Transceivers by where they sit, then by part.
  std::map<std::string, std::map<std::string, int>>
      transceivers;  // "switch" | "node" | "appliance" -> part -> n
  std::vector<ModuleLoad> module_loads;  // by device: transceivers and active-cable ends that draw power

  [[nodiscard]] int switches_in(Tier tier) const {
    return static_cast<int>(switches[static_cast<int>(tier)].size());
  }
  [[nodiscard]] int links_between(Tier lower, Tier upper) const;
  [[nodiscard]] int transceivers_at(const std::string& end) const;
  [[nodiscard]] double blocking_ratio() const {
    return leaf_uplinks == 0 ? 1.0 : static_cast<double>(leaf_downlinks) / leaf_uplinks;
  }
};

struct BomLine {
  std::string part;
  std::string description;
  std::string category;  // node, switch, appliance, server, transceiver, cable, pdu, rack
  int count = 0;
  std::optional<Money> unit_price;
};

struct Costs {
  bool priced = false;
  Money capex;
  Money energy_per_year;
  Money support_per_year;
  double lifetime_years = 0;
  Money total;
  std::optional<Money> cost_per_gpu_hour;  // empty unless complete(): a partial TCO has no per-hour price
  std::vector<std::string> unpriced_parts;

  // Every part of the BOM has a price, so capex, TCO and the cost per GPU-hour are whole totals. Without a
  // price list, or with parts left unpriced, they leave those parts out and are reported as incomplete.
  [[nodiscard]] bool complete() const { return priced && unpriced_parts.empty(); }
};

// Modules (transceivers, active-cable ends) of one part in the cages of one host part, and whether their
// power went into IT power: only where the host's published figure leaves them out (ModulePowerScopes).
struct ModulePowerLine {
  std::string host_part;
  std::string module_part;
  bool cable = false;
  int count = 0;
  Power max_each;
  Power typical_each;
  ModulePowerScope host_max_scope = ModulePowerScope::unknown;
  ModulePowerScope host_typical_scope = ModulePowerScope::unknown;
  std::string host_scope_source;
  [[nodiscard]] bool added_to_max() const { return adds_module_power(host_max_scope); }
  [[nodiscard]] bool added_to_typical() const { return adds_module_power(host_typical_scope); }
};

struct PowerSummary {
  Power it_max;  // racks' devices plus the modules their figures leave out (modules_max)
  Power it_typical;
  Power facility_max;       // it_max x PUE
  Power facility_typical;   // it_typical x PUE
  Power cooling_load;       // heat to remove from the white space = IT power at max
  double pue = 1.0;         // facility over IT power, the air and liquid shares each at their own PUE
  double air_pue = 1.0;     // of the heat left to the room's air: the spec's facility.pue (or the default)
  double liquid_pue = 1.0;  // of the heat sent to liquid: facility.liquid_cooling.pue, else as air
  int circuits = 0;
  Power circuit_capacity;         // usable continuous power of one PDU's circuit
  bool typical_from_max = false;  // the node system has no typical power: its maximum is used
  // The node system's typical power under training and where it comes from ("catalog": its catalog file;
  // "published" or "modelled": plan's power model, catalog TypicalPowerNote); unset with typical_from_max.
  std::optional<Power> node_typical;
  std::string node_typical_basis;
  std::string node_typical_source;
  Power rack_power_limit;    // the spec's facility limit per rack
  Power rack_cooling_limit;  // the most the facility's cooling removes from one rack
  Power rack_power_ceiling;  // what binds a rack: the cooling's limit when known and lower, else the spec's
  RackSpace rack_units;      // height of every rack
  std::string cooling;       // the spec's facility.cooling (catalog cooling id)
  // Facility power by IT load: the cooling class's overhead split at the design's PUE, rated for it_max; or
  // one PUE at every load, with why (design/facility_overhead.hpp). facility_typical is read from it.
  FacilityOverhead overhead;
  // Transceiver and active-cable power: every module by host part, and what of it went into it_max and
  // it_typical (each module once: not where its host's figure already counts it).
  std::vector<ModulePowerLine> modules;
  Power modules_max;
  Power modules_typical;
};

// One coolant distribution unit where the plan puts it (design/cooling_plant.hpp gives the rule). An in-row
// unit stands on the floor at the end of its row (row, slot); an in-rack unit sits in a rack (rack, rack_unit).
struct CduUnit {
  std::string name;  // "cdu-1"
  bool spare = false;  // the plant's standby (N+1): carries no rack until a working unit fails
  int row = 0;
  int slot = 0;
  int rack = -1;      // in-rack units: the rack that holds it; -1 in a row
  int rack_unit = 0;  // in-rack units: lowest rack unit occupied, 1-based
  std::vector<int> racks;  // the racks whose heat to liquid it carries (rack indices, floor order)
  Power load;              // that heat, at maximum power
};

// The liquid-cooling plant: CDUs for the heat the racks send to liquid, facility water flow, the air load
// left. Absent (cdus == 0, liquid_load == 0) when every rack is air-cooled.
struct CoolingPlant {
  Power liquid_load;  // heat to liquid at maximum power, all racks
  Power air_load;     // heat left to the room's air
  std::string cdu;    // catalog CDU id
  Power cdu_capacity;
  int cdus_needed = 0;  // to carry the liquid load
  int cdus = 0;         // with redundancy (N+1)
  std::string redundancy = "N+1";
  std::string coolant;
  double water_supply_temperature_c = 0.0;
  double water_delta_t_c = 0.0;
  double water_flow_kg_per_s = 0.0;  // Q = m_dot x c_p x dT
  double water_flow_l_per_min = 0.0;
  std::optional<Power> room_air_capacity;  // the spec's limits, when given
  std::optional<Power> room_liquid_capacity;
  std::optional<double> liquid_pue;  // the liquid cooling's PUE where the catalog has a sourced one
  std::string placement;             // the CDU's: "in_row" or "in_rack"
  RackSpace cdu_height;              // rack units one in-rack CDU takes
  std::vector<CduUnit> units;        // every CDU as placed, cdus of them, the spare last

  [[nodiscard]] bool present() const { return liquid_load > Power{}; }
};

// What the storage was sized for: one requirement and the appliances it alone would take.
enum class StorageNeed { checkpoint_write, dataset_read, capacity, tier_read, tier_write };
[[nodiscard]] const char* storage_need_name(StorageNeed need);
[[nodiscard]] bool is_capacity(StorageNeed need);

struct StorageRequirement {
  StorageNeed need = StorageNeed::capacity;
  double amount = 0.0;    // GB/s for a rate, TB for capacity
  double per_unit = 0.0;  // what one appliance gives, same unit
  int appliances = 0;     // ceil(amount / per_unit)
};

// The storage appliances on the storage fabric: how many, what they deliver together, and which requirement
// set the count. Absent (appliances == 0) when the spec has no `storage:` section.
//
//   if (cluster.storage.present()) write_time = checkpoint_bytes / cluster.storage.write_bandwidth->base() *
//   8;
struct StorageSummary {
  std::string appliance;  // catalog appliance id
  std::string filesystem;
  int appliances = 0;
  DataRate read_bandwidth;                       // appliances x one unit's read
  std::optional<DataRate> write_bandwidth;       // empty when the appliance publishes none
  std::optional<ByteSize> capacity;              // empty when the appliance publishes none
  std::vector<StorageRequirement> requirements;  // in the order checkpoint, dataset, capacity, tier
  int binding = -1;                              // index into requirements of the one that sets the count
  std::string tier;                              // "good" | "better" | "best"; empty without a tier
  std::string tier_table;                        // catalog storage_tier id
  int scalable_units = 0;                        // the SU count the tier's aggregate rates were read at
  std::optional<ByteSize> checkpoint_size;
  double checkpoint_write_seconds = 0.0;
  bool checkpoint_from_workload = false;

  [[nodiscard]] bool present() const { return appliances > 0; }
};

struct Warning {
  std::string code;  // stable identifier, e.g. "rack-over-limit"
  std::string message;
  bool prominent = false;  // changes what the design costs or holds: reports show it first, not in a list
};

// How many devices of one node type a cluster holds, and in which role (compute nodes or servers).
struct NodeTypeCount {
  const NodeType* type = nullptr;
  DeviceKind kind = DeviceKind::node;  // node (compute) or server (management, login: CPU-only)
  int count = 0;
};

struct Cluster {
  std::string name;
  std::string node_system;
  int gpus = 0;
  int nodes = 0;
  std::vector<NodeType> node_types;
  std::vector<ScaleUpDomain> domains;
  std::string rack_system;  // the rack-scale system every compute rack is, when the spec names one
  std::vector<Device> devices;
  std::vector<Rack> racks;
  CoolingPlant cooling;
  std::vector<Fabric> fabrics;
  PowerSummary power;
  std::vector<BomLine> bom;
  Costs costs;
  StorageSummary storage;
  std::vector<Warning> warnings;

  [[nodiscard]] const Fabric* fabric(NetworkRole role) const;
  [[nodiscard]] int racks_of(RackKind kind) const;
  // What a device is and the GPUs it shares a scale-up fabric with: nullptr for devices without one.
  [[nodiscard]] const NodeType* node_type_of(const Device& device) const;
  [[nodiscard]] const ScaleUpDomain* domain_of(const Device& device) const;
  // The one node type of the compute nodes (DeviceKind::node), or nullptr when there are no nodes or they are
  // of several types: an analysis that models one type asks this and says so when it is nullptr.
  [[nodiscard]] const NodeType* sole_node_type() const;
  // Every node type with its device count: the compute nodes' types first, in the order they were first
  // placed, then the servers' types. Readers print per type rather than assume one system.
  [[nodiscard]] std::vector<NodeTypeCount> node_type_counts() const;
  // The scale-up domain of the first compute node (all are alike when sole_node_type() is set).
  [[nodiscard]] const ScaleUpDomain* first_node_domain() const;
};

// The devices of `kind` by type, "127 x dgx-h100" or "18 x gb200-nvl72-tray + 4 x dgx-h100"; empty when none.
[[nodiscard]] std::string node_counts_text(const Cluster& cluster, DeviceKind kind);
// The sentence a model that takes one node type refuses a cluster of several with, listing every compute
// node type and its count: "the cluster holds nodes of several types (18 x gb200-nvl72-tray + 4 x dgx-h100)".
[[nodiscard]] std::string several_node_types_text(const Cluster& cluster);

}  // namespace gputwin
