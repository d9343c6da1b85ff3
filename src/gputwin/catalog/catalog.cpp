#include "gputwin/catalog/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

std::string confidence_level(const YamlField& field) {
  return field.one_of({"read", "secondary", "derived", "unverified"});
}

struct PendingReference {
  std::string kind;  // the kind the id must name
  std::string id;
  SourceLocation where;
  std::string field;
};

PartInfo read_info(const YamlField& part) {
  PartInfo info;
  const YamlField id = part.child("id");
  info.id = id.text();
  static const std::regex kIdPattern("[a-z0-9][a-z0-9._-]*");
  if (!std::regex_match(info.id, kIdPattern)) {
    id.fail("ids are lower-case letters, digits, '.', '_' and '-', got '" + info.id + "'");
  }
  info.name = part.has("name") ? part.child("name").text() : info.id;
  info.source = part.child("source").text_or_list();
  if (info.source.empty()) part.child("source").fail("every part needs a source");
  info.confidence = part.has("confidence") ? confidence_level(part.child("confidence")) : "unverified";
  if (auto notes = part.optional_child("notes")) info.notes = notes->text_or_list();
  if (auto levels = part.optional_child("field_confidence")) {
    for (const auto& [field, level] : levels->entries()) (void)confidence_level(level);
  }
  info.defined_at = part.location();
  return info;
}

std::optional<LinkSpec> read_link(const YamlField& parent, std::string_view key) {
  auto field = parent.optional_child(key);
  if (!field) return std::nullopt;
  field->expect_keys({"type", "bandwidth", "links", "per_link_bandwidth", "notes"});
  LinkSpec link;
  link.type = field->child("type").text();
  if (auto bandwidth = field->optional_child("bandwidth")) link.bandwidth = bandwidth->quantity<DataRate>();
  return link;
}

NicGroup read_nic_group(const YamlField& field) {
  field.expect_keys({"ports", "speed", "ports_per_cage", "cage"});
  NicGroup group;
  group.ports = static_cast<int>(field.child("ports").positive_integer());
  group.speed = field.child("speed").positive_quantity<DataRate>();
  if (auto per_cage = field.optional_child("ports_per_cage")) {
    group.ports_per_cage = static_cast<int>(per_cage->positive_integer());
  }
  group.cage = field.has("cage") ? field.child("cage").text() : "";
  return group;
}

Nics read_nics(const YamlField& field) {
  field.expect_keys({"compute", "storage", "inband", "oob"});
  Nics nics;
  const std::pair<const char*, NetworkRole> roles[] = {{"compute", NetworkRole::compute},
                                                       {"storage", NetworkRole::storage},
                                                       {"inband", NetworkRole::inband},
                                                       {"oob", NetworkRole::oob}};
  for (const auto& [key, role] : roles) {
    if (auto group = field.optional_child(key)) nics[role] = read_nic_group(*group);
  }
  return nics;
}

Medium read_medium(const YamlField& field, bool cables_allowed) {
  const std::string value =
      cables_allowed
          ? field.one_of({"passive_copper", "active_copper", "multimode", "singlemode", "twisted_pair"})
          : field.one_of({"multimode", "singlemode"});
  if (value == "passive_copper") return Medium::passive_copper;
  if (value == "active_copper") return Medium::active_copper;
  if (value == "multimode") return Medium::multimode;
  if (value == "singlemode") return Medium::singlemode;
  return Medium::twisted_pair;
}

template <class Q>
std::optional<Q> optional_quantity(const YamlField& parent, std::string_view key) {
  auto field = parent.optional_child(key);
  if (!field) return std::nullopt;
  return field->positive_quantity<Q>();
}

}  // namespace

