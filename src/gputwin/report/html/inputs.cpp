#include "gputwin/report/html/inputs.hpp"

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"

namespace gputwin {
namespace {

void read_into(ReportInputs& inputs, const JsonField& root, const std::string& source, ReportInputKind kind) {
  if (!root.json().is_object() || !root.has("schema"))
    root.fail("expected a gputwin JSON result with a schema field");
  const std::string schema = root.child("schema").string();
  if (kind == ReportInputKind::simulation && schema == kReplaySchema) {
    inputs.replays.push_back(replay_series_from_json(root, source));
  } else if (kind == ReportInputKind::simulation && schema == kPackingSchema) {
    inputs.packings.push_back(packing_curve_from_json(root, source));
  } else if (kind == ReportInputKind::perf && schema == kCollectiveSchema) {
    inputs.collectives.push_back(collective_curve_from_json(root, source));
  } else if (kind == ReportInputKind::perf && schema == kTrainingSchema) {
    inputs.trainings.push_back(training_breakdown_from_json(root, source));
  } else if (kind == ReportInputKind::perf && schema == kInferenceSchema) {
    inputs.inferences.push_back(inference_result_from_json(root, source));
  } else if (kind == ReportInputKind::perf && schema == kSizingSchema) {
    inputs.sizings.push_back(sizing_result_from_json(root, source));
  } else if (kind == ReportInputKind::perf && schema == kServeSchema) {
    inputs.serves.push_back(serve_document_from_json(root, source));
  } else if (kind == ReportInputKind::perf &&
             (schema == kServeCapacitySchema || schema == kServeCapacitySchemaV1)) {
    inputs.capacities.push_back(capacity_document_from_json(root, source));
  } else if (kind == ReportInputKind::perf && schema == kGoodputSchema) {
    inputs.goodputs.push_back(goodput_document_from_json(root, source));
  } else if (kind == ReportInputKind::validate && schema == kValidateSchema) {
    inputs.validations.push_back({source, validate_summary_from_json(root)});
  } else if (kind == ReportInputKind::validate) {
    root.child("schema").fail(std::string("expected ") + kValidateSchema + " (validate --json), found '" +
                              schema + "'");
  } else {
    const std::string expected = kind == ReportInputKind::simulation
                                     ? std::string("expected ") + kReplaySchema + " or " + kPackingSchema +
                                           " (simulate replay|packing --json)"
                                     : std::string("expected ") + kCollectiveSchema + ", " + kTrainingSchema +
                                           ", " + kInferenceSchema + ", " + kSizingSchema + ", " +
                                           kServeSchema + ", " + kServeCapacitySchema + ", " +
                                           kServeCapacitySchemaV1 + " or " + kGoodputSchema +
                                           " (perf collective|train|infer|size|serve|goodput --json)";
    root.child("schema").fail(expected + ", found '" + schema + "'");
  }
}

void append(ReportInputs& into, ReportInputs&& from) {
  for (auto& item : from.replays) into.replays.push_back(std::move(item));
  for (auto& item : from.packings) into.packings.push_back(std::move(item));
  for (auto& item : from.collectives) into.collectives.push_back(std::move(item));
  for (auto& item : from.trainings) into.trainings.push_back(std::move(item));
  for (auto& item : from.inferences) into.inferences.push_back(std::move(item));
  for (auto& item : from.sizings) into.sizings.push_back(std::move(item));
  for (auto& item : from.serves) into.serves.push_back(std::move(item));
  for (auto& item : from.capacities) into.capacities.push_back(std::move(item));
  for (auto& item : from.goodputs) into.goodputs.push_back(std::move(item));
  for (auto& item : from.validations) into.validations.push_back(std::move(item));
}

}  // namespace

Result<ReportInputs> parse_report_input(std::string_view text, const std::string& source,
                                        ReportInputKind kind) {
  return guarded_parse<ReportInputs>(source, [&] {
    const nlohmann::json document = parse_json(text, source);
    ReportInputs inputs;
    read_into(inputs, JsonField::root(document, source, text), source, kind);
    return inputs;
  });
}

Result<ReportInputs> load_report_inputs(const std::vector<std::string>& simulation_paths,
                                        const std::vector<std::string>& perf_paths,
                                        const std::vector<std::string>& validate_paths) {
  ReportInputs inputs;
  InputErrors errors;
  const auto load = [&](const std::string& path, ReportInputKind kind) {
    auto loaded = guarded_parse<ReportInputs>(path, [&] {
      const std::string text = read_input_file(path);
      auto parsed = parse_report_input(text, path, kind);
      if (!parsed.ok()) throw InputFailure(parsed.errors().front());
      return std::move(parsed).value();
    });
    if (loaded.ok()) {
      append(inputs, std::move(loaded).value());
    } else {
      errors.insert(errors.end(), loaded.errors().begin(), loaded.errors().end());
    }
  };
  for (const auto& path : simulation_paths) load(path, ReportInputKind::simulation);
  for (const auto& path : perf_paths) load(path, ReportInputKind::perf);
  for (const auto& path : validate_paths) load(path, ReportInputKind::validate);
  if (!errors.empty()) return errors;
  return inputs;
}

}  // namespace gputwin
