// Shared fixtures of the perf tests: the bundled model presets and the published figures of
// data/reference/training.yaml (read with yaml-cpp: tests compare against them, they do not configure
// anything).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "gputwin/perf/model.hpp"

namespace gputwin::testing {

inline std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

inline const std::vector<TransformerModel>& model_presets() {
  static const std::vector<TransformerModel> presets =
      load_model_presets(source_path("data/perf/models.yaml")).value();
  return presets;
}

inline const YAML::Node& training_reference() {
  static const YAML::Node reference = YAML::LoadFile(source_path("data/reference/training.yaml"));
  return reference;
}

// A GPT-style shape as the Megatron papers use it: 4h MLP, learned positions, tied embeddings, biases.
inline TransformerModel megatron_gpt(int layers, int hidden, int heads, int vocab, int sequence) {
  TransformerModel m;
  m.name = "custom";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.vocab = vocab;
  m.tied_embeddings = true;
  m.biases = true;
  m.position_embeddings = sequence;
  return m;
}

}  // namespace gputwin::testing
