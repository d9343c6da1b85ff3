#include "gputwin/spec/cluster_spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "gputwin/catalog/gpu_systems.hpp"
#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

constexpr std::string_view kDefaultFacility = "default";

class SpecReader {
 public:
  // `candidate` >= 0 reads the spec with the system `nodes.choose[candidate]` names.
  // `group` >= 0 reads the spec with the one node group `nodes[group]` of the list form.
  SpecReader(const Catalog& catalog, ClusterSpec& spec, int candidate = -1, int group = -1)
      : catalog_(catalog), spec_(spec), candidate_(candidate), group_(group) {}

  void read(const YamlField& root) {
    root.expect_keys({"name", "nodes", "fabrics", "management", "storage", "facility", "cabling", "costs"});
    const YamlField all_nodes = root.child("nodes");
    if (group_ < 0 && all_nodes.is_sequence()) {
      read_groups(root);
      return;
    }
    const YamlField nodes = group_ < 0 ? all_nodes : all_nodes.items().at(group_);
    nodes_field_ = nodes;
    if (candidate_ < 0 && nodes.is_map() && nodes.has("choose") && group_ < 0) {
      read_candidates(root);
      return;
    }
    spec_.name = root.child("name").text();
    budgeted_ =
        root.has("facility") && root.child("facility").is_map() && root.child("facility").has("power_budget");
    if (budgeted_ && group_ >= 0) {
      root.child("facility")
          .child("power_budget")
          .fail(
              "a power budget sizes one group of nodes for a workload; a list of node groups has no rule for "
              "splitting it (docs/spec.md, 3.2.4)");
    }
    read_nodes(nodes);
    read_fabrics(root.child("fabrics"));
    if (auto management = root.optional_child("management")) read_management(*management);
    if (auto storage = root.optional_child("storage")) read_storage(*storage);
    read_facility(root.child("facility"));
    if (auto cabling = root.optional_child("cabling")) read_cabling(*cabling);
    if (auto costs = root.optional_child("costs")) read_costs(*costs);
  }

 private:
  // Checks that `field` names a catalog part of `kind` and returns the id.
  std::string part(const YamlField& field, const std::string& kind) {
    const std::string id = field.text();
    const std::string actual = catalog_.kind_of(id);
    if (actual.empty())
      field.fail("unknown " + kind + " '" + id + "' (not in the catalog; see `gputwin catalog list`)");
    if (actual != kind) field.fail("'" + id + "' is a " + actual + ", expected a " + kind);
    remember(field);
    return id;
  }

  void remember(const YamlField& field) { spec_.locations[field.path()] = field.location(); }

  void expect_node_keys(const YamlField& nodes) const {
    if (group_ < 0) {
      nodes.expect_keys({"system", "choose", "count", "gpus", "workload"});
      return;
    }
    refuse_group_sizing(nodes);
    nodes.expect_keys({"system", "count", "scalable_unit", "appliances"});
    if (!nodes.has("count")) nodes.fail("give 'count' (nodes, or racks of a rack-scale system)");
  }

  // Sizing (a GPU target, a workload, a choice among systems) finds one group's count; several groups at
  // once have no rule for splitting the work between them.
  static void refuse_group_sizing(const YamlField& entry) {
    for (const char* key : {"gpus", "workload", "choose"}) {
      if (entry.has(key)) {
        entry.child(key).fail("'" + std::string(key) +
                              "' sizes one group of nodes; a list of node groups takes a 'count' for each "
                              "(docs/spec.md, 3.2.4)");
      }
    }
  }

