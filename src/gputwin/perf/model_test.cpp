#include "gputwin/perf/model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>

#include "gputwin/core/units.hpp"
#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::megatron_gpt;
using testing::model_presets;
using testing::training_reference;

// Decimal places of the mantissa of a printed count such as "70.6B" (1) or "175B" (0).
int printed_decimals(const std::string& text) {
  const auto dot = text.find('.');
  return dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 2);
}

TEST(ModelPresets, EveryRequiredPresetLoads) {
  for (const char* name : {"gpt3-125m", "gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b",
                           "llama3-70b", "llama3.1-405b"}) {
    EXPECT_NE(find_model(model_presets(), name), nullptr) << name;
  }
  EXPECT_EQ(find_model(model_presets(), "llama3-65b"), nullptr);
}

TEST(ModelPresets, CountsFromShapesMatchPublishedCountsAtThePrintedPrecision) {
  int checked = 0;
  for (const auto& model : model_presets()) {
    if (model.published_parameters.empty()) continue;
    const double published = parse_parameter_count(model.published_parameters);
    const double counted = model.parameters();
    if (model.published_parameters_nominal) {
      EXPECT_NEAR(counted / published, 1.0, 0.02) << model.name << " counted " << counted;
    } else {
      const char unit = model.published_parameters.back();
      const double scale = unit == 'T' ? 1e12 : unit == 'B' ? 1e9 : 1e6;
      const double factor = std::pow(10.0, printed_decimals(model.published_parameters));
      EXPECT_DOUBLE_EQ(std::round(counted / scale * factor) / factor, published / scale)
          << model.name << " counted " << counted;
    }
    ++checked;
  }
  EXPECT_GE(checked, 28);
}

TEST(ModelPresets, GroupedQueryAttentionShrinksOnlyKeyAndValueProjections) {
  TransformerModel llama = *find_model(model_presets(), "llama3-70b");
  TransformerModel full_attention = llama;
  full_attention.kv_heads = llama.heads;
  const double h = llama.hidden;
  const double kv_width = static_cast<double>(llama.kv_heads) * llama.head_dim();
  EXPECT_DOUBLE_EQ(full_attention.parameters() - llama.parameters(), llama.layers * 2 * h * (h - kv_width));
}

// Narayanan et al.: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)). Our count adds the final LayerNorm (2h),
// which the formula leaves out.
TEST(ModelPresets, GptShapesFollowTheMegatronParameterFormulaAndTable1) {
  const YAML::Node table = training_reference()["megatron_table_1"];
  const int vocab = table["vocab"].as<int>();
  const int sequence = table["sequence"].as<int>();
  for (const auto& row : table["rows"]) {
    const double published_billion = row[0].as<double>();
    const int heads = row[1].as<int>(), hidden = row[2].as<int>(), layers = row[3].as<int>();
    const TransformerModel model = megatron_gpt(layers, hidden, heads, vocab, sequence);
    const double l = layers, h = hidden;
    const double formula = 12 * l * h * h * (1 + 13 / (12 * h) + (vocab + sequence) / (12 * l * h));
    EXPECT_DOUBLE_EQ(model.parameters() - 2 * h, formula) << published_billion;
    EXPECT_NEAR(model.parameters() / 1e9, published_billion, 0.05 + 1e-9) << published_billion;
  }
}

TEST(ModelPresets, KvCachePerTokenIsPublishedFigure) {
  const YAML::Node examples = training_reference()["kv_cache_examples"];
  const double bytes_per_element = examples["bytes_per_element"].as<double>();
  for (const auto& entry : examples["kib_per_token"]) {
    const auto* model = find_model(model_presets(), entry.first.as<std::string>());
    ASSERT_NE(model, nullptr) << entry.first;
    EXPECT_DOUBLE_EQ(model->kv_cache_bytes_per_token(bytes_per_element) / 1024, entry.second.as<double>())
        << entry.first;
  }
}

// --- Mixture of experts, latent and windowed attention
// -------------------------------------------------------

const TransformerModel& preset(const std::string& name) {
  const TransformerModel* model = find_model(model_presets(), name);
  if (model == nullptr) throw std::runtime_error("no preset " + name);
  return *model;
}