class CatalogBuilder {
 public:
  void add_document(const YamlField& root) {
    if (root.is_null()) return;  // an empty file holds no parts
    root.expect_keys({"title", "notes", "accelerators", "mig_profile_sets", "systems", "appliances",
                      "switches", "transceivers", "cables", "circuits", "pdus", "cooling",
                      "facility_defaults", "rack_systems", "cdus", "busbars", "coolants", "storage_tiers"});
    read_list(root, "accelerators", catalog_.accelerators_, "accelerator",
              [this](auto& f) { return accelerator(f); });
    read_list(root, "mig_profile_sets", catalog_.mig_profile_sets_, "mig_profile_set",
              [this](auto& f) { return mig_set(f); });
    read_list(root, "systems", catalog_.systems_, "system", [this](auto& f) { return system(f); });
    read_list(root, "appliances", catalog_.appliances_, "appliance",
              [this](auto& f) { return appliance(f); });
    read_list(root, "switches", catalog_.switches_, "switch", [this](auto& f) { return network_switch(f); });
    read_list(root, "transceivers", catalog_.transceivers_, "transceiver",
              [this](auto& f) { return transceiver(f); });
    read_list(root, "cables", catalog_.cables_, "cable", [this](auto& f) { return cable(f); });
    read_list(root, "circuits", catalog_.circuits_, "circuit", [this](auto& f) { return circuit(f); });
    read_list(root, "pdus", catalog_.pdus_, "pdu", [this](auto& f) { return pdu(f); });
    read_list(root, "cooling", catalog_.coolings_, "cooling", [this](auto& f) { return cooling(f); });
    read_list(root, "facility_defaults", catalog_.facility_defaults_, "facility_defaults",
              [this](auto& f) { return facility(f); });
    read_list(root, "rack_systems", catalog_.rack_systems_, "rack_system",
              [this](auto& f) { return rack_system(f); });
    read_list(root, "cdus", catalog_.cdus_, "cdu", [this](auto& f) { return cdu(f); });
    read_list(root, "busbars", catalog_.busbars_, "busbar", [this](auto& f) { return busbar(f); });
    read_list(root, "coolants", catalog_.coolants_, "coolant", [this](auto& f) { return coolant(f); });
    read_list(root, "storage_tiers", catalog_.storage_tiers_, "storage_tier",
              [this](auto& f) { return storage_tier(f); });
  }

  void add_error(InputError error) { errors_.push_back(std::move(error)); }

  Result<Catalog> finish() {
    for (const auto& reference : references_) {
      const auto found = catalog_.kinds_.find(reference.id);
      if (found == catalog_.kinds_.end()) {
        errors_.push_back(
            {reference.where, reference.field,
             "refers to " + reference.kind + " '" + reference.id + "', which no catalog file defines"});
      } else if (found->second != reference.kind) {
        errors_.push_back(
            {reference.where, reference.field,
             "refers to '" + reference.id + "', which is a " + found->second + ", not a " + reference.kind});
      }
    }
    check_rack_systems();
    if (!errors_.empty()) return errors_;
    return std::move(catalog_);
  }

 private:
  template <class Part, class Reader>
  void read_list(const YamlField& root, std::string_view key, std::vector<Part>& parts,
                 const std::string& kind, Reader reader) {
    auto list = root.optional_child(key);
    if (!list) return;
    for (const auto& field : list->items()) {
      try {
        Part part = reader(field);
        register_id(part.info, kind, field);
        parts.push_back(std::move(part));
      } catch (const InputFailure& failure) {
        errors_.push_back(failure.error());
      }
    }
  }

  void register_id(const PartInfo& info, const std::string& kind, const YamlField& field) {
    const auto [where, inserted] = first_definition_.emplace(info.id, info.defined_at);
    if (!inserted) {
      const auto& first = where->second;
      field.child("id").fail("duplicate id '" + info.id + "', first defined at " + first.file + ":" +
                             std::to_string(first.line));
    }
    catalog_.kinds_[info.id] = kind;
  }

  void refer(const YamlField& field, std::string kind) {
    references_.push_back({std::move(kind), field.text(), field.location(), field.path()});
  }

  Accelerator accelerator(const YamlField& f) {
    f.expect_keys({"id", "name", "vendor", "form_factor", "architecture", "source", "confidence",
                   "field_confidence", "notes", "dense_compute", "memory", "memory_type", "memory_bandwidth",
                   "tdp", "scale_up", "host_link", "mig"});
    Accelerator part;
    part.info = read_info(f);
    part.vendor = f.child("vendor").text();
    part.form_factor = f.child("form_factor").one_of({"sxm", "pcie", "oam", "superchip"});
    if (auto architecture = f.optional_child("architecture")) part.architecture = architecture->text();
    const auto compute = f.child("dense_compute");
    compute.expect_keys({"fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8"});
    for (const auto& [precision, rate] : compute.entries()) {
      part.dense_compute[precision] =
          rate.is_null() ? std::nullopt : std::optional<ComputeRate>(rate.positive_quantity<ComputeRate>());
    }
    part.memory = f.child("memory").positive_quantity<ByteSize>();
    part.memory_type = f.child("memory_type").text();
    part.memory_bandwidth = f.child("memory_bandwidth").positive_quantity<DataRate>();
    part.tdp = f.child("tdp").positive_quantity<Power>();
    part.scale_up = read_link(f, "scale_up");
    part.host_link = read_link(f, "host_link");
    if (auto mig = f.optional_child("mig")) {
      part.mig_profile_set = mig->text();
      refer(*mig, "mig_profile_set");
    }
    return part;
  }