  // The list form of `nodes:`: the whole spec is read once per group (so a fabric or facility that cannot
  // carry one group is a located error at its entry), and the groups are kept in the order written.
  void read_groups(const YamlField& root) {
    const YamlField list = root.child("nodes");
    const std::vector<YamlField> items = list.items();
    if (items.empty()) list.fail("list at least one node group {system, count}");
    std::vector<ClusterSpec> reads;
    std::vector<std::string> systems;
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_map()) items[i].fail("a node group is a mapping {system, count}");
      refuse_group_sizing(items[i]);
      const YamlField named = items[i].child("system");
      if (std::find(systems.begin(), systems.end(), named.text()) != systems.end()) {
        named.fail("'" + named.text() + "' is listed twice; give one entry with the summed count");
      }
      systems.push_back(named.text());
      ClusterSpec group;
      group.file = spec_.file;
      group.system_field = named.path();
      try {
        SpecReader(catalog_, group, -1, static_cast<int>(i)).read(root);
      } catch (const InputFailure& failure) {
        InputError error = failure.error();
        if (error.field.rfind(items[i].path(), 0) != 0) {  // an error elsewhere in the spec: say which group
          error.message = "for node group '" + named.text() + "' (" + items[i].path() + "): " + error.message;
        }
        throw InputFailure(error);
      }
      reads.push_back(std::move(group));
    }
    ClusterSpec combined = reads.front();
    combined.node_count = 0;
    for (std::size_t i = 0; i < reads.size(); ++i) {
      const ClusterSpec& read = reads[i];
      NodeGroupSpec group;
      group.system = read.rack_system.empty() ? read.node_system : read.rack_system;
      group.node_system = read.node_system;
      group.rack_system = read.rack_system;
      group.count = read.rack_system.empty() ? read.node_count : read.rack_system_count;
      group.node_count = read.node_count;
      group.compute_scalable_unit_nodes = read.compute.scalable_unit_nodes;
      group.compute_appliances = read.compute.appliances;
      group.field = items[i].path();
      group.where = items[i].location();
      combined.node_groups.push_back(group);
      combined.node_count += read.node_count;
      combined.locations.insert(read.locations.begin(), read.locations.end());
    }
    spec_ = std::move(combined);
  }

  // The field naming this spec's system: `nodes.system`, or one item of `nodes.choose`.
  YamlField system_field(const YamlField& nodes) const {
    return candidate_ < 0 ? nodes.child("system") : nodes.child("choose").items().at(candidate_);
  }

  // `nodes.choose`: a workload-sized spec that lists candidate systems. Each is checked here (a known system
  // or rack system with GPUs, listed once) and the whole spec is read once per candidate, so that a fabric or
  // facility that cannot carry one is a located error naming it.
  void read_candidates(const YamlField& root) {
    const YamlField nodes = root.child("nodes");
    expect_node_keys(nodes);
    const YamlField choose = nodes.child("choose");
    if (nodes.has("system")) {
      nodes.child("system").fail("give 'system' (one system) or 'choose' (candidates to size), not both");
    }
    for (const char* key : {"count", "gpus"}) {
      if (nodes.has(key)) {
        nodes.child(key).fail("a spec that chooses among systems is sized for its workload; '" +
                              std::string(key) + "' does not apply");
      }
    }
    if (!nodes.has("workload")) {
      choose.fail("choosing among systems sizes each for a workload: give 'workload' (docs/spec.md, 3.2.2)");
    }
    const std::vector<YamlField> items = choose.items();
    if (items.empty()) choose.fail("list at least one candidate system");
    std::vector<std::string> ids;
    for (const YamlField& item : items) {
      const std::string id = item.text();
      const std::string kind = catalog_.kind_of(id);
      if (kind.empty())
        item.fail("unknown system '" + id + "' (not in the catalog; see `gputwin catalog list`)");
      if (kind != "system" && kind != "rack_system")
        item.fail("'" + id + "' is a " + kind + ", expected a system or a rack_system");
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) item.fail("'" + id + "' is listed twice");
      if (kind == "system" && catalog_.get<System>(id).accelerators == 0)
        item.fail("system '" + id + "' has no GPUs to train on");
      ids.push_back(id);
    }
    std::vector<ClusterSpec> candidates;
    for (std::size_t i = 0; i < items.size(); ++i) {
      ClusterSpec candidate;
      candidate.file = spec_.file;
      candidate.system_field = items[i].path();
      try {
        SpecReader(catalog_, candidate, static_cast<int>(i)).read(root);
      } catch (const InputFailure& failure) {
        InputError error = failure.error();
        error.message = "for candidate '" + ids[i] + "' (" + items[i].path() + "): " + error.message;
        throw InputFailure(error);
      }
      candidates.push_back(std::move(candidate));
    }
    ClusterSpec first = candidates.front();
    first.candidates = std::move(candidates);
    spec_ = std::move(first);
  }

  void read_nodes(const YamlField& nodes) {
    expect_node_keys(nodes);
    const YamlField named = system_field(nodes);
    if (catalog_.kind_of(named.text()) == "rack_system") {
      read_rack_system_nodes(nodes, named);
      return;
    }
    spec_.node_system = part(named, "system");
    check_domain_fits_node(named);
    const System& system = catalog_.get<System>(spec_.node_system);
    const int sizes_given = nodes.has("count") + nodes.has("gpus") + nodes.has("workload");
    if (sizes_given != 1) {
      nodes.fail("give exactly one of 'count' (nodes), 'gpus' (a target) or 'workload' (sized for it)");
    }
    refuse_count_with_budget(nodes);
    if (auto count = nodes.optional_child("count")) {
      spec_.node_count = static_cast<int>(count->positive_integer());
      remember(*count);
    } else if (auto gpus = nodes.optional_child("gpus")) {
      if (system.accelerators == 0)
        gpus->fail("system '" + system.info.id + "' has no GPUs; give 'count' instead");
      spec_.target_gpus = static_cast<int>(gpus->positive_integer());
      spec_.node_count = (*spec_.target_gpus + system.accelerators - 1) / system.accelerators;
      remember(*gpus);
    } else {
      const auto workload = nodes.child("workload");
      if (system.accelerators == 0)
        workload.fail("system '" + system.info.id + "' has no GPUs to train on; give 'count' instead");
      spec_.workload = read_workload(workload);
    }
    if (!system.nics.contains(NetworkRole::compute) && system.accelerators > 0) {
      named.fail("system '" + system.info.id + "' has no compute NICs");
    }
  }

  // A rack-scale system named (by `nodes.system` or a `nodes.choose` item): `count` counts racks (purchased
  // systems), `gpus` rounds up to whole racks, `workload` sizes whole racks; the nodes are its compute trays.
  void read_rack_system_nodes(const YamlField& nodes, const YamlField& named) {
    spec_.rack_system = part(named, "rack_system");
    const RackSystem& rack = catalog_.get<RackSystem>(spec_.rack_system);
    spec_.node_system = rack.compute_tray;
    const System& tray = catalog_.get<System>(rack.compute_tray);
    const int rack_gpus = tray.accelerators * rack.compute_trays;
    if (nodes.has("count") + nodes.has("gpus") + nodes.has("workload") != 1) {
      nodes.fail("give exactly one of 'count' (racks of " + spec_.rack_system +
                 "), 'gpus' (a target) or 'workload' (sized for it in whole racks)");
    }
    refuse_count_with_budget(nodes);
    if (auto count = nodes.optional_child("count")) {
      spec_.rack_system_count = static_cast<int>(count->positive_integer());
      remember(*count);
    } else if (auto gpus = nodes.optional_child("gpus")) {
      spec_.target_gpus = static_cast<int>(gpus->positive_integer());
      spec_.rack_system_count = (*spec_.target_gpus + rack_gpus - 1) / rack_gpus;
      remember(*gpus);
    } else {
      const auto workload = nodes.child("workload");
      if (rack_gpus == 0)
        workload.fail("rack system '" + spec_.rack_system +
                      "' has no GPUs to train on; give 'count' instead");
      spec_.workload = read_workload(workload);
    }
    spec_.node_count = spec_.rack_system_count * rack.compute_trays;
    if (!tray.nics.contains(NetworkRole::compute)) {
      named.fail("the compute tray '" + tray.info.id + "' has no compute NICs");
    }
  }

  // A power budget sizes the nodes: the spec gives the workload the budget is spent on, not a count.
  void refuse_count_with_budget(const YamlField& nodes) const {
    if (!budgeted_ || nodes.has("workload")) return;
    nodes.child(nodes.has("count") ? "count" : "gpus")
        .fail(
            "facility.power_budget sizes the nodes for a workload: give 'workload' instead of a count "
            "(docs/spec.md, 3.2.3)");
  }

  // A node whose scale-up domain spans several of them (an NVL72 compute tray) is built only as part of the
  // rack-scale system that holds the domain: naming the tray alone would leave its NVLink switch trays out.
  void check_domain_fits_node(const YamlField& field) {
    const System& system = catalog_.get<System>(spec_.node_system);
    if (!scale_up_domain_spans_systems(system)) return;
    std::string holders;
    for (const auto& rack : catalog_.all<RackSystem>()) {
      if (rack.compute_tray == system.info.id)
        holders += (holders.empty() ? "'" : ", '") + rack.info.id + "'";
    }
    field.fail("the " + std::to_string(gpus_per_scale_up_domain(system)) + "-GPU scale-up domain of '" +
               system.info.id + "' spans " + std::to_string(systems_per_scale_up_domain(system)) +
               " of them; name the rack-scale system that holds it" +
               (holders.empty() ? std::string(" (the catalog has none)") : " (" + holders + ")") +
               " instead of the tray");
  }

  WorkloadTarget read_workload(const YamlField& f) {
    f.expect_keys({"model", "tokens", "days", "sequence", "global_batch", "precision", "memory_reserve"});
    remember(f);
    WorkloadTarget workload;
    const auto model = f.child("model");
    workload.model = model.text();
    remember(model);
    const auto tokens = f.child("tokens");
    workload.tokens = parse_parameter_count(tokens.text());
    if (workload.tokens <= 0) {
      tokens.fail("expected a token count with a K, M, B or T suffix, such as 15T or 300B, got '" +
                  tokens.text() + "'");
    }
    // Within a power budget the days are an optional target (the plan trains as fast as the budget allows).
    if (const auto days = budgeted_ ? f.optional_child("days") : std::optional<YamlField>(f.child("days"))) {
      workload.days = days->positive_number();
      remember(*days);
    }
    if (auto sequence = f.optional_child("sequence")) {
      workload.sequence = static_cast<int>(sequence->positive_integer());
    }
    if (auto batch = f.optional_child("global_batch")) {
      workload.global_batch = static_cast<int>(batch->positive_integer());
    }
    if (auto precision = f.optional_child("precision")) {
      // A precision recipe of data/perf/precision-recipes.yaml (checked where the recipes are read: the
      // workload fit); here only its form.
      workload.precision = precision->text();
      if (workload.precision.empty() ||
          workload.precision.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
        precision->fail("expected a precision recipe name such as bf16, fp8, fp8-cs, mxfp8, nvfp4, got '" +
                        workload.precision + "'");
      remember(*precision);
    }
    if (auto reserve = f.optional_child("memory_reserve")) {
      workload.memory_reserve = reserve->quantity<ByteSize>();
      if (workload.memory_reserve->base() < 0) reserve->fail("must not be negative");
      remember(*reserve);
    }
    return workload;
  }

  static std::pair<double, std::string> oversubscription(const YamlField& field) {
    const std::string text = field.text();
    const auto colon = text.find(':');
    auto parse = [&](std::string_view piece) {
      double value = 0.0;
      const auto [end, error] = std::from_chars(piece.data(), piece.data() + piece.size(), value);
      if (error != std::errc() || end != piece.data() + piece.size() || value <= 0.0) {
        field.fail("expected a ratio of downlinks to uplinks such as '1:1' or '2:1', got '" + text + "'");
      }
      return value;
    };
    const double ratio = colon == std::string::npos ? parse(text)
                                                    : parse(std::string_view(text).substr(0, colon)) /
                                                          parse(std::string_view(text).substr(colon + 1));
    if (ratio < 1.0) {
      field.fail("a leaf with more uplinks than downlinks ('" + text + "') wastes ports; use at least 1:1");
    }
    return {ratio, colon == std::string::npos ? text + ":1" : text};
  }

  FabricSpec read_fabric(const YamlField& f, NetworkRole role) {
    f.expect_keys({"topology", "switch", "link_speed", "oversubscription", "scalable_unit", "appliances",
                   "max_tiers", "leaf_placement", "spine_leaf_groups"});
    FabricSpec fabric;
    fabric.present = true;
    fabric.role = role;
    fabric.where = f.location();
    const auto topology = f.has("topology") ? f.child("topology").one_of({"rail_optimized", "leaf_spine"})
                                            : std::string("leaf_spine");
    fabric.topology =
        topology == "rail_optimized" ? FabricTopology::rail_optimized : FabricTopology::leaf_spine;
    fabric.switch_id = part(f.child("switch"), "switch");
    const auto speed = f.child("link_speed");
    fabric.link_speed = speed.positive_quantity<DataRate>();
    remember(speed);
    const Switch& chosen = catalog_.get<Switch>(fabric.switch_id);
    if (chosen.radix_at(fabric.link_speed) == 0) {
      speed.fail("switch '" + fabric.switch_id + "' has no ports at " + speed.text());
    }
    if (auto ratio = f.optional_child("oversubscription")) {
      std::tie(fabric.oversubscription, fabric.oversubscription_text) = oversubscription(*ratio);
      remember(*ratio);
    }
    const auto su = group_scalable_unit(role) ? group_scalable_unit(role) : f.optional_child("scalable_unit");
    if (su) {
      if (fabric.topology != FabricTopology::rail_optimized)
        su->fail("scalable units apply to rail_optimized fabrics");
      fabric.scalable_unit_nodes = static_cast<int>(su->positive_integer());
      remember(*su);
      check_units_hold_whole_racks(*su, fabric.scalable_unit_nodes);
    } else if (fabric.topology == FabricTopology::rail_optimized && !spec_.rack_system.empty()) {
      fabric.scalable_unit_nodes = whole_racks_per_leaf(chosen, fabric);
    }
    if (auto groups = f.optional_child("spine_leaf_groups")) {
      fabric.spine_leaf_groups = groups->boolean();
      remember(*groups);
      if (fabric.spine_leaf_groups) read_spine_leaf_groups(*groups, su.has_value(), chosen, fabric);
    }
    if (auto appliances = group_appliances(role) ? group_appliances(role) : f.optional_child("appliances")) {
      for (const auto& item : appliances->items()) {
        item.expect_keys({"appliance", "count"});
        ApplianceRequest request{part(item.child("appliance"), "appliance"),
                                 static_cast<int>(item.child("count").positive_integer())};
        check_appliance_ports(request.appliance, fabric, item.child("appliance"));
        fabric.appliances.push_back(request);
      }
    }
    if (auto placement = f.optional_child("leaf_placement")) {
      if (fabric.topology == FabricTopology::rail_optimized) {
        placement->fail("rail-optimized leaves always sit in their scalable unit's network rack");
      }
      fabric.leaves_in_node_racks = placement->one_of({"top_of_rack", "network_rack"}) == "top_of_rack";
    }
    if (auto tiers = f.optional_child("max_tiers")) {
      fabric.max_tiers = static_cast<int>(tiers->positive_integer());
      if (fabric.max_tiers > 3) tiers->fail("at most 3 tiers (leaf, spine, core) are supported");
      remember(*tiers);
    }
    return fabric;
  }

  // Spine-leaf groups build one leaf per rack per rail: they need racks (a rack-scale system), a rack's trays
  // on one leaf's downlinks, and a stated unit, the racks of one group (no published rule gives a default).
  void read_spine_leaf_groups(const YamlField& field, bool unit_given, const Switch& leaf,
                              FabricSpec& fabric) const {
    if (fabric.topology != FabricTopology::rail_optimized)
      field.fail("spine-leaf groups apply to rail_optimized fabrics");
    if (spec_.rack_system.empty()) {
      field.fail("spine-leaf groups give each rack one leaf per rail, but '" + spec_.node_system +
                 "' is not a rack-scale system (name one, such as gb200-nvl72, in nodes.system)");
    }
    if (!unit_given) {
      field.fail("spine-leaf groups need scalable_unit: the trays of the racks one group's leaves serve (" +
                 std::to_string(catalog_.get<RackSystem>(spec_.rack_system).compute_trays) + " a rack here)");
    }
    fabric.rack_nodes = catalog_.get<RackSystem>(spec_.rack_system).compute_trays;
    const int downlinks = leaf_downlinks(leaf, fabric);
    if (fabric.rack_nodes > downlinks) {
      field.fail("one leaf per rack per rail needs " + std::to_string(fabric.rack_nodes) +
                 " node ports on a leaf, but a " + fabric.switch_id + " leaf keeps " +
                 std::to_string(downlinks) + " downlinks at " + fabric.oversubscription_text);
    }
  }

  // An appliance's ports may run slower than the fabric's link_speed, at their own speed (a 200 Gb/s storage
  // port on a 400 Gb/s fabric, as storage sizing counts it), where the fabric's switch has ports at that speed;
  // otherwise no leaf port can take it.
  void check_appliance_ports(const std::string& id, const FabricSpec& fabric, const YamlField& field) const {
    const Appliance& appliance = catalog_.get<Appliance>(id);
    const auto ports = appliance.nics.find(fabric.role);
    const std::string role = role_name(fabric.role);
    if (ports == appliance.nics.end()) field.fail("appliance '" + id + "' has no " + role + " ports");
    const DataRate speed = ports->second.speed;
    if (speed < fabric.link_speed && catalog_.get<Switch>(fabric.switch_id).radix_at(speed) == 0) {
      field.fail("the " + role + " ports of appliance '" + id + "' run at most " + format_data_rate(speed) +
                 ", slower than the fabric's " + format_data_rate(fabric.link_speed) + ", and switch '" +
                 fabric.switch_id + "' has no ports at " + format_data_rate(speed));
    }
  }

  // A node group's own `scalable_unit` (list form): its compute fabric's, in place of fabrics.compute's.
  std::optional<YamlField> group_scalable_unit(NetworkRole role) const {
    if (group_ < 0 || role != NetworkRole::compute) return std::nullopt;
    return nodes_field_->optional_child("scalable_unit");
  }

  // A node group's own `appliances` (list form): its compute fabric's, in place of fabrics.compute's (an
  // empty list: none on that group's island).
  std::optional<YamlField> group_appliances(NetworkRole role) const {
    if (group_ < 0 || role != NetworkRole::compute) return std::nullopt;
    return nodes_field_->optional_child("appliances");
  }

  // Scalable units are built from whole rack-scale systems: one that cuts a rack would cut its NVLink domain.
  void check_units_hold_whole_racks(const YamlField& field, int nodes) const {
    if (spec_.rack_system.empty()) return;
    const int trays = catalog_.get<RackSystem>(spec_.rack_system).compute_trays;
    if (nodes % trays != 0) {
      field.fail("a scalable unit of " + std::to_string(nodes) + " nodes cuts through " + spec_.rack_system +
                 " racks of " + std::to_string(trays) +
                 " compute trays (one scale-up domain each); use a multiple of " + std::to_string(trays));
    }
  }

  // The default scalable unit of a rack-scale system: as many whole racks as one leaf's downlinks take, at
  // least one rack (whose trays then spread over several leaves per rail).
  int whole_racks_per_leaf(const Switch& leaf, const FabricSpec& fabric) const {
    const int trays = catalog_.get<RackSystem>(spec_.rack_system).compute_trays;
    return trays * std::max(1, leaf_downlinks(leaf, fabric) / trays);
  }

  // A leaf's node ports at the fabric's oversubscription (the fabric builder's rule, docs/spec.md 5.3).
  static int leaf_downlinks(const Switch& leaf, const FabricSpec& fabric) {
    const int radix = leaf.radix_at(fabric.link_speed);
    return static_cast<int>(
        std::floor(radix * fabric.oversubscription / (1.0 + fabric.oversubscription) + 1e-9));
  }

  void read_fabrics(const YamlField& fabrics) {
    fabrics.expect_keys({"compute", "storage", "inband", "oob"});
    spec_.compute = read_fabric(fabrics.child("compute"), NetworkRole::compute);
    const System& system = catalog_.get<System>(spec_.node_system);
    check_nic_speed(system, spec_.compute, fabrics.child("compute").child("link_speed"));
    const std::pair<const char*, NetworkRole> others[] = {
        {"storage", NetworkRole::storage}, {"inband", NetworkRole::inband}, {"oob", NetworkRole::oob}};
    for (const auto& [key, role] : others) {
      auto field = fabrics.optional_child(key);
      if (!field) continue;
      FabricSpec fabric = read_fabric(*field, role);
      if (fabric.topology == FabricTopology::rail_optimized && role != NetworkRole::compute) {
        field->child("topology").fail("only the compute fabric may be rail_optimized");
      }
      if (!system.nics.contains(role)) {
        field->fail("system '" + system.info.id + "' has no " + std::string(role_name(role)) + " NICs");
      }
      check_nic_speed(system, fabric, fabrics.child(key).child("link_speed"));
      (role == NetworkRole::storage  ? spec_.storage
       : role == NetworkRole::inband ? spec_.inband
                                     : spec_.oob) = fabric;
    }
  }

  // A NIC runs slower than its line rate when the fabric does (a 200G port on a 100G switch), never faster.
  static void check_nic_speed(const System& system, const FabricSpec& fabric, const YamlField& speed) {
    const auto nic = system.nics.find(fabric.role);
    if (nic != system.nics.end() && nic->second.speed < fabric.link_speed) {
      speed.fail("the " + std::string(role_name(fabric.role)) + " NICs of '" + system.info.id +
                 "' run at most " + format_data_rate(nic->second.speed) + ", slower than the fabric's " +
                 speed.text());
    }
  }

  void read_management(const YamlField& management) {
    management.expect_keys({"servers"});
    for (const auto& item : management.child("servers").items()) {
      item.expect_keys({"system", "count"});
      spec_.management_servers.push_back(
          {part(item.child("system"), "system"), static_cast<int>(item.child("count").positive_integer())});
    }
  }

  // "60 s", "2 min", "1 h": a duration in seconds.
  static double duration_seconds(const YamlField& field) {
    const std::string text = field.text();
    const auto space = text.find(' ');
    double value = 0.0;
    const char* end = text.data() + (space == std::string::npos ? text.size() : space);
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    const std::string unit = space == std::string::npos ? "" : text.substr(space + 1);
    const double scale = unit == "s" ? 1.0 : unit == "min" ? 60.0 : unit == "h" ? 3600.0 : 0.0;
    if (error != std::errc() || stop != end || scale == 0.0) {
      field.fail("expected a duration such as '60 s', '5 min' or '1 h', got '" + text + "'");
    }
    if (value <= 0.0) field.fail("must be greater than zero, got '" + text + "'");
    return value * scale;
  }

  void read_storage(const YamlField& f) {
    f.expect_keys({"appliance", "checkpoint", "dataset_read", "capacity", "tier", "tier_table"});
    StorageSpec& storage = spec_.storage_system;
    storage.present = true;
    storage.where = f.location();
    remember(f);
    if (!spec_.storage.present) {
      f.fail("storage appliances join the storage fabric: give fabrics.storage (docs/spec.md)");
    }
    const YamlField named = f.child("appliance");
    storage.appliance = part(named, "appliance");
    const Appliance& appliance = catalog_.get<Appliance>(storage.appliance);
    if (!appliance.storage) {
      named.fail("appliance '" + storage.appliance + "' is no storage appliance (it has no storage figures)");
    }
    check_appliance_ports(storage.appliance, spec_.storage, named);
    const StoragePerformance& performance = *appliance.storage;
    auto needs_write = [&](const YamlField& field, const std::string& what) {
      if (!performance.write_bandwidth) {
        field.fail(what + " needs a write rate, but appliance '" + storage.appliance +
                   "' has no published write bandwidth (see `gputwin catalog show " + storage.appliance +
                   "`)");
      }
    };
    if (auto checkpoint = f.optional_child("checkpoint")) {
      checkpoint->expect_keys({"size", "write_within"});
      remember(*checkpoint);
      const YamlField size = checkpoint->child("size");
      if (size.text() == "workload") {
        if (!spec_.workload) {
          size.fail("'workload' sizes the checkpoint for nodes.workload, which this spec does not give");
        }
        storage.checkpoint_from_workload = true;
      } else {
        storage.checkpoint_size = size.positive_quantity<ByteSize>();
      }
      remember(size);
      storage.checkpoint_write_seconds = duration_seconds(checkpoint->child("write_within"));
      needs_write(*checkpoint, "a checkpoint target");
    }
    if (auto read = f.optional_child("dataset_read")) {
      storage.dataset_read = read->positive_quantity<DataRate>();
      remember(*read);
    }
    if (auto capacity = f.optional_child("capacity")) {
      storage.capacity = capacity->positive_quantity<ByteSize>();
      remember(*capacity);
      if (!performance.usable_capacity) {
        capacity->fail("appliance '" + storage.appliance + "' has no published usable capacity to size for");
      }
    }
    if (auto tier = f.optional_child("tier")) {
      const std::string level = tier->one_of({"good", "better", "best"});
      storage.tier = level == "good"     ? StorageTier::good
                     : level == "better" ? StorageTier::better
                                         : StorageTier::best;
      remember(*tier);
      needs_write(*tier, "a storage tier");
      storage.tier_table = tier_table(f, *tier);
    } else if (f.has("tier_table")) {
      f.child("tier_table").fail("a tier table applies with 'tier' (good, better or best)");
    }
    if (storage.checkpoint_write_seconds <= 0.0 && !storage.dataset_read && !storage.capacity &&
        !storage.tier) {
      f.fail(
          "give at least one of 'checkpoint', 'dataset_read', 'capacity' or 'tier' to size the storage for");
    }
  }

  // The table whose tiers `tier` names: `tier_table`, or the catalog's only one.
  std::string tier_table(const YamlField& f, const YamlField& tier) {
    if (auto table = f.optional_child("tier_table")) return part(*table, "storage_tier");
    const auto& tables = catalog_.all<StorageTierTable>();
    if (tables.size() != 1) {
      tier.fail("the catalog has " + std::to_string(tables.size()) +
                " storage tier tables; name one with 'tier_table'");
    }
    return tables.front().info.id;
  }

  void read_facility(const YamlField& f) {
    f.expect_keys({"rack_power_limit", "rack_units", "max_nodes_per_rack", "pdu", "pdu_redundancy", "cooling",
                   "pue", "electricity_price", "layout", "liquid_cooling", "room_air_capacity",
                   "room_liquid_capacity", "power_budget"});
    const FacilityDefaults* defaults = catalog_.find<FacilityDefaults>(kDefaultFacility);
    if (defaults == nullptr) f.fail("the catalog has no facility_defaults entry with id 'default'");
    FacilitySpec& facility = spec_.facility;
    const auto limit = f.child("rack_power_limit");
    facility.rack_power_limit = limit.positive_quantity<Power>();
    remember(limit);
    facility.rack_units = defaults->rack_units;
    if (auto units = f.optional_child("rack_units")) {
      facility.rack_units = units->positive_quantity<RackSpace>();
      remember(*units);
    }
    if (auto most = f.optional_child("max_nodes_per_rack")) {
      facility.max_nodes_per_rack = static_cast<int>(most->positive_integer());
      remember(*most);
    }
    facility.pdu = part(f.child("pdu"), "pdu");
    if (auto redundancy = f.optional_child("pdu_redundancy")) {
      facility.pdu_redundancy =
          redundancy->one_of({"n_plus_1", "2n"}) == "2n" ? PduRedundancy::two_n : PduRedundancy::n_plus_1;
    }
    facility.cooling = part(f.child("cooling"), "cooling");
    facility.pue = defaults->pue;
    if (auto pue = f.optional_child("pue")) {
      facility.pue = pue->positive_number();
      if (facility.pue < 1.0) pue->fail("a PUE is at least 1.0 (facility power over IT power)");
    }
    facility.electricity_price = defaults->electricity_price;
    if (auto price = f.optional_child("electricity_price")) {
      facility.electricity_price = price->positive_quantity<EnergyPrice>();
    }
    facility.layout = {0,
                       defaults->rack_width,
                       defaults->row_pitch,
                       defaults->tray_height,
                       defaults->rack_unit_height,
                       defaults->cable_slack};
    if (auto layout = f.optional_child("layout")) read_layout(*layout, facility.layout);
    facility.liquid = {defaults->cdu, defaults->coolant, defaults->water_supply_temperature_c,
                       defaults->water_delta_t_c, std::nullopt};
    if (auto liquid = f.optional_child("liquid_cooling")) read_liquid_cooling(*liquid, facility.liquid);
    if (auto air = f.optional_child("room_air_capacity")) {
      facility.room_air_capacity = air->positive_quantity<Power>();
      remember(*air);
    }
    if (auto liquid = f.optional_child("room_liquid_capacity")) {
      facility.room_liquid_capacity = liquid->positive_quantity<Power>();
      remember(*liquid);
    }
    if (auto budget = f.optional_child("power_budget")) {
      facility.power_budget = budget->positive_quantity<Power>();
      remember(*budget);
    }
    if (!spec_.rack_system.empty()) check_rack_system_fits(f);
  }

  void read_liquid_cooling(const YamlField& f, LiquidCoolingSpec& liquid) {
    f.expect_keys({"cdu", "coolant", "water_supply_temperature_c", "water_delta_t_c", "pue"});
    remember(f);
    if (auto cdu = f.optional_child("cdu")) liquid.cdu = part(*cdu, "cdu");
    if (auto coolant = f.optional_child("coolant")) liquid.coolant = part(*coolant, "coolant");
    if (auto supply = f.optional_child("water_supply_temperature_c")) {
      liquid.water_supply_temperature_c = supply->positive_number();
      remember(*supply);
    }
    if (auto rise = f.optional_child("water_delta_t_c")) {
      liquid.water_delta_t_c = rise->positive_number();
      remember(*rise);
    }
    if (auto pue = f.optional_child("pue")) {
      liquid.pue = pue->positive_number();
      if (*liquid.pue < 1.0) pue->fail("a PUE is at least 1.0 (facility power over IT power)");
      remember(*pue);
    }
  }

  // A rack-scale system comes as one rack: the facility's racks must be tall enough, may not be split by a
  // node limit, and must be cooled by liquid when the system sends heat to liquid.
  void check_rack_system_fits(const YamlField& f) {
    const RackSystem& rack = catalog_.get<RackSystem>(spec_.rack_system);
    const System& tray = catalog_.get<System>(rack.compute_tray);
    const FacilitySpec& facility = spec_.facility;
    const RackSpace needed = rack.occupied_rack_units(tray);
    if (needed > facility.rack_units) {
      const auto field = f.has("rack_units") ? f.child("rack_units") : f;
      field.fail("one " + spec_.rack_system + " takes " + format_rack_units(needed) +
                 " (trays, NVLink switch trays, power shelves), more than the facility's " +
                 format_rack_units(facility.rack_units) + " racks");
    }
    // In a list of node groups the limit is for the packed groups: a rack-scale system is one rack anyway.
    if (group_ < 0 && facility.max_nodes_per_rack > 0 && facility.max_nodes_per_rack < rack.compute_trays) {
      f.child("max_nodes_per_rack")
          .fail("a " + spec_.rack_system + " rack holds " + std::to_string(rack.compute_trays) +
                " compute trays in one scale-up domain; a limit of " +
                std::to_string(facility.max_nodes_per_rack) + " would cut the domain across racks");
    }
    const Cooling& cooling = catalog_.get<Cooling>(facility.cooling);
    if (rack.heat_to_liquid > 0.0 && cooling.type != "liquid") {
      f.child("cooling").fail(
          "a " + spec_.rack_system + " sends " + format_number(rack.heat_to_liquid * 100.0, 0) +
          " % of its heat to liquid, but '" + facility.cooling + "' is " + cooling.type + " cooling");
    }
    if (rack.heat_to_liquid > 0.0 && (facility.liquid.cdu.empty() || facility.liquid.coolant.empty() ||
                                      facility.liquid.water_delta_t_c <= 0.0)) {
      f.fail("a " + spec_.rack_system +
             " needs a liquid-cooling plant: give facility.liquid_cooling {cdu, coolant, "
             "water_supply_temperature_c, water_delta_t_c} (the catalog's facility_defaults has none)");
    }
  }

  static void read_layout(const YamlField& f, RowLayout& layout) {
    f.expect_keys({"racks_per_row", "rack_width", "row_pitch", "tray_height", "cable_slack"});
    if (auto racks = f.optional_child("racks_per_row"))
      layout.racks_per_row = static_cast<int>(racks->positive_integer());
    if (auto width = f.optional_child("rack_width")) layout.rack_width = width->positive_quantity<Length>();
    if (auto pitch = f.optional_child("row_pitch")) layout.row_pitch = pitch->positive_quantity<Length>();
    if (auto tray = f.optional_child("tray_height")) layout.tray_height = tray->quantity<Length>();
    if (auto slack = f.optional_child("cable_slack")) layout.cable_slack = slack->quantity<Length>();
  }

  void read_cabling(const YamlField& f) {
    f.expect_keys({"fiber_grade", "media"});
    if (auto grade = f.optional_child("fiber_grade"))
      spec_.cabling.fiber_grade = grade->one_of({"om3", "om4", "om5"});
    if (auto media = f.optional_child("media")) {
      for (const auto& item : media->items()) {
        const auto name =
            item.one_of({"passive_copper", "active_copper", "multimode", "singlemode", "twisted_pair"});
        const std::pair<const char*, Medium> all[] = {{"passive_copper", Medium::passive_copper},
                                                      {"active_copper", Medium::active_copper},
                                                      {"multimode", Medium::multimode},
                                                      {"singlemode", Medium::singlemode},
                                                      {"twisted_pair", Medium::twisted_pair}};
        for (const auto& [key, medium] : all) {
          if (name == key) spec_.cabling.allowed_media.push_back(medium);
        }
      }
      if (spec_.cabling.allowed_media.empty()) media->fail("list at least one medium");
    }
  }

  void read_costs(const YamlField& f) {
    f.expect_keys({"lifetime_years", "support_rate_per_year", "prices"});
    CostSpec& cost = spec_.cost;
    if (auto years = f.optional_child("lifetime_years")) cost.lifetime_years = years->positive_number();
    if (auto rate = f.optional_child("support_rate_per_year")) {
      cost.support_rate_per_year = rate->number();
      if (cost.support_rate_per_year < 0.0 || cost.support_rate_per_year > 1.0) {
        rate->fail("a yearly support rate is a fraction of capex between 0 and 1, got '" + rate->text() +
                   "'");
      }
    }
    if (auto prices = f.optional_child("prices")) {
      cost.has_prices = true;
      for (const auto& [id, price] : prices->entries()) {
        if (id != "rack" && catalog_.kind_of(id).empty()) price.fail("price for unknown part '" + id + "'");
        const Money amount = price.quantity<Money>();
        if (amount.base() < 0.0) price.fail("a price cannot be negative");
        cost.prices[id] = amount;
      }
    }
  }

  const Catalog& catalog_;
  ClusterSpec& spec_;
  bool budgeted_ = false;  // facility.power_budget is given: the workload's days become optional
  int candidate_ = -1;
  int group_ = -1;
  std::optional<YamlField> nodes_field_;  // `nodes`, or the list entry this read is of
};

}  // namespace

