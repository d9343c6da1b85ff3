// A transformer language model's shape, from which parameters, FLOPs, memory and KV cache follow.
//
//   auto presets = load_model_presets(bundled_data_dir() + "/perf/models.yaml");
//   const TransformerModel* dsv3 = find_model(presets.value(), "deepseek-v3");
//   double total = dsv3->parameters();          // counted from the shapes, not copied from a model card
//   double active = dsv3->active_parameters();  // what one token uses: top-k routed experts, not all
//   double flops = dsv3->forward_matrix_flops_per_token() + dsv3->output_layer_flops_per_token() +
//                  dsv3->attention_score_flops_per_token(4096) / 2;  // causal: callers halve the square
//   double kv = dsv3->kv_cache_bytes_per_token(2);  // 2 bytes per element (fp16/bf16)
//
// The rules, per token, 2 FLOPs per multiply-add (h = hidden, a = heads, g = kv_heads):
// - Attention matrices of one layer (attention_matrix_parameters):
//     multi-head / grouped-query: h a d_qk (Q) + 2 h g d (K, V) + a d_v h (output), d = head_dim();
//     a dense GPT/Llama shape (a d = h) gives 2h^2 + 2h g d, the count training.cpp used before MoE.
//   Multi-head latent attention (DeepSeek-V2/V3, Kimi K2):
//     Q: h q_lora + q_lora a (nope + rope) with a query compression (q_lora > 0), else h a (nope + rope);
//     KV: h (kv_lora + rope) down-projection (latent and the shared rope key) + kv_lora a (nope + v_head) up;
//     output: a v_head h. The two latent RMSNorms (q_lora + kv_lora weights) count in parameters() only.
// - MLP matrices: (3 if gated else 2) h f, with f = ffn_hidden on dense layers, moe.expert_ffn_hidden for one
//   routed expert, moe.shared_expert_ffn_hidden for each shared expert. The router of a MoE layer is one
//   h x experts matrix (plus a bias vector when moe.router_bias). Experts carry biases when the model's
//   linear layers do (biases: gpt-oss).
// - Which layers carry routed experts: the first moe.dense_layers are dense; of the rest, every
//   moe.layer_frequency-th is MoE (layer i >= k is MoE when (i - k + 1) % freq == 0; Llama 4 Maverick: freq
//   2, layers 1, 3, 5, ...). moe_layer_count() = (layers - k) / freq.
// - parameters(): every layer's attention, norms, biases and MLP (all routed and shared experts and the
//   router on MoE layers), the embeddings (one matrix when tied, plus learned positions), the final norm.
// - active_parameters(): parameters() less the routed experts a token does not use, (experts - top_k) per MoE
//   layer. Embedding tables count in full (as Mistral, Qwen and Meta print "active"; OpenAI and DeepSeek
//   leave the input embedding out: models.yaml says which convention each published figure uses).
// - forward_matrix_flops_per_token(): 2 x the matrices a token multiplies through in all layers: attention,
//   the dense MLPs, and on MoE layers top_k routed experts, the shared experts and the router. No output
//   layer, no norms or biases, no attention scores.
// - attention_score_flops_per_token(s): all layers, forward, Q K^T and scores x V over the full square:
//   2 x s_eff x a x (d_qk + d_v) per layer, s_eff = min(s, window) on sliding-window layers. For a dense
//   shape that is the 4 s h per layer training.cpp used. Callers apply the causal half themselves.
// - output_layer_flops_per_token(): 2 h vocab.
// - kv_cache_bytes_per_token(b): 2 x layers x g x d x b; with MLA the cache holds the compressed latent and
//   the shared rope key instead, layers x (kv_lora + rope) x b. A sliding window caps how many tokens a layer
//   keeps, not the bytes per token.
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"