  MigProfileSet mig_set(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "memory_slots",
                   "compute_slices", "profiles"});
    MigProfileSet set;
    set.info = read_info(f);
    set.memory_slots = static_cast<int>(f.child("memory_slots").positive_integer());
    set.compute_slices = static_cast<int>(f.child("compute_slices").positive_integer());
    for (const auto& p : f.child("profiles").items()) {
      p.expect_keys({"name", "profile_id", "compute_slices", "memory", "size_slots", "start_slots",
                     "max_instances", "copy_engines", "notes", "confidence", "field_confidence"});
      MigProfile profile;
      profile.name = p.child("name").text();
      if (auto id = p.optional_child("profile_id"))
        profile.profile_id = static_cast<int>(id->non_negative_integer());
      profile.compute_slices = static_cast<int>(p.child("compute_slices").positive_integer());
      if (profile.compute_slices > set.compute_slices) {
        p.child("compute_slices")
            .fail("exceeds the set's " + std::to_string(set.compute_slices) + " compute slices");
      }
      if (auto memory = p.optional_child("memory")) profile.memory = memory->positive_quantity<ByteSize>();
      profile.max_instances = static_cast<int>(p.child("max_instances").positive_integer());
      read_placements(p, set.memory_slots, profile);
      set.profiles.push_back(std::move(profile));
    }
    return set;
  }

  static void read_placements(const YamlField& p, int memory_slots, MigProfile& profile) {
    if (p.has("size_slots") != p.has("start_slots")) {
      p.fail("size_slots and start_slots are given together or not at all");
    }
    if (!p.has("size_slots")) return;
    profile.size_slots = static_cast<int>(p.child("size_slots").positive_integer());
    for (const auto& start : p.child("start_slots").items()) {
      const int slot = static_cast<int>(start.non_negative_integer());
      if (slot + profile.size_slots > memory_slots) {
        start.fail("placement [" + std::to_string(slot) + ", " + std::to_string(slot + profile.size_slots) +
                   ") runs past the " + std::to_string(memory_slots) + " memory slots");
      }
      profile.start_slots.push_back(slot);
    }
  }

  System system(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "accelerator",
                   "accelerators", "scale_up_domain", "cpu", "cpu_sockets", "cpu_cores",
                   "cpu_threads_per_core", "system_memory", "rack_units", "power_max", "power_typical",
                   "psus", "nics", "power_includes_modules"});
    System part;
    part.info = read_info(f);
    if (auto accelerator = f.optional_child("accelerator")) {
      part.accelerator = accelerator->text();
      refer(*accelerator, "accelerator");
      part.accelerators = static_cast<int>(f.child("accelerators").positive_integer());
    }
    part.scale_up_domain =
        f.has("scale_up_domain") ? static_cast<int>(f.child("scale_up_domain").positive_integer()) : 1;
    check_scale_up_domain(f, part);
    if (auto cpu = f.optional_child("cpu")) part.cpu = cpu->text();
    if (auto cores = f.optional_child("cpu_cores"))
      part.cpu_cores = static_cast<int>(cores->positive_integer());
    if (auto sockets = f.optional_child("cpu_sockets")) {
      part.cpu_sockets = static_cast<int>(sockets->positive_integer());
      if (part.cpu_cores % part.cpu_sockets != 0)
        sockets->fail("cpu_cores do not divide evenly over the sockets");
    }
    if (auto threads = f.optional_child("cpu_threads_per_core"))
      part.cpu_threads_per_core = static_cast<int>(threads->positive_integer());
    part.system_memory = optional_quantity<ByteSize>(f, "system_memory");
    part.rack_units = f.child("rack_units").positive_quantity<RackSpace>();
    part.power_max = f.child("power_max").positive_quantity<Power>();
    part.power_typical = optional_quantity<Power>(f, "power_typical");
    if (part.power_typical && *part.power_typical > part.power_max) {
      f.child("power_typical").fail("typical power exceeds power_max");
    }
    if (auto psus = f.optional_child("psus")) {
      psus->expect_keys({"count", "rating", "redundancy"});
      part.psus = PowerSupplies{static_cast<int>(psus->child("count").positive_integer()),
                                psus->child("rating").positive_quantity<Power>(),
                                psus->has("redundancy") ? psus->child("redundancy").text() : ""};
    }
    part.nics = read_nics(f.child("nics"));
    part.module_power = module_power_scopes(f, part.power_typical.has_value());
    return part;
  }

  // `power_includes_modules: {power_max: included, power_typical: excluded, source: "..."}`; absent: both
  // unknown. Give either figure's scope or both; one not given follows the other (a typical modelled from the
  // maximum, or a maximum that is the typical figure standing in).
  static ModulePowerScopes module_power_scopes(const YamlField& f, bool has_typical) {
    ModulePowerScopes scopes;
    const auto field = f.optional_child("power_includes_modules");
    if (!field) return scopes;
    field->expect_keys({"power_max", "power_typical", "source"});
    const auto scope = [](const YamlField& value) {
      const std::string name = value.one_of({"included", "excluded", "unknown"});
      return name == "included"   ? ModulePowerScope::included
             : name == "excluded" ? ModulePowerScope::excluded
                                  : ModulePowerScope::unknown;
    };
    const auto max = field->optional_child("power_max");
    const auto typical = field->optional_child("power_typical");
    if (!max && !typical) field->fail("give the scope of power_max, of power_typical, or of both");
    if (typical && !has_typical) typical->fail("the part has no power_typical for this to describe");
    scopes.max = max ? scope(*max) : scope(*typical);
    scopes.typical = typical ? scope(*typical) : scopes.max;
    scopes.source = field->child("source").text_or_list();
    return scopes;
  }

  // A scale-up domain larger than the box spans several boxes (an NVL72 compute tray of 4 GPUs in a
  // 72-GPU NVLink domain): it must then be made of whole boxes, or the domain cannot be built.
  static void check_scale_up_domain(const YamlField& f, const System& part) {
    if (part.scale_up_domain <= 1) return;
    const auto field = f.child("scale_up_domain");
    if (part.accelerators == 0) field.fail("a system without accelerators has no scale-up domain");
    if (part.scale_up_domain > part.accelerators && part.scale_up_domain % part.accelerators != 0) {
      field.fail("a scale-up domain of " + std::to_string(part.scale_up_domain) + " GPUs spans systems of " +
                 std::to_string(part.accelerators) + " accelerators only as a whole multiple of them");
    }
  }

  Appliance appliance(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "rack_units",
                   "power_max", "nics", "storage", "power_includes_modules"});
    Appliance part;
    part.info = read_info(f);
    part.rack_units = f.child("rack_units").positive_quantity<RackSpace>();
    part.power_max = f.child("power_max").positive_quantity<Power>();
    part.nics = read_nics(f.child("nics"));
    part.module_power = module_power_scopes(f, false);
    if (auto storage = f.optional_child("storage")) {
      storage->expect_keys({"filesystem", "read_bandwidth", "write_bandwidth", "usable_capacity"});
      if (!part.nics.contains(NetworkRole::storage)) {
        f.child("nics").fail(
            "a storage appliance needs storage ports (nics.storage) to join the storage fabric");
      }
      StoragePerformance performance;
      if (auto filesystem = storage->optional_child("filesystem"))
        performance.filesystem = filesystem->text();
      performance.read_bandwidth = storage->child("read_bandwidth").positive_quantity<DataRate>();
      performance.write_bandwidth = optional_quantity<DataRate>(*storage, "write_bandwidth");
      performance.usable_capacity = optional_quantity<ByteSize>(*storage, "usable_capacity");
      part.storage = performance;
    }
    return part;
  }

  static StorageRates storage_rates(const YamlField& f) {
    f.expect_keys({"read", "write"});
    return {f.child("read").positive_quantity<DataRate>(), f.child("write").positive_quantity<DataRate>()};
  }

  // Every tier, good/better/best, in one map; each must be given.
  static std::map<StorageTier, StorageRates> tier_rates(const YamlField& f) {
    std::map<StorageTier, StorageRates> rates;
    for (const auto tier : {StorageTier::good, StorageTier::better, StorageTier::best}) {
      rates[tier] = storage_rates(f.child(storage_tier_name(tier)));
    }
    return rates;
  }

  StorageTierTable storage_tier(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes",
                   "nodes_per_scalable_unit", "per_node", "aggregate"});
    StorageTierTable part;
    part.info = read_info(f);
    part.nodes_per_scalable_unit = static_cast<int>(f.child("nodes_per_scalable_unit").positive_integer());
    const auto per_node = f.child("per_node");
    per_node.expect_keys({"good", "better", "best"});
    part.per_node = tier_rates(per_node);
    const auto rows = f.child("aggregate");
    for (const auto& item : rows.items()) {
      StorageTierTable::Row row;
      const auto units = item.child("scalable_units");
      row.scalable_units = static_cast<int>(units.positive_integer());
      if (!part.aggregate.empty() && row.scalable_units <= part.aggregate.back().scalable_units) {
        units.fail("rows are listed by ascending scalable_units");
      }
      item.expect_keys({"scalable_units", "good", "better", "best"});
      row.rates = tier_rates(item);
      part.aggregate.push_back(std::move(row));
    }
    if (part.aggregate.empty()) rows.fail("list at least one row of aggregate rates");
    return part;
  }

  Switch network_switch(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "technology",
                   "rack_units", "cages", "cage", "port_modes", "power_max", "power_typical",
                   "power_includes_modules"});
    Switch part;
    part.info = read_info(f);
    part.technology = f.child("technology").one_of({"infiniband", "ethernet"});
    part.rack_units = f.child("rack_units").positive_quantity<RackSpace>();
    part.cages = static_cast<int>(f.child("cages").positive_integer());
    part.cage = f.child("cage").text();
    for (const auto& mode : f.child("port_modes").items()) {
      mode.expect_keys({"ports", "speed"});
      part.port_modes.push_back({static_cast<int>(mode.child("ports").positive_integer()),
                                 mode.child("speed").positive_quantity<DataRate>()});
    }
    if (part.port_modes.empty()) f.child("port_modes").fail("a switch needs at least one port mode");
    part.power_typical = optional_quantity<Power>(f, "power_typical");
    const auto power_max = optional_quantity<Power>(f, "power_max");
    if (!power_max && !part.power_typical) f.fail("a switch needs power_max or power_typical");
    part.power_max = power_max ? *power_max : *part.power_typical;
    part.module_power = module_power_scopes(f, part.power_typical.has_value());
    if (!power_max) {
      // The maximum is the typical figure standing in: it has the typical figure's scope.
      if (auto scopes = f.optional_child("power_includes_modules"); scopes && scopes->has("power_max"))
        scopes->child("power_max").fail("the switch has no power_max of its own; give power_typical's scope");
      part.module_power.max = part.module_power.typical;
    }
    return part;
  }

  Transceiver transceiver(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "cage", "ports",
                   "port_speed", "medium", "reach", "power_max", "power_typical", "part_number"});
    Transceiver part;
    part.info = read_info(f);
    part.cage = f.child("cage").text();
    part.ports = static_cast<int>(f.child("ports").positive_integer());
    part.port_speed = f.child("port_speed").positive_quantity<DataRate>();
    part.medium = read_medium(f.child("medium"), false);
    const auto reach = f.child("reach");
    reach.expect_keys({"om3", "om4", "om5", "os2"});
    for (const auto& [grade, length] : reach.entries())
      part.reach[grade] = length.positive_quantity<Length>();
    if (part.reach.empty()) reach.fail("a transceiver needs a reach for at least one fiber grade");
    part.power_max = optional_quantity<Power>(f, "power_max");
    part.power_typical = optional_quantity<Power>(f, "power_typical");
    if (!part.power_max) part.power_max = part.power_typical;
    if (part.power_typical && *part.power_typical > *part.power_max)
      f.child("power_typical").fail("typical power exceeds power_max");
    return part;
  }

  Cable cable(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "medium", "speed",
                   "lengths", "power_max", "part_number"});
    Cable part;
    part.info = read_info(f);
    part.medium = read_medium(f.child("medium"), true);
    part.speed = f.child("speed").positive_quantity<DataRate>();
    for (const auto& length : f.child("lengths").items())
      part.lengths.push_back(length.positive_quantity<Length>());
    if (part.lengths.empty()) f.child("lengths").fail("a cable needs at least one orderable length");
    std::sort(part.lengths.begin(), part.lengths.end());
    if (auto power = f.optional_child("power_max")) part.power_max = power->quantity<Power>();
    return part;
  }

  Circuit circuit(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "voltage", "phases",
                   "current", "continuous_derating"});
    Circuit part;
    part.info = read_info(f);
    part.voltage = f.child("voltage").positive_quantity<Voltage>();
    const auto phases = f.child("phases");
    part.phases = static_cast<int>(phases.positive_integer());
    if (part.phases != 1 && part.phases != 3) phases.fail("expected 1 or 3 phases");
    part.current = f.child("current").positive_quantity<Current>();
    const auto derating = f.child("continuous_derating");
    part.continuous_derating = derating.positive_number();
    if (part.continuous_derating > 1.0) derating.fail("a derating is a fraction of at most 1");
    return part;
  }

  Pdu pdu(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "circuit", "outlets",
                   "rack_units", "part_number"});
    Pdu part;
    part.info = read_info(f);
    part.circuit = f.child("circuit").text();
    refer(f.child("circuit"), "circuit");
    if (auto outlets = f.optional_child("outlets"))
      part.outlets = static_cast<int>(outlets->positive_integer());
    part.rack_units = f.has("rack_units") ? f.child("rack_units").quantity<RackSpace>() : RackSpace();
    return part;
  }

  Cooling cooling(const YamlField& f) {
    f.expect_keys(
        {"id", "name", "source", "confidence", "field_confidence", "notes", "type", "max_rack_power", "pue"});
    Cooling part;
    part.info = read_info(f);
    part.type = f.child("type").one_of({"air", "rear_door", "liquid"});
    part.max_rack_power = f.child("max_rack_power").positive_quantity<Power>();
    if (auto pue = f.optional_child("pue")) {
      part.pue = pue->positive_number();
      if (*part.pue < 1.0) pue->fail("a PUE is at least 1.0");
    }
    return part;
  }

  static double fraction(const YamlField& field) {
    const double value = field.number();
    if (value < 0.0 || value > 1.0) field.fail("expected a fraction between 0 and 1");
    return value;
  }

  RackSystem rack_system(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "compute_tray",
                   "compute_trays", "switch_trays", "power_shelves", "other_rack_units", "rack_units",
                   "power_max", "power_typical", "cooling", "heat_to_liquid", "weight_kg", "scale_up"});
    RackSystem part;
    part.info = read_info(f);
    part.compute_tray = f.child("compute_tray").text();
    refer(f.child("compute_tray"), "system");
    part.compute_trays = static_cast<int>(f.child("compute_trays").positive_integer());
    const auto trays = f.child("switch_trays");
    trays.expect_keys({"name", "count", "chips_per_tray", "rack_units", "power_max"});
    part.switch_trays.name = trays.has("name") ? trays.child("name").text() : "NVLink switch tray";
    part.switch_trays.count = static_cast<int>(trays.child("count").positive_integer());
    if (auto chips = trays.optional_child("chips_per_tray"))
      part.switch_trays.chips_per_tray = static_cast<int>(chips->positive_integer());
    part.switch_trays.rack_units = trays.child("rack_units").positive_quantity<RackSpace>();
    part.switch_trays.power_max = trays.child("power_max").positive_quantity<Power>();
    const auto shelves = f.child("power_shelves");
    shelves.expect_keys({"count", "rack_units", "rating", "psus_per_shelf", "psu_rating", "redundancy"});
    part.power_shelves.count = static_cast<int>(shelves.child("count").positive_integer());
    part.power_shelves.rack_units = shelves.child("rack_units").positive_quantity<RackSpace>();
    part.power_shelves.rating = shelves.child("rating").positive_quantity<Power>();
    if (auto psus = shelves.optional_child("psus_per_shelf"))
      part.power_shelves.psus_per_shelf = static_cast<int>(psus->positive_integer());
    if (auto rating = shelves.optional_child("psu_rating"))
      part.power_shelves.psu_rating = rating->positive_quantity<Power>();
    if (auto redundancy = shelves.optional_child("redundancy"))
      part.power_shelves.redundancy = redundancy->text();
    part.other_rack_units =
        f.has("other_rack_units") ? f.child("other_rack_units").quantity<RackSpace>() : RackSpace();
    part.rack_units = f.child("rack_units").positive_quantity<RackSpace>();
    part.power_max = f.child("power_max").positive_quantity<Power>();
    part.power_typical = optional_quantity<Power>(f, "power_typical");
    if (part.power_typical && *part.power_typical > part.power_max)
      f.child("power_typical").fail("typical power exceeds power_max");
    const std::string cooling = f.child("cooling").one_of({"air", "hybrid", "liquid"});
    part.cooling = cooling == "air"      ? CoolingMethod::air
                   : cooling == "hybrid" ? CoolingMethod::hybrid
                                         : CoolingMethod::liquid;
    part.heat_to_liquid = fraction(f.child("heat_to_liquid"));
    if (part.cooling == CoolingMethod::air && part.heat_to_liquid > 0.0)
      f.child("heat_to_liquid").fail("an air-cooled system sends no heat to liquid");
    if (auto weight = f.optional_child("weight_kg")) part.weight_kg = weight->positive_number();
    const auto scale_up = f.child("scale_up");
    scale_up.expect_keys({"link", "bandwidth_per_gpu", "notes"});
    part.scale_up_link = scale_up.has("link") ? scale_up.child("link").text() : "";
    part.scale_up_bandwidth = scale_up.child("bandwidth_per_gpu").positive_quantity<DataRate>();
    rack_system_fields_[part.info.id] = {
        {f.child("compute_trays").location(), f.child("compute_trays").path()},
        {f.child("rack_units").location(), f.child("rack_units").path()}};
    return part;
  }

  // After every file is read: the tray must exist, and the trays must make up the tray's scale-up domain
  // and fit the rack the system ships in.
  void check_rack_systems() {
    for (const auto& rack : catalog_.rack_systems_) {
      const System* tray = catalog_.find<System>(rack.compute_tray);
      const auto field = rack_system_fields_.find(rack.info.id);
      if (tray == nullptr || field == rack_system_fields_.end())
        continue;  // reported as a dangling reference
      const auto& [trays_at, rack_units_at] = field->second;
      const int gpus = tray->accelerators * rack.compute_trays;
      if (tray->scale_up_domain != gpus) {
        errors_.push_back({trays_at.first, trays_at.second,
                           std::to_string(rack.compute_trays) + " trays of " + rack.compute_tray + " hold " +
                               std::to_string(gpus) + " GPUs, but the tray's scale_up_domain is " +
                               std::to_string(tray->scale_up_domain)});
      }
      if (rack.occupied_rack_units(*tray) > rack.rack_units) {
        errors_.push_back({rack_units_at.first, rack_units_at.second,
                           "the trays, switch trays and power shelves take " +
                               format_rack_units(rack.occupied_rack_units(*tray)) + ", more than the " +
                               format_rack_units(rack.rack_units) + " rack"});
      }
    }
  }

  CoolantDistributionUnit cdu(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "placement", "capacity",
                   "redundancy", "flow_l_per_min", "supply_temperature_c", "rack_units"});
    CoolantDistributionUnit part;
    part.info = read_info(f);
    part.placement = f.child("placement").one_of({"in_rack", "in_row"});
    part.capacity = f.child("capacity").positive_quantity<Power>();
    if (auto redundancy = f.optional_child("redundancy")) part.redundancy = redundancy->text();
    if (auto flow = f.optional_child("flow_l_per_min")) part.flow_l_per_min = flow->positive_number();
    if (auto supply = f.optional_child("supply_temperature_c"))
      part.supply_temperature_c = supply->positive_number();
    part.rack_units = f.has("rack_units") ? f.child("rack_units").quantity<RackSpace>() : RackSpace();
    return part;
  }

  BusbarFeed busbar(const YamlField& f) {
    f.expect_keys(
        {"id", "name", "source", "confidence", "field_confidence", "notes", "capacity", "voltage_v"});
    BusbarFeed part;
    part.info = read_info(f);
    part.capacity = f.child("capacity").positive_quantity<Power>();
    if (auto voltage = f.optional_child("voltage_v")) part.voltage_v = voltage->positive_number();
    return part;
  }

  Coolant coolant(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes",
                   "specific_heat_j_per_kg_k", "density_kg_per_l"});
    Coolant part;
    part.info = read_info(f);
    part.specific_heat_j_per_kg_k = f.child("specific_heat_j_per_kg_k").positive_number();
    part.density_kg_per_l = f.child("density_kg_per_l").positive_number();
    return part;
  }

  FacilityDefaults facility(const YamlField& f) {
    f.expect_keys({"id", "name", "source", "confidence", "field_confidence", "notes", "pue",
                   "electricity_price", "rack_units", "rack_width", "row_pitch", "tray_height",
                   "rack_unit_height", "cable_slack", "cdu", "coolant", "water_supply_temperature_c",
                   "water_delta_t_c"});
    FacilityDefaults part;
    part.info = read_info(f);
    const auto pue = f.child("pue");
    part.pue = pue.positive_number();
    if (part.pue < 1.0) pue.fail("a PUE is at least 1.0");
    part.electricity_price = f.child("electricity_price").positive_quantity<EnergyPrice>();
    part.rack_units = f.child("rack_units").positive_quantity<RackSpace>();
    part.rack_width = f.child("rack_width").positive_quantity<Length>();
    part.row_pitch = f.child("row_pitch").positive_quantity<Length>();
    part.tray_height = f.child("tray_height").quantity<Length>();
    part.rack_unit_height = f.child("rack_unit_height").positive_quantity<Length>();
    part.cable_slack = f.child("cable_slack").quantity<Length>();
    if (auto cdu = f.optional_child("cdu")) {
      part.cdu = cdu->text();
      refer(*cdu, "cdu");
    }
    if (auto coolant = f.optional_child("coolant")) {
      part.coolant = coolant->text();
      refer(*coolant, "coolant");
    }
    if (auto supply = f.optional_child("water_supply_temperature_c"))
      part.water_supply_temperature_c = supply->positive_number();
    if (auto rise = f.optional_child("water_delta_t_c")) part.water_delta_t_c = rise->positive_number();
    return part;
  }

  Catalog catalog_;
  InputErrors errors_;
  std::vector<PendingReference> references_;
  std::unordered_map<std::string, SourceLocation> first_definition_;
  using FieldAt = std::pair<SourceLocation, std::string>;  // where a field was written, and its path
  std::map<std::string, std::pair<FieldAt, FieldAt>> rack_system_fields_;  // compute_trays, rack_units
};

