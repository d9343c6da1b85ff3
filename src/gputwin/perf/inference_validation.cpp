#include "gputwin/perf/inference_validation.hpp"

#include <map>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/perf/roofline.hpp"

namespace gputwin {
namespace {

struct Configuration {
  std::string model;
  std::string system;
  int tp = 1;
  std::string precision;
  SourceLocation where;
};

std::map<std::string, Configuration> read_configurations(const YamlField& root) {
  std::map<std::string, Configuration> configurations;
  for (const YamlField& item : root.child("configurations").items()) {
    item.expect_keys({"id", "model", "system", "tp", "precision"});
    Configuration configuration;
    configuration.model = item.child("model").text();
    configuration.system = item.child("system").text();
    configuration.tp = static_cast<int>(item.child("tp").positive_integer());
    configuration.precision = item.child("precision").text();
    configuration.where = item.location();
    configurations[item.child("id").text()] = configuration;
  }
  return configurations;
}

// The model's max-load throughput for one configuration and sequence lengths; failures are located at the row.
InferenceCheck predict(const Catalog& catalog, const std::vector<TransformerModel>& presets,
                       const CollectiveModel& collectives, const InferenceConstants& constants,
                       const Configuration& configuration, int input_tokens, int output_tokens,
                       const YamlField& published) {
  const TransformerModel* model = find_model(presets, configuration.model);
  if (model == nullptr) published.fail("no model preset '" + configuration.model + "'");
  const auto hardware = perf_hardware_of_system(catalog, configuration.system, 1);
  if (!hardware.ok()) published.fail(hardware.error_text());
  InferenceSetup setup;
  setup.model = *model;
  setup.tp = configuration.tp;
  setup.precision = configuration.precision;
  setup.kv_bytes_per_element = bytes_per_element(configuration.precision);  // the cache as the checkpoint
  setup.input_tokens = input_tokens;
  setup.output_tokens = output_tokens;
  const auto estimate = estimate_inference(hardware.value(), collectives, constants, setup, 0);
  if (!estimate.ok()) published.fail(estimate.error_text());
  InferenceCheck check;
  check.model = configuration.model;
  check.system = configuration.system;
  check.tp = configuration.tp;
  check.input_tokens = input_tokens;
  check.output_tokens = output_tokens;
  check.published_tokens_per_s = published.positive_number();
  check.predicted_tokens_per_s = estimate.value().output_tokens_per_s;
  check.sequences = estimate.value().sequences;
  return check;
}

}  // namespace

Result<std::vector<InferenceCheck>> validate_inference(const Catalog& catalog,
                                                       const std::vector<TransformerModel>& presets,
                                                       const CollectiveModel& collectives,
                                                       const InferenceConstants& constants,
                                                       const std::string& reference_path) {
  return result_of<std::vector<InferenceCheck>>([&] {
    const YamlField root = YamlDocument::load(reference_path).root();
    root.expect_keys({"source", "confidence", "metric", "configurations", "rows", "notes"});
    const auto configurations = read_configurations(root);
    std::vector<InferenceCheck> checks;
    for (const YamlField& row : root.child("rows").items()) {
      row.expect_keys({"isl", "osl", "output_tokens_per_s"});
      const int input_tokens = static_cast<int>(row.child("isl").positive_integer());
      const int output_tokens = static_cast<int>(row.child("osl").positive_integer());
      for (const auto& [id, published] : row.child("output_tokens_per_s").entries()) {
        const auto configuration = configurations.find(id);
        if (configuration == configurations.end()) published.fail("no configuration '" + id + "'");
        InferenceCheck check = predict(catalog, presets, collectives, constants, configuration->second,
                                       input_tokens, output_tokens, published);
        check.configuration = id;
        checks.push_back(check);
      }
    }
    return checks;
  });
}

}  // namespace gputwin
