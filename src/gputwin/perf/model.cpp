#include "gputwin/perf/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "gputwin/core/units.hpp"
#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

double mlp_matrices(const TransformerModel& m, double inner) {
  return (m.gated_mlp ? 3.0 : 2.0) * m.hidden * inner;
}

// Bias vectors of one MLP (up, and gate when gated; down) when the model's linear layers carry biases.
double mlp_biases(const TransformerModel& m, double inner) {
  return m.biases ? (m.gated_mlp ? 2.0 : 1.0) * inner + m.hidden : 0.0;
}

// Weights beside the attention matrices: Q, K, V and output biases; MLA's two latent RMSNorms.
double attention_other_parameters(const TransformerModel& m) {
  if (m.is_latent_attention()) return static_cast<double>(m.mla.q_lora_rank) + m.mla.kv_lora_rank;
  if (!m.biases) return 0;
  const double kv_width = static_cast<double>(m.kv_heads) * m.head_dim();
  return static_cast<double>(m.heads) * m.qk_head_dim() + 2 * kv_width + m.hidden;
}

// One routed expert with its biases.
double expert_parameters(const TransformerModel& m) {
  return m.expert_matrix_parameters() + mlp_biases(m, m.moe.expert_ffn_hidden);
}

double moe_mlp_parameters(const TransformerModel& m) {
  const double shared_biases = m.moe.shared_experts * mlp_biases(m, m.moe.shared_expert_ffn_hidden);
  return m.moe.experts * expert_parameters(m) + m.shared_expert_matrix_parameters() + shared_biases +
         m.router_parameters();
}

// Weights of every layer but the MLP: attention and two norms (a weight vector each, plus a bias vector for
// LayerNorm).
double layer_parameters_without_mlp(const TransformerModel& m) {
  const double norms = (m.norm_bias() ? 4.0 : 2.0) * m.hidden;
  return m.attention_matrix_parameters() + attention_other_parameters(m) + norms;
}

int read_int(const YamlField& field, bool positive) {
  return static_cast<int>(positive ? field.positive_integer() : field.non_negative_integer());
}

MixtureOfExperts read_moe(const YamlField& field, int layers) {
  field.expect_keys({"experts", "experts_per_token", "expert_ffn_hidden", "shared_experts",
                     "shared_expert_ffn_hidden", "dense_layers", "layer_frequency", "router_bias"});
  MixtureOfExperts moe;
  moe.experts = read_int(field.child("experts"), true);
  moe.experts_per_token = read_int(field.child("experts_per_token"), true);
  moe.expert_ffn_hidden = read_int(field.child("expert_ffn_hidden"), true);
  if (auto shared = field.optional_child("shared_experts")) moe.shared_experts = read_int(*shared, false);
  moe.shared_expert_ffn_hidden = moe.expert_ffn_hidden;
  if (auto size = field.optional_child("shared_expert_ffn_hidden")) {
    if (moe.shared_experts == 0) size->fail("a shared expert size without shared_experts");
    moe.shared_expert_ffn_hidden = read_int(*size, true);
  }
  if (auto dense = field.optional_child("dense_layers")) moe.dense_layers = read_int(*dense, false);
  if (auto frequency = field.optional_child("layer_frequency"))
    moe.layer_frequency = read_int(*frequency, true);
  if (auto bias = field.optional_child("router_bias")) moe.router_bias = bias->boolean();
  if (moe.experts_per_token > moe.experts) {
    field.child("experts_per_token")
        .fail("top-k of " + std::to_string(moe.experts_per_token) + " exceeds the " +
              std::to_string(moe.experts) + " routed experts");
  }
  if (moe.dense_layers >= layers) {
    field.child("dense_layers")
        .fail("leaves no layer for the experts (the model has " + std::to_string(layers) + " layers)");
  }
  if ((layers - moe.dense_layers) / moe.layer_frequency == 0) {
    field.child("layer_frequency").fail("leaves no layer for the experts");
  }
  return moe;
}

