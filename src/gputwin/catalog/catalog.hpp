// The hardware catalog: every part gputwin knows, loaded from YAML folders, with references checked.
//
//   Result<Catalog> loaded = Catalog::load({"data/catalog", "my-parts/"});
//   if (!loaded.ok()) { std::cerr << loaded.error_text(); return 1; }
//   const Catalog& catalog = loaded.value();
//   const System& node = catalog.get<System>("dgx-h100");
//   const Accelerator& gpu = catalog.get<Accelerator>(node.accelerator);
//
// An id defined twice, or a reference to an id no file defines, is an error naming file, line and field.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/error.hpp"

namespace gputwin {

class Catalog {
 public:
  // Loads every *.yaml file in each directory (sorted by name, directories in the order given).
  [[nodiscard]] static Result<Catalog> load(const std::vector<std::string>& directories);
  // Loads from in-memory documents (name, text); used by tests.
  [[nodiscard]] static Result<Catalog> parse(
      const std::vector<std::pair<std::string, std::string>>& documents);

  template <class Part>
  [[nodiscard]] const std::vector<Part>& all() const;

  template <class Part>
  [[nodiscard]] const Part* find(std::string_view id) const {
    for (const auto& part : all<Part>()) {
      if (part.info.id == id) return &part;
    }
    return nullptr;
  }

  // For ids already checked (references resolved at load time).
  template <class Part>
  [[nodiscard]] const Part& get(std::string_view id) const {
    const Part* part = find<Part>(id);
    if (part == nullptr) throw std::out_of_range("catalog has no part '" + std::string(id) + "'");
    return *part;
  }

  // Gives a system or rack system the typical power its catalog entry left unset, with where it comes from
  // (plan's load_catalog, from the power model). A typical power the catalog file gives is kept; a figure
  // above the part's power_max is an error naming the part.
  [[nodiscard]] Result<bool> fill_typical_power(std::string_view id, Power typical, TypicalPowerNote note);

  // A system's or rack system's power with its GPUs under a power cap (plan within a facility power budget,
  // plan/power_budget): `power_max` and `typical` replace its figures, `note` says how they were derived. A
  // maximum above the part's own or a typical above the new maximum is an error naming the part.
  [[nodiscard]] Result<bool> set_capped_power(std::string_view id, Power power_max, Power typical,
                                              TypicalPowerNote note);

  // "accelerator", "system", ... for the part with this id; empty when unknown.
  [[nodiscard]] std::string kind_of(std::string_view id) const;
  [[nodiscard]] std::vector<std::string> ids() const;
  [[nodiscard]] const PartInfo* info(std::string_view id) const;

 private:
  friend class CatalogBuilder;
  std::vector<Accelerator> accelerators_;
  std::vector<MigProfileSet> mig_profile_sets_;
  std::vector<System> systems_;
  std::vector<Appliance> appliances_;
  std::vector<Switch> switches_;
  std::vector<Transceiver> transceivers_;
  std::vector<Cable> cables_;
  std::vector<Circuit> circuits_;
  std::vector<Pdu> pdus_;
  std::vector<Cooling> coolings_;
  std::vector<FacilityDefaults> facility_defaults_;
  std::vector<RackSystem> rack_systems_;
  std::vector<CoolantDistributionUnit> cdus_;
  std::vector<BusbarFeed> busbars_;
  std::vector<Coolant> coolants_;
  std::vector<StorageTierTable> storage_tiers_;
  std::unordered_map<std::string, std::string> kinds_;  // id -> kind
};

template <>
inline const std::vector<Accelerator>& Catalog::all() const {
  return accelerators_;
}
template <>
inline const std::vector<MigProfileSet>& Catalog::all() const {
  return mig_profile_sets_;
}
template <>
inline const std::vector<System>& Catalog::all() const {
  return systems_;
}
template <>
inline const std::vector<Appliance>& Catalog::all() const {
  return appliances_;
}
template <>
inline const std::vector<Switch>& Catalog::all() const {
  return switches_;
}
template <>
inline const std::vector<Transceiver>& Catalog::all() const {
  return transceivers_;
}
template <>
inline const std::vector<Cable>& Catalog::all() const {
  return cables_;
}
template <>
inline const std::vector<Circuit>& Catalog::all() const {
  return circuits_;
}
template <>
inline const std::vector<Pdu>& Catalog::all() const {
  return pdus_;
}
template <>
inline const std::vector<Cooling>& Catalog::all() const {
  return coolings_;
}
template <>
inline const std::vector<FacilityDefaults>& Catalog::all() const {
  return facility_defaults_;
}

template <>
inline const std::vector<RackSystem>& Catalog::all() const {
  return rack_systems_;
}
template <>
inline const std::vector<CoolantDistributionUnit>& Catalog::all() const {
  return cdus_;
}
template <>
inline const std::vector<BusbarFeed>& Catalog::all() const {
  return busbars_;
}
template <>
inline const std::vector<Coolant>& Catalog::all() const {
  return coolants_;
}

template <>
inline const std::vector<StorageTierTable>& Catalog::all() const {
  return storage_tiers_;
}

}  // namespace gputwin