Result<Catalog> Catalog::parse(const std::vector<std::pair<std::string, std::string>>& documents) {
  CatalogBuilder builder;
  for (const auto& [name, text] : documents) {
    try {
      builder.add_document(YamlDocument::parse(text, name).root());
    } catch (const InputFailure& failure) {
      builder.add_error(failure.error());
    }
  }
  return builder.finish();
}

Result<Catalog> Catalog::load(const std::vector<std::string>& directories) {
  CatalogBuilder builder;
  for (const auto& directory : directories) {
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error)) {
      builder.add_error({{directory, 0, 0}, "", "catalog folder does not exist"});
      continue;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
      const auto extension = entry.path().extension();
      if (entry.is_regular_file() && (extension == ".yaml" || extension == ".yml"))
        files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      try {
        builder.add_document(YamlDocument::load(file.string()).root());
      } catch (const InputFailure& failure) {
        builder.add_error(failure.error());
      }
    }
  }
  return builder.finish();
}

namespace {

template <class Part>
Result<bool> fill_typical(std::vector<Part>& parts, std::string_view id, Power typical,
                          TypicalPowerNote& note) {
  for (Part& part : parts) {
    if (part.info.id != id) continue;
    if (part.power_typical) return false;  // the catalog file's own figure governs
    if (typical > part.power_max) {
      return InputError{part.info.defined_at, part.info.id + ".power_typical",
                        "typical power " + format_power(typical) + " (" + note.basis + ": " + note.source +
                            ") exceeds power_max " + format_power(part.power_max)};
    }
    part.power_typical = typical;
    part.typical_note = std::move(note);
    return true;
  }
  return false;
}

template <class Part>
Result<bool> set_capped(std::vector<Part>& parts, std::string_view id, Power power_max, Power typical,
                        TypicalPowerNote& note) {
  for (Part& part : parts) {
    if (part.info.id != id) continue;
    if (power_max > part.power_max || typical > power_max) {
      return InputError{part.info.defined_at, part.info.id + ".power_max",
                        "capped power " + format_power(power_max) + " (typical " + format_power(typical) +
                            ") is not within power_max " + format_power(part.power_max)};
    }
    part.power_max = power_max;
    part.power_typical = typical;
    part.typical_note = std::move(note);
    return true;
  }
  return false;
}

}  // namespace

