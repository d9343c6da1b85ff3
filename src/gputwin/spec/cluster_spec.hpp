// The cluster spec a user writes: which servers, which fabrics, which facility, what it costs.
//
//   Result<ClusterSpec> spec = load_cluster_spec("examples/dgx-h100-superpod-4su.yaml", catalog);
//   if (!spec.ok()) { std::cerr << spec.error_text(); return 1; }
//
// Parsing checks units, ranges and that every part named exists in the catalog with the right kind; each
// error names file:line:column and the field path. The format is documented in docs/spec.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/core/units.hpp"

namespace gputwin {

enum class FabricTopology { rail_optimized, leaf_spine };
enum class PduRedundancy { n_plus_1, two_n };

struct ApplianceRequest {
  std::string appliance;
  int count = 0;
};

struct FabricSpec {
  bool present = false;
  NetworkRole role = NetworkRole::compute;
  FabricTopology topology = FabricTopology::leaf_spine;
  std::string switch_id;
  DataRate link_speed;
  double oversubscription = 1.0;  // leaf downlinks per uplink (1 = non-blocking)
  std::string oversubscription_text = "1:1";
  int scalable_unit_nodes = 0;  // rail-optimized only; 0 = as many as a leaf's downlinks
  // Rail-optimized on a rack-scale system only: NVIDIA's spine-leaf groups (docs/spec.md 5.3), one leaf per
  // rack per rail, each rail of a scalable unit with spines of its own, the groups joined by core groups.
  bool spine_leaf_groups = false;
  int rack_nodes = 0;  // with spine_leaf_groups: the compute trays of one rack, which one leaf serves
  std::vector<ApplianceRequest> appliances;
  int max_tiers = 3;
  bool leaves_in_node_racks = true;  // leaf-spine only: top-of-rack leaves, or leaves in network racks
  SourceLocation where;
};

// "Enough GPUs for this workload": train `model` on `tokens` within `days`. The node count is found by sizing
// (perf/workload_fit) before the design; until then the spec's node_count is 0.
struct WorkloadTarget {
  std::string model;  // a model preset (data/perf/models.yaml); checked when sized
  double tokens = 0;
  double days = 0;  // 0 = none given (a spec with facility.power_budget may leave it out)
  int sequence = 8192;
  int global_batch = 0;  // sequences per step; 0 = the sizing default
  std::string precision = "bf16";
  std::optional<ByteSize> memory_reserve;  // per GPU; empty = data/perf/memory.yaml's default
};

// `storage:`: the storage appliances the storage fabric carries, sized by design/storage_sizing for what the
// spec asks (docs/plan.md, "Storage"). Each target is optional; at least one is given.
struct StorageSpec {
  bool present = false;
  std::string appliance;  // catalog appliance with storage figures
  // A checkpoint of `checkpoint_size` written within `checkpoint_write_seconds`: the write rate it needs.
  // `checkpoint_from_workload`: the size is the workload's model weights and optimizer state, filled in by
  // plan/workload_fit before the design (checkpoint_size is empty until then).
  std::optional<ByteSize> checkpoint_size;
  bool checkpoint_from_workload = false;
  double checkpoint_write_seconds = 0.0;  // 0 = no checkpoint target
  std::optional<DataRate> dataset_read;
  std::optional<ByteSize> capacity;
  std::optional<StorageTier> tier;  // the reference architecture's per-SU rates at the design's SU count
  std::string tier_table;           // catalog storage_tier id, when `tier` is given
  SourceLocation where;
};

struct ServerRequest {
  std::string system;
  int count = 0;
};

struct RowLayout {
  int racks_per_row = 0;  // 0 = one row
  Length rack_width;
  Length row_pitch;
  Length tray_height;
  Length rack_unit_height;
  Length cable_slack;
};

// The liquid-cooling plant for racks that send heat to liquid; defaults from the catalog's facility_defaults.
struct LiquidCoolingSpec {
  std::string cdu;      // catalog CDU id
  std::string coolant;  // catalog coolant id (facility water)
  double water_supply_temperature_c = 0.0;
  double water_delta_t_c = 0.0;
  // PUE of the heat the racks send to liquid (facility power per watt of it). Empty: the cooling class's
  // sourced PUE when the catalog has one, else facility.pue: no published figure separating liquid from air
  // cooling could be read (docs/plan.md, "PUE by cooling type"), so it is the user's to set.
  std::optional<double> pue;
};

struct FacilitySpec {
  Power rack_power_limit;
  RackSpace rack_units;
  int max_nodes_per_rack = 0;  // 0 = limited by power and space only
  std::string pdu;
  PduRedundancy pdu_redundancy = PduRedundancy::two_n;
  std::string cooling;
  double pue = 1.0;
  EnergyPrice electricity_price;
  RowLayout layout;
  LiquidCoolingSpec liquid;
  std::optional<Power> room_air_capacity;     // heat the room's air handling removes; empty = not checked
  std::optional<Power> room_liquid_capacity;  // heat the facility water plant removes; empty = not checked
  // The facility power a site sells (IT power at maximum load x the design's blended PUE): `plan` finds the
  // platform, GPU power cap and node count that train the workload fastest within it (plan/power_budget).
  std::optional<Power> power_budget;
};

struct CablingSpec {
  std::string fiber_grade = "om4";
  std::vector<Medium> allowed_media;  // empty = all, chosen by reach
};

struct CostSpec {
  std::map<std::string, Money> prices;  // part id -> unit price
  double lifetime_years = 5.0;
  double support_rate_per_year = 0.0;  // fraction of capex per year
  bool has_prices = false;
};

// One group of identical compute nodes: an entry of the list form of `nodes:` (the map form is one group).
struct NodeGroupSpec {
  std::string system;       // as named: a catalog system, or a rack-scale system (catalog rack_systems)
  std::string node_system;  // the compute node's system: `system`, or the rack-scale system's compute tray
  std::string rack_system;  // empty for packed nodes
  int count = 0;            // racks of a rack-scale system, else nodes
  int node_count = 0;       // compute nodes (trays of a rack-scale system)
  // The group's own compute fabric's scalable unit, in nodes (the entry's `scalable_unit`, else
  // fabrics.compute.scalable_unit, else the default): 0 = as many as a leaf's downlinks.
  int compute_scalable_unit_nodes = 0;
  // The group's own compute fabric's appliances (UFM): the entry's `appliances`, else
  // fabrics.compute.appliances. Each group's island is an InfiniBand subnet of its own with its own manager.
  std::vector<ApplianceRequest> compute_appliances;
  std::string field;  // "nodes[1]", or "nodes" for the map form
  SourceLocation where;
};

struct ClusterSpec {
  std::string name;
  std::string file;
  std::string node_system;
  int node_count = 0;
  // A rack-scale system (catalog rack_systems) the nodes are the compute trays of: `nodes.system` named it,
  // node_system is its compute tray and node_count = rack_system_count x its trays. Empty for packed nodes.
  std::string rack_system;
  int rack_system_count = 0;
  std::optional<int> target_gpus;          // when the spec asks for GPUs, node_count is derived from it
  std::optional<WorkloadTarget> workload;  // when the spec asks for a workload, node_count is sized for it
  // `nodes.choose`: the systems a workload-sized spec chooses among, as this spec read once per candidate
  // (node_system / rack_system set to it), in the listed order; the spec itself is the first of them until
  // plan/workload_fit sizes every one and replaces it with the chosen one. Empty when `nodes.system` names
  // one.
  std::vector<ClusterSpec> candidates;
  std::string system_field = "nodes.system";  // the field that named the system ("nodes.choose[2]")
  // The list form of `nodes:` (several groups, each designed with its own racks and compute fabric;
  // docs/spec.md "Several node groups"). node_system, rack_system and rack_system_count are then the first
  // group's and node_count is the sum over groups. Empty for the map form: groups() gives its one group.
  std::vector<NodeGroupSpec> node_groups;
  FabricSpec compute;
  FabricSpec storage;
  FabricSpec inband;
  FabricSpec oob;
  std::vector<ServerRequest> management_servers;
  StorageSpec storage_system;
  FacilitySpec facility;
  CablingSpec cabling;
  CostSpec cost;
  // Where each field was written, by dotted path, so the design engine can point at the field it rejects.
  std::map<std::string, SourceLocation> locations;

  [[nodiscard]] SourceLocation where(const std::string& field) const;
  // The node groups in the order written: node_groups, or the map form's one group.
  [[nodiscard]] std::vector<NodeGroupSpec> groups() const;
  [[nodiscard]] bool several_groups() const { return node_groups.size() > 1; }
};

[[nodiscard]] Result<ClusterSpec> load_cluster_spec(const std::string& path, const Catalog& catalog);
[[nodiscard]] Result<ClusterSpec> parse_cluster_spec(const std::string& text, const std::string& name,
                                                     const Catalog& catalog);

}  // namespace gputwin