TEST(ModelPresets, EveryModelOfTheTrainingRunsHasAPresetOrAStatedReason) {
  const YAML::Node runs = YAML::LoadFile(testing::source_path("data/reference/training-runs.yaml"));
  std::ifstream in(testing::source_path("data/perf/models.yaml"));
  const std::string presets_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string no_preset_section = presets_text.substr(0, presets_text.find("\nmodels:"));
  int with_preset = 0;
  for (const auto& entry : runs["models"]) {
    const auto name = entry.first.as<std::string>();
    if (find_model(model_presets(), name) != nullptr) {
      ++with_preset;
    } else {
      EXPECT_NE(no_preset_section.find("- " + name), std::string::npos)
          << name << " has no preset and the header of models.yaml gives no reason";
    }
  }
  EXPECT_GE(with_preset, 24);
  for (const char* name :
       {"deepseek-v3", "kimi-k2", "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-120b", "gpt-oss-20b",
        "mixtral-8x7b", "mixtral-8x22b", "llama4-scout", "llama4-maverick"}) {
    EXPECT_TRUE(preset(name).is_moe()) << name;
  }
}

// Sources differ in what "active" includes (the embedding tables or not); models.yaml says which, and the
// count from the shapes must then be within 3 % of the printed figure.
TEST(ModelPresets, ActiveCountsFromShapesMatchPublishedActiveCounts) {
  int checked = 0;
  for (const auto& model : model_presets()) {
    if (model.published_active_parameters.empty()) continue;
    const double published = parse_parameter_count(model.published_active_parameters);
    double counted = model.active_parameters();
    if (model.published_active_without_input_embedding) counted -= model.input_embedding_parameters();
    EXPECT_NEAR(counted / published, 1.0, 0.03) << model.name << " counted " << counted;
    EXPECT_LT(model.active_parameters(), 0.4 * model.parameters()) << model.name;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// The figures training.cpp computed for dense shapes before MoE: layer matrices 2h^2 + 2h kv_width + (3 or 2)
// h f, 4 s h of attention scores per layer, 2 h V for the output layer.
TEST(ModelPresets, DenseShapesKeepTheFormulasTrainingUsedBefore) {
  int checked = 0;
  for (const auto& m : model_presets()) {
    if (m.is_moe() || m.is_latent_attention() || m.explicit_head_dim > 0) continue;
    const double h = m.hidden, f = m.ffn_hidden, s = 4096;
    const double kv_width = static_cast<double>(m.kv_heads) * m.head_dim();
    const double layer_matrices = 2 * h * h + 2 * h * kv_width + (m.gated_mlp ? 3.0 : 2.0) * h * f;
    EXPECT_EQ(m.forward_matrix_flops_per_token(), m.layers * 2 * layer_matrices) << m.name;
    EXPECT_EQ(m.attention_score_flops_per_token(s), m.layers * 4 * s * h) << m.name;
    EXPECT_EQ(m.output_layer_flops_per_token(), 2 * h * m.vocab) << m.name;
    EXPECT_EQ(m.active_parameters(), m.parameters()) << m.name;
    EXPECT_EQ(m.moe_layer_count(), 0) << m.name;
    EXPECT_EQ(m.dense_layer_count(), m.layers) << m.name;
    EXPECT_EQ(m.expert_matrix_parameters() + m.router_parameters() + m.shared_expert_matrix_parameters(), 0);
    EXPECT_EQ(m.qk_head_dim(), m.v_head_dim()) << m.name;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

// Llama-3-70B by hand: 80 x (2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672) matrices, 80 x 2 x 8192 norms,
// two 128256 x 8192 embedding tables and the final norm.
TEST(ModelPresets, DenseCountIsUnchangedByTheNewFields) {
  const TransformerModel& llama = preset("llama3-70b");
  const double layer = 2.0 * 8192 * 8192 + 2.0 * 8192 * 1024 + 3.0 * 8192 * 28672 + 2.0 * 8192;
  EXPECT_EQ(llama.parameters(), 80 * layer + 2.0 * 128256 * 8192 + 8192);
  const TransformerModel& gpt = preset("gpt3-175b");  // biases and LayerNorm biases: 13h per layer, 2h final
  const double h = 12288;
  EXPECT_EQ(gpt.parameters(), 96 * (12 * h * h + 13 * h) + (50257.0 + 2048) * h + 2 * h);
}

TEST(ModelPresets, MoeLayersFollowTheLeadingDenseLayersAndTheFrequency) {
  EXPECT_EQ(preset("deepseek-v3").moe_layer_count(), 58);
  EXPECT_EQ(preset("deepseek-v3").dense_layer_count(), 3);
  EXPECT_EQ(preset("kimi-k2").moe_layer_count(), 60);
  EXPECT_EQ(preset("llama4-maverick").moe_layer_count(), 24);
  EXPECT_EQ(preset("llama4-maverick").dense_layer_count(), 24);
  EXPECT_EQ(preset("llama4-scout").moe_layer_count(), 48);
  EXPECT_EQ(preset("mixtral-8x7b").moe_layer_count(), 32);
  TransformerModel one_layer = preset("deepseek-v3");  // memory.cpp counts a layer with layers = 1
  one_layer.layers = 1;
  EXPECT_EQ(one_layer.moe_layer_count(), 0);
  EXPECT_EQ(one_layer.dense_layer_count(), 1);
}

// Mixtral 8x7B by hand: one expert is 3 x 4096 x 14336, the router 8 x 4096; a token uses 2 of the 8.
TEST(ModelPresets, ActiveParametersAndForwardFlopsCountTopKExperts) {
  const TransformerModel& m = preset("mixtral-8x7b");
  const double h = 4096, expert = 3 * h * 14336, router = 8 * h, attention = 2 * h * h + 2 * h * 1024;
  EXPECT_EQ(m.expert_matrix_parameters(), expert);
  EXPECT_EQ(m.router_parameters(), router);
  EXPECT_EQ(m.attention_matrix_parameters(), attention);
  EXPECT_EQ(m.parameters() - m.active_parameters(), 32 * 6 * expert);
  EXPECT_EQ(m.forward_matrix_flops_per_token(), 2 * 32 * (attention + 2 * expert + router));
  // The forward pass multiplies through every active weight but the embeddings and norms.
  const double embeddings_and_norms = 2 * 32000 * h + 32 * 2 * h + h;
  EXPECT_EQ(m.forward_matrix_flops_per_token(), 2 * (m.active_parameters() - embeddings_and_norms));
}

// DeepSeek-V3's multi-head latent attention by hand (config.json: h 7168, 128 heads, q_lora 1536, kv_lora
// 512, nope 128, rope 64, v 128): Q down 7168 x 1536 and up 1536 x 128 x 192; KV down 7168 x (512 + 64) and
// up 512 x 128 x (128 + 128); output 128 x 128 x 7168.
TEST(ModelPresets, LatentAttentionCountsCompressedProjectionsAndCachesTheLatent) {
  const TransformerModel& m = preset("deepseek-v3");
  EXPECT_EQ(m.qk_head_dim(), 192);
  EXPECT_EQ(m.v_head_dim(), 128);
  const double attention =
      7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168;
  EXPECT_EQ(m.attention_matrix_parameters(), attention);
  EXPECT_EQ(m.kv_cache_bytes_per_token(2), 61.0 * (512 + 64) * 2);
  EXPECT_LT(m.kv_cache_bytes_per_token(2), preset("llama3-70b").kv_cache_bytes_per_token(2));
  EXPECT_EQ(m.attention_score_flops_per_token(4096), 61 * 2.0 * 4096 * 128 * (192 + 128));
  // One shared expert and 8 routed ones per MoE layer, the router: what a token multiplies through.
  const double expert = 3.0 * 7168 * 2048, dense = 3.0 * 7168 * 18432;
  EXPECT_EQ(m.forward_matrix_flops_per_token(),
            2 * (61 * attention + 3 * dense + 58 * (8 * expert + expert + 256.0 * 7168)));
}

// Megatron-Bridge publishes tokens/s and model TFLOP/s per GPU for each run; their ratio is the framework's
// own FLOPs per token. From the shapes: 3 x (forward matrices + output layer) + 3 x the causal half of the
// attention scores. Fit-set rows only. Left out: gpt-oss (Megatron-Bridge's figure matches ours without
// attention scores at 8K and is 13 % below it at 4K: its formula was not read) and DeepSeek-V3 rows not
// labelled "w/o MTP" (the MTP layer, 3.7 % more FLOPs, is not part of the preset).
TEST(ModelPresets, FlopsPerTokenFromShapesMatchMegatronBridgeOnFitRows) {
  const YAML::Node runs = YAML::LoadFile(testing::source_path("data/reference/training-runs.yaml"));
  std::set<std::string> fit_sources;
  for (const auto& source : runs["sources"]) {
    const auto id = source["id"].as<std::string>();
    if (source["set"] && source["set"].as<std::string>() == "fit" && id.rfind("mbridge-", 0) == 0) {
      fit_sources.insert(id);
    }
  }
  std::set<std::string> models_checked;
  for (const auto& run : runs["runs"]) {
    if (fit_sources.count(run["source"].as<std::string>()) == 0) continue;
    if (run["tokens_per_s_per_gpu"].IsNull() || run["model_tflops_per_gpu"].IsNull()) continue;
    const auto name = run["model"].as<std::string>();
    const TransformerModel* model = find_model(model_presets(), name);
    if (model == nullptr || name.rfind("gpt-oss", 0) == 0) continue;
    const std::string notes = run["notes"] ? run["notes"].as<std::string>() : "";
    if (name == "deepseek-v3" && notes.find("w/o MTP") == std::string::npos) continue;
    const double published =
        run["model_tflops_per_gpu"].as<double>() * 1e12 / run["tokens_per_s_per_gpu"].as<double>();
    const double sequence = run["seq"].as<double>();
    const double counted =
        3 * (model->forward_matrix_flops_per_token() + model->output_layer_flops_per_token()) +
        3 * model->attention_score_flops_per_token(sequence) / 2;
    EXPECT_NEAR(counted / published, 1.0, 0.01) << run["id"].as<std::string>();
    models_checked.insert(name);
  }
  for (const char* name : {"deepseek-v3", "kimi-k2", "qwen3-30b-a3b", "qwen3-235b-a22b", "llama3.1-405b"}) {
    EXPECT_EQ(models_checked.count(name), 1U) << name;
  }
}

// Qwen3 gives head_dim 128 with 32 heads on a 2048-wide model: queries are 4096 wide, not 2048.
TEST(ModelPresets, ExplicitHeadDimSizesTheProjections) {
  const TransformerModel& m = preset("qwen3-30b-a3b");
  EXPECT_EQ(m.head_dim(), 128);
  EXPECT_EQ(m.attention_matrix_parameters(), 2048.0 * 4096 + 2 * 2048.0 * 512 + 4096.0 * 2048);
  EXPECT_EQ(m.kv_cache_bytes_per_token(2), 2.0 * 48 * 4 * 128 * 2);
  EXPECT_EQ(m.attention_score_flops_per_token(1000), 48 * 2.0 * 1000 * 32 * 256);
}

// gpt-oss alternates 128-token windows and full attention: half its 36 layers see at most 128 tokens.
TEST(ModelPresets, SlidingWindowLayersAttendToTheWindowOnly) {
  const TransformerModel& m = preset("gpt-oss-120b");
  EXPECT_EQ(m.sliding_window_layer_count(), 18);
  const double per_position = 2.0 * 64 * (64 + 64);
  EXPECT_EQ(m.attention_score_flops_per_token(8192), per_position * (18 * 8192.0 + 18 * 128.0));
  EXPECT_EQ(m.attention_score_flops_per_token(100), per_position * 36 * 100);
  TransformerModel full = m;
  full.sliding_window = 0;
  EXPECT_GT(full.attention_score_flops_per_token(8192), 1.9 * m.attention_score_flops_per_token(8192));
  EXPECT_EQ(full.parameters(), m.parameters());
}

// A preset file with one bad line; the error must name the file, the line and the field.
std::string load_error(const std::string& model_yaml) {
  const auto path = std::filesystem::temp_directory_path() / "gputwin-bad-models.yaml";
  std::ofstream(path) << "models:\n" << model_yaml;
  const auto loaded = load_model_presets(path.string());
  std::filesystem::remove(path);
  return loaded.ok() ? std::string() : loaded.error_text();
}

const char* const kMoeHead =
    "  - id: bad\n"
    "    source: test\n"
    "    layers: 4\n"
    "    hidden: 64\n"
    "    heads: 4\n"
    "    ffn_hidden: 128\n"
    "    gated_mlp: true\n"
    "    vocab: 100\n"
    "    tied_embeddings: false\n"
    "    biases: false\n";

TEST(ModelPresets, MalformedMoeAndMlaFieldsAreRefusedWithFileLineAndField) {
  const std::string file = "gputwin-bad-models.yaml";
  const std::string good_moe = "    moe: {experts: 4, experts_per_token: 2, expert_ffn_hidden: 32}\n";
  EXPECT_EQ(load_error(kMoeHead + good_moe), "");

  const std::string top_k = load_error(kMoeHead + std::string("    moe:\n      experts: 4\n"
                                                              "      experts_per_token: 8\n"
                                                              "      expert_ffn_hidden: 32\n"));
  EXPECT_NE(top_k.find(file + ":14:"), std::string::npos) << top_k;
  EXPECT_NE(top_k.find("models[0].moe.experts_per_token"), std::string::npos) << top_k;
  EXPECT_NE(top_k.find("exceeds the 4 routed experts"), std::string::npos) << top_k;

  const std::string negative = load_error(kMoeHead + std::string("    moe:\n      experts: 4\n"
                                                                 "      experts_per_token: 2\n"
                                                                 "      expert_ffn_hidden: -32\n"));
  EXPECT_NE(negative.find(file + ":15:"), std::string::npos) << negative;
  EXPECT_NE(negative.find("models[0].moe.expert_ffn_hidden"), std::string::npos) << negative;

  const std::string no_moe_layer =
      load_error(kMoeHead + std::string("    moe: {experts: 4, experts_per_token: 2, "
                                        "expert_ffn_hidden: 32, dense_layers: 4}\n"));
  EXPECT_NE(no_moe_layer.find("models[0].moe.dense_layers"), std::string::npos) << no_moe_layer;

  const std::string half_mla = load_error(kMoeHead + std::string("    mla:\n      q_lora_rank: 0\n"
                                                                 "      kv_lora_rank: 16\n"
                                                                 "      qk_nope_head_dim: 16\n"));
  EXPECT_NE(half_mla.find(file + ":13:"), std::string::npos) << half_mla;
  EXPECT_NE(half_mla.find("models[0].mla.qk_rope_head_dim"), std::string::npos) << half_mla;
  EXPECT_NE(half_mla.find("missing"), std::string::npos) << half_mla;

  const std::string mla_and_head_dim =
      load_error(kMoeHead + std::string("    head_dim: 32\n    mla: {q_lora_rank: 0, kv_lora_rank: 16, "
                                        "qk_nope_head_dim: 16, qk_rope_head_dim: 8, v_head_dim: 16}\n"));
  EXPECT_NE(mla_and_head_dim.find("models[0].head_dim"), std::string::npos) << mla_and_head_dim;

  const std::string window = load_error(kMoeHead + std::string("    sliding_window: {tokens: 0}\n"));
  EXPECT_NE(window.find("models[0].sliding_window.tokens"), std::string::npos) << window;

  const std::string active = load_error(kMoeHead + std::string("    published_active_parameters: lots\n"));
  EXPECT_NE(active.find("models[0].published_active_parameters"), std::string::npos) << active;
}

TEST(ModelPresets, BadPresetFilesAreRefusedWithTheirLocation) {
  const auto missing = load_model_presets(testing::source_path("data/perf/no-such-file.yaml"));
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(parse_parameter_count("70.6B"), 70.6e9);
  EXPECT_EQ(parse_parameter_count("350M"), 350e6);
  EXPECT_EQ(parse_parameter_count("70.6"), 0);
  EXPECT_EQ(parse_parameter_count("xB"), 0);
}

}  // namespace
}  // namespace gputwin
