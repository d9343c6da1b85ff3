#include "gputwin/perf/precision_recipe.hpp"

#include <set>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/gemm_model.hpp"

namespace gputwin {
namespace {

std::vector<PrecisionRecipe> read_recipes(const std::string& path) {
  const YamlField root = YamlDocument::load(path).root();
  root.expect_keys({"recipes"});
  std::vector<PrecisionRecipe> recipes;
  std::set<std::string> names;
  for (const YamlField& row : root.child("recipes").items()) {
    row.expect_keys({"name", "gemm", "bf16_layers_at_start", "bf16_layers_at_end", "scaling", "gemm_rate",
                     "source"});
    PrecisionRecipe r;
    r.name = row.child("name").text();
    if (!names.insert(r.name).second) row.child("name").fail("recipe '" + r.name + "' is defined twice");
    r.gemm = row.child("gemm").one_of({"bf16", "fp8", "mxfp8", "nvfp4", "mxfp4"});
    r.bf16_layers_at_start = static_cast<int>(row.child("bf16_layers_at_start").non_negative_integer());
    r.bf16_layers_at_end = static_cast<int>(row.child("bf16_layers_at_end").non_negative_integer());
    if (const auto scaling = row.optional_child("scaling")) {
      r.scaling = scaling->text();
      if (!is_fp8_scaling(r.scaling)) scaling->fail("not an FP8 scaling: " + r.scaling + " (delayed, current)");
      if (r.gemm != "fp8") scaling->fail("a per-tensor FP8 scaling on a " + r.gemm + " recipe");
    }
    if (const auto rate = row.optional_child("gemm_rate")) {
      rate->expect_keys({"value", "published_step_ratio", "benchmark", "source"});
      r.gemm_rate = rate->child("value").positive_number();
      if (r.gemm_rate > 1) rate->child("value").fail("must be a rate against the per-tensor kernels (0..1]");
      if (r.gemm == "bf16") rate->child("value").fail("a bf16 recipe has no quantised GEMMs to slow down");
      PrecisionRecipe::RateBenchmark b;
      b.published_step_ratio = rate->child("published_step_ratio").positive_number();
      const YamlField bench = rate->child("benchmark");
      bench.expect_keys(
          {"model", "gpu", "gpus", "micro_batch", "sequence", "zero", "recompute", "attention_kernel"});
      b.model = bench.child("model").text();
      b.gpu = bench.child("gpu").text();
      b.gpus = static_cast<int>(bench.child("gpus").positive_integer());
      b.micro_batch = static_cast<int>(bench.child("micro_batch").positive_integer());
      b.sequence = static_cast<int>(bench.child("sequence").positive_integer());
      b.zero = static_cast<int>(bench.child("zero").non_negative_integer());
      b.recompute = bench.child("recompute").text();
      if (!recompute_from_name(b.recompute)) bench.child("recompute").fail("not a recomputation mode");
      if (const auto kernel = bench.optional_child("attention_kernel")) b.attention_kernel = kernel->text();
      r.rate_benchmark = b;
      (void)rate->child("source").text_or_list();  // required
    }
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
  config.gemm_rate = recipe.gemm_rate;
  config.fp8_scaling = recipe.scaling;
}

}  // namespace gputwin
