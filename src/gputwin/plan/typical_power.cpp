#include "gputwin/plan/typical_power.hpp"

#include <string>
#include <vector>

#include "gputwin/perf/system_power.hpp"

namespace gputwin {
namespace {

template <class Part, class Typical>
Result<int> fill_all(Catalog& catalog, Typical typical_of) {
  std::vector<std::string> ids;
  for (const Part& part : catalog.all<Part>()) ids.push_back(part.info.id);
  int filled = 0;
  for (const std::string& id : ids) {
    const auto typical = typical_of(catalog.get<Part>(id));
    if (!typical) continue;
    const auto done = catalog.fill_typical_power(id, typical->training, typical->note);
    if (!done.ok()) return done.errors();
    filled += done.value() ? 1 : 0;
  }
  return filled;
}

}  // namespace

Result<int> fill_typical_power(Catalog& catalog, const PowerModelData& model) {
  const auto systems = fill_all<System>(
      catalog, [&](const System& system) { return typical_system_power(model, catalog, system); });
  if (!systems.ok()) return systems;
  const auto racks = fill_all<RackSystem>(
      catalog, [&](const RackSystem& rack) { return typical_rack_system_power(model, catalog, rack); });
  if (!racks.ok()) return racks;
  return systems.value() + racks.value();
}

}  // namespace gputwin