SourceLocation ClusterSpec::where(const std::string& field) const {
  const auto found = locations.find(field);
  return found == locations.end() ? SourceLocation{file, 0, 0} : found->second;
}

std::vector<NodeGroupSpec> ClusterSpec::groups() const {
  if (!node_groups.empty()) return node_groups;
  NodeGroupSpec group;
  group.system = rack_system.empty() ? node_system : rack_system;
  group.node_system = node_system;
  group.rack_system = rack_system;
  group.count = rack_system.empty() ? node_count : rack_system_count;
  group.node_count = node_count;
  group.compute_scalable_unit_nodes = compute.scalable_unit_nodes;
  group.compute_appliances = compute.appliances;
  group.field = "nodes";
  group.where = where(system_field);
  return {group};
}

namespace {

template <class LoadDocument>
Result<ClusterSpec> read_spec(const std::string& name, const Catalog& catalog, LoadDocument load_document) {
  try {
    const YamlDocument document = load_document();
    ClusterSpec spec;
    spec.file = name;
    const YamlField root = document.root();
    if (!root.is_map())
      root.fail("a cluster spec is a mapping with 'name', 'nodes', 'fabrics' and 'facility'");
    SpecReader(catalog, spec).read(root);
    return spec;
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

}  // namespace

Result<ClusterSpec> parse_cluster_spec(const std::string& text, const std::string& name,
                                       const Catalog& catalog) {
  return read_spec(name, catalog, [&] { return YamlDocument::parse(text, name); });
}

Result<ClusterSpec> load_cluster_spec(const std::string& path, const Catalog& catalog) {
  return read_spec(path, catalog, [&] { return YamlDocument::load(path); });
}

}  // namespace gputwin
