#include "gputwin/perf/model.hpp"

#include <cmath>
#include <cstdlib>

#include "gputwin/core/units.hpp"
#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

// Weights of one transformer layer: attention (query and output projections h x h; key and value projections
// h x kv_heads*head_dim each, which grouped-query attention shrinks), the MLP (two matrices, three when
// gated) and two norms (a weight vector each, plus a bias vector for LayerNorm).
double layer_parameters(const TransformerModel& m) {
  const double h = m.hidden;
  const double kv_width = static_cast<double>(m.kv_heads) * m.head_dim();
  const double attention = 2 * h * h + 2 * h * kv_width;
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * h * m.ffn_hidden;
  double norms = 2 * h;
  double biases = 0;
  if (m.biases) {
    norms += 2 * h;
    biases = (h + 2 * kv_width) + h                           // QKV and attention output
             + (m.gated_mlp ? 2.0 : 1.0) * m.ffn_hidden + h;  // MLP up (and gate) and down
  }
  return attention + mlp + norms + biases;
}

TransformerModel read_model(const YamlField& field) {
  field.expect_keys({"id", "name", "source", "layers", "hidden", "heads", "kv_heads", "ffn_hidden",
                     "gated_mlp", "vocab", "tied_embeddings", "biases", "position_embeddings",
                     "published_parameters", "published_parameters_nominal", "notes"});
  TransformerModel m;
  m.name = field.child("id").text();
  m.source = field.child("source").text_or_list();
  m.layers = static_cast<int>(field.child("layers").positive_integer());
  m.hidden = static_cast<int>(field.child("hidden").positive_integer());
  m.heads = static_cast<int>(field.child("heads").positive_integer());
  m.kv_heads = field.has("kv_heads") ? static_cast<int>(field.child("kv_heads").positive_integer()) : m.heads;
  m.ffn_hidden = static_cast<int>(field.child("ffn_hidden").positive_integer());
  m.gated_mlp = field.child("gated_mlp").boolean();
  m.vocab = static_cast<int>(field.child("vocab").positive_integer());
  m.tied_embeddings = field.child("tied_embeddings").boolean();
  m.biases = field.child("biases").boolean();
  if (auto positions = field.optional_child("position_embeddings")) {
    m.position_embeddings = static_cast<int>(positions->non_negative_integer());
  }
  if (auto published = field.optional_child("published_parameters")) {
    m.published_parameters = published->text();
    if (parse_parameter_count(m.published_parameters) <= 0) {
      published->fail("expected a count such as '70.6B' or '350M', got '" + m.published_parameters + "'");
    }
  }
  if (auto nominal = field.optional_child("published_parameters_nominal")) {
    m.published_parameters_nominal = nominal->boolean();
  }
  if (m.hidden % m.heads != 0) field.child("heads").fail("hidden must be a multiple of heads");
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

double TransformerModel::parameters() const {
  const double h = hidden;
  const double embeddings =
      (tied_embeddings ? 1.0 : 2.0) * vocab * h + static_cast<double>(position_embeddings) * h;
  const double final_norm = (biases ? 2.0 : 1.0) * h;
  return layers * layer_parameters(*this) + embeddings + final_norm;
}

// Keys and values of every layer for one token: 2 x layers x kv_heads x head_dim elements.
double TransformerModel::kv_cache_bytes_per_token(double bytes_per_element) const {
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
