// Shared fixtures of the perf tests: the bundled model presets and the published figures of
// data/reference/training.yaml (read with yaml-cpp: tests compare against them, they do not configure
// anything).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "gputwin/catalog/catalog.hpp"
#include "gputwin/core/test_text.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/training.hpp"

namespace gputwin::testing {

inline const std::vector<TransformerModel>& model_presets() {
  static const std::vector<TransformerModel> presets =
      load_model_presets(source_path("data/perf/models.yaml")).value();
  return presets;
}

// The bundled catalog, collective model and training calibration, loaded once for all perf tests.
struct PerfSetup {
  Catalog catalog = Catalog::load({source_path("data/catalog")}).value();
  CollectiveModel collectives = load_collective_model(source_path("data/perf/nccl-cost-model.yaml")).value();
  TrainingCalibration calibration =
      load_training_calibration(source_path("data/perf/training-model.yaml")).value();
  [[nodiscard]] PerfHardware hw(int nodes) const {
    return perf_hardware_of_system(catalog, "dgx-a100", nodes).value();
  }
};

inline const PerfSetup& perf_setup() {
  static const PerfSetup setup;
  return setup;
}

// The bundled power model (data/power/power-model.yaml), loaded once.
inline const PowerModelData& bundled_power_model() {
  static const PowerModelData data = load_power_model(source_path("data/power/power-model.yaml")).value();
  return data;
}

inline const YAML::Node& training_reference() {
  static const YAML::Node reference = YAML::LoadFile(source_path("data/reference/training.yaml"));
  return reference;
}

// A GPT-style shape as the Megatron papers use it, given by its numbers rather than a preset.
inline TransformerModel megatron_gpt(int layers, int hidden, int heads, int vocab, int sequence) {
  return megatron_gpt_shape("custom", layers, hidden, heads, vocab, sequence);
}

}  // namespace gputwin::testing