LatentAttention read_mla(const YamlField& field) {
  field.expect_keys({"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  LatentAttention mla;
  mla.q_lora_rank = read_int(field.child("q_lora_rank"), false);
  mla.kv_lora_rank = read_int(field.child("kv_lora_rank"), true);
  mla.qk_nope_head_dim = read_int(field.child("qk_nope_head_dim"), true);
  mla.qk_rope_head_dim = read_int(field.child("qk_rope_head_dim"), true);
  mla.v_head_dim = read_int(field.child("v_head_dim"), true);
  return mla;
}

void read_sliding_window(const YamlField& field, TransformerModel& m) {
  field.expect_keys({"tokens", "full_attention_every"});
  m.sliding_window = read_int(field.child("tokens"), true);
  if (auto every = field.optional_child("full_attention_every"))
    m.full_attention_every = read_int(*every, false);
}

void read_published(const YamlField& field, std::string& count) {
  count = field.text();
  if (parse_parameter_count(count) <= 0) {
    field.fail("expected a count such as '70.6B' or '350M', got '" + count + "'");
  }
}

TransformerModel read_model(const YamlField& field) {
  field.expect_keys({"id",
                     "name",
                     "source",
                     "layers",
                     "hidden",
                     "heads",
                     "kv_heads",
                     "head_dim",
                     "ffn_hidden",
                     "gated_mlp",
                     "vocab",
                     "tied_embeddings",
                     "biases",
                     "rms_norm",
                     "position_embeddings",
                     "moe",
                     "mla",
                     "sliding_window",
                     "published_parameters",
                     "published_parameters_nominal",
                     "published_active_parameters",
                     "published_active_without_input_embedding",
                     "notes"});
  TransformerModel m;
  m.name = field.child("id").text();
  m.source = field.child("source").text_or_list();
  m.layers = read_int(field.child("layers"), true);
  m.hidden = read_int(field.child("hidden"), true);
  m.heads = read_int(field.child("heads"), true);
  m.kv_heads = field.has("kv_heads") ? read_int(field.child("kv_heads"), true) : m.heads;
  if (auto head_dim = field.optional_child("head_dim")) m.explicit_head_dim = read_int(*head_dim, true);
  m.ffn_hidden = read_int(field.child("ffn_hidden"), true);
  m.gated_mlp = field.child("gated_mlp").boolean();
  m.vocab = read_int(field.child("vocab"), true);
  m.tied_embeddings = field.child("tied_embeddings").boolean();
  m.biases = field.child("biases").boolean();
  if (auto rms = field.optional_child("rms_norm")) m.rms_norm = rms->boolean();
  if (auto positions = field.optional_child("position_embeddings")) {
    m.position_embeddings = read_int(*positions, false);
  }
  if (auto moe = field.optional_child("moe")) m.moe = read_moe(*moe, m.layers);
  if (auto mla = field.optional_child("mla")) {
    m.mla = read_mla(*mla);
    if (m.explicit_head_dim > 0) field.child("head_dim").fail("latent attention gives its head sizes in mla");
    if (m.biases) field.child("biases").fail("biases on latent attention are not modelled");
  }
  if (auto window = field.optional_child("sliding_window")) read_sliding_window(*window, m);
  if (auto published = field.optional_child("published_parameters"))
    read_published(*published, m.published_parameters);
  if (auto nominal = field.optional_child("published_parameters_nominal")) {
    m.published_parameters_nominal = nominal->boolean();
  }
  if (auto active = field.optional_child("published_active_parameters")) {
    read_published(*active, m.published_active_parameters);
  }
  if (auto without = field.optional_child("published_active_without_input_embedding")) {
    m.published_active_without_input_embedding = without->boolean();
  }
  if (m.explicit_head_dim == 0 && !m.is_latent_attention() && m.hidden % m.heads != 0) {
    field.child("heads").fail("hidden must be a multiple of heads (or give head_dim)");
  }
  if (m.heads % m.kv_heads != 0) field.child("kv_heads").fail("heads must be a multiple of kv_heads");
  return m;
}

std::vector<TransformerModel> read_presets(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"models"});
  std::vector<TransformerModel> models;
  for (const YamlField& item : root.child("models").items()) {
    TransformerModel model = read_model(item);
    if (find_model(models, model.name) != nullptr)
      item.child("id").fail("duplicate model id '" + model.name + "'");
    models.push_back(std::move(model));
  }
  return models;
}

}  // namespace

int TransformerModel::moe_layer_count() const {
  if (!is_moe() || layers <= moe.dense_layers) return 0;
  return (layers - moe.dense_layers) / std::max(1, moe.layer_frequency);
}

int TransformerModel::dense_layer_count() const {
  return layers - moe_layer_count();
}

int TransformerModel::sliding_window_layer_count() const {
  if (sliding_window <= 0) return 0;
  return full_attention_every > 0 ? layers - layers / full_attention_every : layers;
}

int TransformerModel::qk_head_dim() const {
  return is_latent_attention() ? mla.qk_nope_head_dim + mla.qk_rope_head_dim : head_dim();
}

int TransformerModel::v_head_dim() const {
  return is_latent_attention() ? mla.v_head_dim : head_dim();
}