Result<bool> Catalog::set_capped_power(std::string_view id, Power power_max, Power typical,
                                       TypicalPowerNote note) {
  if (kind_of(id) == "rack_system") return set_capped(rack_systems_, id, power_max, typical, note);
  return set_capped(systems_, id, power_max, typical, note);
}

Result<bool> Catalog::fill_typical_power(std::string_view id, Power typical, TypicalPowerNote note) {
  if (kind_of(id) == "rack_system") return fill_typical(rack_systems_, id, typical, note);
  return fill_typical(systems_, id, typical, note);
}

std::string Catalog::kind_of(std::string_view id) const {
  const auto found = kinds_.find(std::string(id));
  return found == kinds_.end() ? std::string() : found->second;
}

std::vector<std::string> Catalog::ids() const {
  std::vector<std::string> result;
  result.reserve(kinds_.size());
  for (const auto& [id, kind] : kinds_) result.push_back(id);
  std::sort(result.begin(), result.end());
  return result;
}

const PartInfo* Catalog::info(std::string_view id) const {
  const std::string kind = kind_of(id);
  const PartInfo* found = nullptr;
  auto look = [&](const auto& parts) {
    for (const auto& part : parts) {
      if (part.info.id == id) found = &part.info;
    }
  };
  look(accelerators_);
  look(mig_profile_sets_);
  look(systems_);
  look(appliances_);
  look(switches_);
  look(transceivers_);
  look(cables_);
  look(circuits_);
  look(pdus_);
  look(coolings_);
  look(facility_defaults_);
  look(rack_systems_);
  look(cdus_);
  look(busbars_);
  look(coolants_);
  look(storage_tiers_);
  return kind.empty() ? nullptr : found;
}

}  // namespace gputwin
