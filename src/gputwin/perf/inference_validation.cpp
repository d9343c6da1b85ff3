#include "gputwin/perf/inference_validation.hpp"

#include <map>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/roofline.hpp"

namespace gputwin {
namespace {

std::map<std::string, InferenceCheck> read_configurations(const YamlField& root) {
  std::map<std::string, InferenceCheck> configurations;
  for (const YamlField& item : root.child("configurations").items()) {
    item.expect_keys({"id", "model", "system", "tp", "precision"});
    InferenceCheck configuration;
    configuration.configuration = item.child("id").text();
    configuration.model = item.child("model").text();
    configuration.system = item.child("system").text();
    configuration.tp = static_cast<int>(item.child("tp").positive_integer());
    configuration.precision = item.child("precision").text();
    configurations[configuration.configuration] = configuration;
  }
  return configurations;
}

InputError case_error(const InferenceCheck& check, const std::string& message) {
  InputError error;
  error.message = "inference reference " + check.configuration + ": " + message;
  return error;
}

}  // namespace

Result<std::vector<InferenceCheck>> load_inference_cases(const std::string& reference_path) {
  return result_of<std::vector<InferenceCheck>>([&] {
    const YamlField root = YamlDocument::load(reference_path).root();
    root.expect_keys({"source", "confidence", "metric", "configurations", "rows", "notes"});
    const auto configurations = read_configurations(root);
    std::vector<InferenceCheck> cases;
    for (const YamlField& row : root.child("rows").items()) {
      row.expect_keys({"isl", "osl", "output_tokens_per_s"});
      for (const auto& [id, published] : row.child("output_tokens_per_s").entries()) {
        const auto configuration = configurations.find(id);
        if (configuration == configurations.end()) published.fail("no configuration '" + id + "'");
        InferenceCheck check = configuration->second;
        check.input_tokens = static_cast<int>(row.child("isl").positive_integer());
        check.output_tokens = static_cast<int>(row.child("osl").positive_integer());
        check.published_tokens_per_s = published.positive_number();
        cases.push_back(check);
      }
    }
    return cases;
  });
}

Result<std::vector<InferenceCheck>> predict_inference(const Catalog& catalog,
                                                      const std::vector<TransformerModel>& presets,
                                                      const CollectiveModel& collectives,
                                                      const InferenceConstants& constants,
                                                      std::vector<InferenceCheck> cases) {
  for (InferenceCheck& check : cases) {
    const TransformerModel* model = find_model(presets, check.model);
    if (model == nullptr) return case_error(check, "no model preset '" + check.model + "'");
    const auto hardware = perf_hardware_of_system(catalog, check.system, 1);
    if (!hardware.ok()) return case_error(check, hardware.error_text());
    InferenceSetup setup;
    setup.model = *model;
    setup.tp = check.tp;
    setup.precision = check.precision;
    setup.kv_bytes_per_element = bytes_per_element(check.precision);  // the cache as the checkpoint
    setup.input_tokens = check.input_tokens;
    setup.output_tokens = check.output_tokens;
    const auto estimate = estimate_inference(hardware.value(), collectives, constants, setup, 0);
    if (!estimate.ok()) return case_error(check, estimate.error_text());
    check.predicted_tokens_per_s = estimate.value().output_tokens_per_s;
    check.sequences = estimate.value().sequences;
  }
  return cases;
}

Result<std::vector<InferenceCheck>> validate_inference(const Catalog& catalog,
                                                       const std::vector<TransformerModel>& presets,
                                                       const CollectiveModel& collectives,
                                                       const InferenceConstants& constants,
                                                       const std::string& reference_path) {
  auto cases = load_inference_cases(reference_path);
  if (!cases.ok()) return cases;
  return predict_inference(catalog, presets, collectives, constants, std::move(cases).value());
}

}  // namespace gputwin