namespace gputwin {

// Routed experts of a mixture-of-experts model; experts == 0 is a dense model.
struct MixtureOfExperts {
  int experts = 0;                   // routed experts per MoE layer
  int experts_per_token = 0;         // top-k routed experts each token uses
  int expert_ffn_hidden = 0;         // MLP inner size of one routed expert
  int shared_experts = 0;            // experts every token uses, beside the routed ones
  int shared_expert_ffn_hidden = 0;  // MLP inner size of one shared expert
  int dense_layers = 0;              // leading layers with a dense MLP (ffn_hidden) instead of experts
  int layer_frequency = 1;           // after them, every n-th layer is MoE (1: all)
  bool router_bias = false;          // the gate carries a bias vector (gpt-oss; DeepSeek's correction bias)
};

// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2); kv_lora_rank == 0 is ordinary attention.
struct LatentAttention {
  int q_lora_rank = 0;  // query compression; 0 = queries projected straight from the hidden state
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
};

struct TransformerModel {
  std::string name;    // preset id, e.g. "llama3-70b", "gpt3-175b"; "custom" for one given by flags
  std::string source;  // where the shape was read (model card / config.json / paper table)
  int layers = 0;
  int hidden = 0;          // h
  int heads = 0;           // attention (query) heads
  int kv_heads = 0;        // key/value heads (grouped-query attention); = heads for multi-head attention
  int ffn_hidden = 0;      // MLP inner size of a dense layer (4h for GPT; e.g. 28672 for Llama-3-70B)
  bool gated_mlp = false;  // SwiGLU-style MLP with three weight matrices (Llama) instead of two (GPT)
  int vocab = 0;
  bool tied_embeddings = false;  // input embedding and output layer share weights
  bool biases = false;    // linear layers and LayerNorms carry biases (GPT-2/3, Megatron GPT); Llama: none
  bool rms_norm = false;  // with biases: the norms are RMSNorm, a weight vector only (gpt-oss)
  int position_embeddings = 0;  // learned absolute positions (GPT: the context length); 0 = rotary (Llama)
  int explicit_head_dim = 0;    // head size when the config gives one that is not hidden/heads; 0 = h/a
  MixtureOfExperts moe;
  LatentAttention mla;
  int sliding_window = 0;            // tokens a windowed layer attends to; 0 = every layer attends to all
  int full_attention_every = 0;      // with a window: every n-th layer attends to all (gpt-oss: 2); 0 = none
  std::string published_parameters;  // the count its source prints ("70.6B", "175B"); empty when none
  bool published_parameters_nominal = false;  // the printed count is a size name, not a rounded count
  std::string published_active_parameters;    // parameters per token the source prints; empty when none
  bool published_active_without_input_embedding = false;  // that count leaves the input embedding out

  [[nodiscard]] int head_dim() const { return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads; }
  [[nodiscard]] bool norm_bias() const { return biases && !rms_norm; }
  [[nodiscard]] bool is_moe() const { return moe.experts > 0; }
  [[nodiscard]] bool is_latent_attention() const { return mla.kv_lora_rank > 0; }
  [[nodiscard]] int moe_layer_count() const;    // layers with routed experts
  [[nodiscard]] int dense_layer_count() const;  // layers - moe_layer_count()
  [[nodiscard]] int sliding_window_layer_count() const;
  [[nodiscard]] int qk_head_dim() const;  // per head, query/key (MLA: nope + rope)
  [[nodiscard]] int v_head_dim() const;

  [[nodiscard]] double attention_matrix_parameters() const;      // one layer's attention projections
  [[nodiscard]] double dense_mlp_matrix_parameters() const;      // one dense layer's MLP matrices
  [[nodiscard]] double expert_matrix_parameters() const;         // ONE routed expert's matrices (0 if dense)
  [[nodiscard]] double shared_expert_matrix_parameters() const;  // all shared experts of one MoE layer
  [[nodiscard]] double router_parameters() const;                // one MoE layer's gate (0 if dense)
  [[nodiscard]] double parameters() const;                       // total, counted from the shapes
  [[nodiscard]] double active_parameters() const;                // used per token (top-k experts)
  [[nodiscard]] double input_embedding_parameters() const;       // token (and position) embedding tables
  [[nodiscard]] double forward_matrix_flops_per_token() const;   // all layers' active matrices, x2
  [[nodiscard]] double attention_score_flops_per_token(double sequence) const;  // full square, forward
  [[nodiscard]] double output_layer_flops_per_token() const;                    // 2 x hidden x vocab
  [[nodiscard]] double kv_cache_bytes_per_token(double bytes_per_element) const;
};

// A GPT shape as the Megatron papers use it: 4h MLP, learned positions (the sequence length), tied
// embeddings, biases; multi-head attention.
[[nodiscard]] TransformerModel megatron_gpt_shape(const std::string& name, int layers, int hidden, int heads,
                                                  int vocab, int sequence);

[[nodiscard]] Result<std::vector<TransformerModel>> load_model_presets(const std::string& path);
[[nodiscard]] const TransformerModel* find_model(const std::vector<TransformerModel>& models,
                                                 const std::string& name);
// "gpt3-175b, llama3-70b, ..." for error messages.
[[nodiscard]] std::string model_names(const std::vector<TransformerModel>& models);

}  // namespace gputwin
