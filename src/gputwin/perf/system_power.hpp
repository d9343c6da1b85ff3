// A catalog system's typical power under training (and under a loaded inference server where a GPU draw for
// it is published): a published measured draw of the system where one exists, else the power model's.
//
//   Result<PowerModelData> data = load_power_model(bundled_data_dir() + "/power/power-model.yaml");
//   std::optional<SystemTypicalPower> t = typical_system_power(data.value(), catalog,
//   catalog.get<System>("dgx-b200"));
//   // t->training: 8 GPUs at the training phase mix's draw + the non-GPU power; t->note.basis == "modelled"
//
// Modelled: each GPU at the training phase mix of data/power/power-model.yaml (a stated parameter:
// compute-bound share at the default limit, memory-bound share at the memory-bound draw, idle share at idle),
// plus the system's non-GPU power (power_max - GPUs x TDP, a maximum). A rack-scale system is its compute
// trays at their typical power plus its NVLink switch trays at their maximum. A system with no GPUs has no
// typical power here.
#pragma once

#include <optional>
#include <string>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/perf/power_model.hpp"

namespace gputwin {

struct SystemTypicalPower {
  std::string system;
  Power training;
  TypicalPowerNote note;
};

// One GPU's average draw under the training phase mix at its default limit.
[[nodiscard]] Power typical_training_gpu_draw(const PowerModelData& data, const Accelerator& accelerator);

[[nodiscard]] std::optional<SystemTypicalPower> typical_system_power(const PowerModelData& data,
                                                                     const Catalog& catalog,
                                                                     const System& system);

[[nodiscard]] std::optional<SystemTypicalPower> typical_rack_system_power(const PowerModelData& data,
                                                                          const Catalog& catalog,
                                                                          const RackSystem& rack);

}  // namespace gputwin
