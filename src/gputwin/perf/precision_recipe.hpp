// Low-precision training recipes by name: the GEMM precision of the transformer layers and how many of the
// first / last layers the recipe keeps in BF16 (data/perf/precision-recipes.yaml, each with its source).
//
//   Result<std::vector<PrecisionRecipe>> recipes = load_precision_recipes(bundled_data_dir() +
//                                                                         "/perf/precision-recipes.yaml");
//   const PrecisionRecipe* cs = find_recipe(recipes.value(), "fp8-cs");   // fp8 GEMMs, 1 + 1 layers in bf16
//   apply_recipe(*cs, config);   // config.precision = "fp8", bf16_layers_at_start = end = 1
#pragma once

#include <optional>
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
  // Per-tensor FP8 scaling (delayed, current; gemm_model.hpp is_fp8_scaling); empty: the precision's own
  // (bf16, MX and NVFP4 block scales). Its quantisation cost: gemm-efficiency.yaml quantisation.by_scaling.
  std::string scaling;
  // The quantised GEMMs' rate against the per-tensor-scaled kernels of the same precision (1 unless the
  // recipe's file says otherwise, with its source).
  double gemm_rate = 1.0;
  // Where gemm_rate comes from: a published end-to-end benchmark of this recipe against the per-tensor one,
  // its step-time ratio (per-tensor tokens/s over this recipe's) and the benchmark's setup, so that the rate
  // can be re-derived (fit_recipe_gemm_rate).
  struct RateBenchmark {
    double published_step_ratio = 1;
    std::string model, gpu;  // a model preset, a GPU of training-runs-setup.yaml
    int gpus = 0, micro_batch = 1, sequence = 0, zero = 0;
    std::string recompute, attention_kernel;
  };
  std::optional<RateBenchmark> rate_benchmark;
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