double TransformerModel::attention_matrix_parameters() const {
  const double h = hidden, a = heads;
  const double output = a * v_head_dim() * h;
  if (is_latent_attention()) {
    const double query = mla.q_lora_rank > 0 ? h * mla.q_lora_rank + mla.q_lora_rank * a * qk_head_dim()
                                             : h * a * qk_head_dim();
    const double key_value =
        h * (mla.kv_lora_rank + mla.qk_rope_head_dim) +
        static_cast<double>(mla.kv_lora_rank) * a * (mla.qk_nope_head_dim + mla.v_head_dim);
    return query + key_value + output;
  }
  const double kv_width = static_cast<double>(kv_heads) * head_dim();
  return h * a * qk_head_dim() + 2 * h * kv_width + output;
}

double TransformerModel::dense_mlp_matrix_parameters() const {
  return mlp_matrices(*this, ffn_hidden);
}

double TransformerModel::expert_matrix_parameters() const {
  return is_moe() ? mlp_matrices(*this, moe.expert_ffn_hidden) : 0.0;
}

double TransformerModel::shared_expert_matrix_parameters() const {
  return is_moe() ? moe.shared_experts * mlp_matrices(*this, moe.shared_expert_ffn_hidden) : 0.0;
}

double TransformerModel::router_parameters() const {
  if (!is_moe()) return 0;
  return static_cast<double>(moe.experts) * hidden + (moe.router_bias ? moe.experts : 0);
}

double TransformerModel::input_embedding_parameters() const {
  return (static_cast<double>(vocab) + position_embeddings) * hidden;
}

double TransformerModel::parameters() const {
  const double h = hidden;
  const double embeddings =
      (tied_embeddings ? 1.0 : 2.0) * vocab * h + static_cast<double>(position_embeddings) * h;
  const double final_norm = (norm_bias() ? 2.0 : 1.0) * h;
  const double dense_mlp = dense_mlp_matrix_parameters() + mlp_biases(*this, ffn_hidden);
  return layers * layer_parameters_without_mlp(*this) + dense_layer_count() * dense_mlp +
         moe_layer_count() * (is_moe() ? moe_mlp_parameters(*this) : 0.0) + embeddings + final_norm;
}

double TransformerModel::active_parameters() const {
  const double idle_experts = moe.experts - moe.experts_per_token;
  return parameters() - moe_layer_count() * idle_experts * (is_moe() ? expert_parameters(*this) : 0.0);
}

double TransformerModel::forward_matrix_flops_per_token() const {
  const double router_matrix = static_cast<double>(moe.experts) * hidden;  // its bias is no multiply-add
  const double moe_layer =
      moe.experts_per_token * expert_matrix_parameters() + shared_expert_matrix_parameters() + router_matrix;
  return 2 * (layers * attention_matrix_parameters() + dense_layer_count() * dense_mlp_matrix_parameters() +
              moe_layer_count() * moe_layer);
}

double TransformerModel::attention_score_flops_per_token(double sequence) const {
  const int windowed = sliding_window_layer_count();
  const double windowed_sequence = windowed > 0 ? std::min(sequence, static_cast<double>(sliding_window)) : 0;
  const double per_position = 2.0 * heads * (qk_head_dim() + v_head_dim());
  return per_position * ((layers - windowed) * sequence + windowed * windowed_sequence);
}

double TransformerModel::output_layer_flops_per_token() const {
  return 2.0 * hidden * vocab;
}

// Keys and values of every layer for one token: 2 x layers x kv_heads x head_dim elements; with latent
// attention the compressed latent and the shared rope key, layers x (kv_lora + rope).
double TransformerModel::kv_cache_bytes_per_token(double bytes_per_element) const {
  if (is_latent_attention()) {
    return static_cast<double>(layers) * (mla.kv_lora_rank + mla.qk_rope_head_dim) * bytes_per_element;
  }
  return 2.0 * layers * kv_heads * head_dim() * bytes_per_element;
}

Result<std::vector<TransformerModel>> load_model_presets(const std::string& path) {
  return result_of<std::vector<TransformerModel>>([&] { return read_presets(path); });
}

const TransformerModel* find_model(const std::vector<TransformerModel>& models, const std::string& name) {
  for (const auto& model : models) {
    if (model.name == name) return &model;
  }
  return nullptr;
}

std::string model_names(const std::vector<TransformerModel>& models) {
  std::string names;
  for (const auto& model : models) names += (names.empty() ? "" : ", ") + model.name;
  return names;
}

TransformerModel megatron_gpt_shape(const std::string& name, int layers, int hidden, int heads, int vocab,
                                    int sequence) {
  TransformerModel m;
  m.name = name;
  m.source = "Megatron GPT shape (4h MLP, learned positions, tied embeddings, biases)";
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

}  // namespace gputwin
