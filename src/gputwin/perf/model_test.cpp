#include "gputwin/perf/model.hpp"

#include <gtest/gtest.h>

#include <cmath>

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
      const double scale = unit == 'B' ? 1e9 : 1e6;
      const double factor = std::pow(10.0, printed_decimals(model.published_parameters));
      EXPECT_DOUBLE_EQ(std::round(counted / scale * factor) / factor, published / scale)
          << model.name << " counted " << counted;
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
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
