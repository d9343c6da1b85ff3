// Low-precision training recipes by name: the GEMM precision of the transformer layers and how many of the
// first / last layers the recipe keeps in BF16 (data/perf/precision-recipes.yaml, each with its source).
//
//   Result<std::vector<PrecisionRecipe>> recipes = load_precision_recipes(bundled_data_dir() +
//                                                                         "/perf/precision-recipes.yaml");
//   const PrecisionRecipe* cs = find_recipe(recipes.value(), "fp8-cs");   // fp8 GEMMs, 1 + 1 layers in bf16
//   apply_recipe(*cs, config);   // config.precision = "fp8", bf16_layers_at_start = end = 1
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/training_config.hpp"

namespace gputwin {

struct PrecisionRecipe {
  std::string name;  // bf16, fp8, fp8-cs, mxfp8, nvfp4
  std::string gemm;  // the GEMM precision (gemm-efficiency.yaml)
  int bf16_layers_at_start = 0;
  int bf16_layers_at_end = 0;
  std::string source;
};

[[nodiscard]] Result<std::vector<PrecisionRecipe>> load_precision_recipes(const std::string& path);
[[nodiscard]] const PrecisionRecipe* find_recipe(const std::vector<PrecisionRecipe>& recipes,
                                                 const std::string& name);
// "bf16, fp8, ..." for error messages.
[[nodiscard]] std::string recipe_names(const std::vector<PrecisionRecipe>& recipes);
// Sets the config's GEMM precision and BF16 layer counts from the recipe.
void apply_recipe(const PrecisionRecipe& recipe, TrainingConfig& config);

}  // namespace gputwin
