// Every catalog system's typical power from the power model (perf/system_power.hpp), filled into the catalog
// where its file gives none, so plan's typical IT power, energy and TCO and `catalog show` use it.
//
//   Catalog catalog = ...;
//   Result<PowerModelData> model = load_power_model(bundled_data_dir() + "/power/power-model.yaml");
//   Result<int> filled = fill_typical_power(catalog, model.value());   // systems given a typical power
#pragma once

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/error.hpp"
#include "gputwin/perf/power_model.hpp"

namespace gputwin {

// Fills systems first (a rack-scale system's typical power is its trays'), then rack systems; a system
// without GPUs keeps none. Returns how many parts were given one.
[[nodiscard]] Result<int> fill_typical_power(Catalog& catalog, const PowerModelData& model);

}  // namespace gputwin
