#include "gputwin/perf/precision_recipe.hpp"

#include <set>

#include "gputwin/core/yaml_input.hpp"

namespace gputwin {
namespace {

std::vector<PrecisionRecipe> read_recipes(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"recipes"});
  std::vector<PrecisionRecipe> recipes;
  std::set<std::string> names;
  for (const YamlField& row : root.child("recipes").items()) {
    row.expect_keys({"name", "gemm", "bf16_layers_at_start", "bf16_layers_at_end", "source"});
    PrecisionRecipe r;
    r.name = row.child("name").text();
    if (!names.insert(r.name).second) row.child("name").fail("recipe '" + r.name + "' is defined twice");
    r.gemm = row.child("gemm").one_of({"bf16", "fp8", "mxfp8", "nvfp4", "mxfp4"});
    r.bf16_layers_at_start = static_cast<int>(row.child("bf16_layers_at_start").non_negative_integer());
    r.bf16_layers_at_end = static_cast<int>(row.child("bf16_layers_at_end").non_negative_integer());
    r.source = row.child("source").text();
    recipes.push_back(std::move(r));
  }
  return recipes;
}

}  // namespace

Result<std::vector<PrecisionRecipe>> load_precision_recipes(const std::string& path) {
  return result_of<std::vector<PrecisionRecipe>>([&] { return read_recipes(path); });
}

const PrecisionRecipe* find_recipe(const std::vector<PrecisionRecipe>& recipes, const std::string& name) {
  for (const PrecisionRecipe& r : recipes) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string recipe_names(const std::vector<PrecisionRecipe>& recipes) {
  std::string names;
  for (const PrecisionRecipe& r : recipes) names += (names.empty() ? "" : ", ") + r.name;
  return names;
}

void apply_recipe(const PrecisionRecipe& recipe, TrainingConfig& config) {
  config.precision = recipe.gemm;
  config.bf16_layers_at_start = recipe.bf16_layers_at_start;
  config.bf16_layers_at_end = recipe.bf16_layers_at_end;
}

}  // namespace gputwin
