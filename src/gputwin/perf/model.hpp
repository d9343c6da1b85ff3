// A transformer language model's shape, from which parameters, FLOPs, memory and KV cache follow.
//
//   Result<std::vector<TransformerModel>> presets = load_model_presets(bundled_data_dir() +
//   "/perf/models.yaml"); const TransformerModel* llama = find_model(presets.value(), "llama3-70b"); double
//   params = llama->parameters();             // counted from the shapes, not copied from a model card double
//   kv = llama->kv_cache_bytes_per_token(2);  // 2 bytes per element (fp16/bf16)
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"

namespace gputwin {

struct TransformerModel {
  std::string name;    // preset id, e.g. "llama3-70b", "gpt3-175b"; "custom" for one given by flags
  std::string source;  // where the shape was read (model card / config.json / paper table)
  int layers = 0;
  int hidden = 0;          // h
  int heads = 0;           // attention (query) heads
  int kv_heads = 0;        // key/value heads (grouped-query attention); = heads for multi-head attention
  int ffn_hidden = 0;      // MLP inner size (4h for GPT; e.g. 28672 for Llama-3-70B)
  bool gated_mlp = false;  // SwiGLU-style MLP with three weight matrices (Llama) instead of two (GPT)
  int vocab = 0;
  bool tied_embeddings = false;  // input embedding and output layer share weights
  bool biases = false;  // linear layers and LayerNorms carry biases (GPT-2/3, Megatron GPT); Llama: none
  int position_embeddings = 0;  // learned absolute positions (GPT: the context length); 0 = rotary (Llama)
  std::string published_parameters;  // the count its source prints ("70.6B", "175B"); empty when none
  bool published_parameters_nominal = false;  // the printed count is a size name, not a rounded count

  [[nodiscard]] int head_dim() const { return hidden / heads; }
  [[nodiscard]] double parameters() const;  // counted from the shapes
  [[nodiscard]] double kv_cache_bytes_per_token(double bytes_per_element) const;
};

// A GPT shape as the Megatron papers use it: 4h MLP, learned positions (the sequence length), tied embeddings,
// biases; multi-head attention.
[[nodiscard]] TransformerModel megatron_gpt_shape(const std::string& name, int layers, int hidden, int heads,
                                                  int vocab, int sequence);

[[nodiscard]] Result<std::vector<TransformerModel>> load_model_presets(const std::string& path);
[[nodiscard]] const TransformerModel* find_model(const std::vector<TransformerModel>& models,
                                                 const std::string& name);
// "gpt3-175b, llama3-70b, ..." for error messages.
[[nodiscard]] std::string model_names(const std::vector<TransformerModel>& models);

}  // namespace gputwin
