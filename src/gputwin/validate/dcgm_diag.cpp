#include "gputwin/validate/dcgm_diag.hpp"

#include "gputwin/core/input_file.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

constexpr std::string_view kRootV3 = "DCGM GPU Diagnostic";
constexpr std::string_view kRootV4 = "DCGM Diagnostic";

int entity_id_of(const JsonField& field) {
  const std::int64_t id = field.integer();
  if (id < 0 || id > 1'000'000) field.fail("expected an entity id >= 0");
  return static_cast<int>(id);
}

// 3.x writes "gpu_ids" as text ("0" or "0,1,2").
std::vector<int> gpu_ids_of(const JsonField& field) {
  std::vector<int> ids;
  if (field.json().is_number_integer()) return {entity_id_of(field)};
  if (!field.json().is_string()) field.fail("expected GPU ids such as \"0,1\"");
  std::string_view text = field.json().get_ref<const std::string&>();
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto id = parse_integer(trim(text.substr(0, comma)));
    if (!id || *id < 0 || *id > 1'000'000) field.fail("expected GPU ids such as \"0,1\"");
    ids.push_back(static_cast<int>(*id));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return ids;
}

std::vector<std::string> warnings_of(const JsonField& result) {
  std::vector<std::string> warnings;
  const auto list = result.optional_child("warnings");
  if (!list) return warnings;
  if (list->json().is_string()) return {list->string()};
  for (std::size_t i = 0; i < list->array_size(); ++i) {
    const JsonField warning = list->element(i);
    warnings.push_back(warning.json().is_string() ? warning.string() : warning.child("warning").string());
  }
  return warnings;
}

DiagResult result_of(const JsonField& result) {
  DiagResult diag;
  diag.status = result.child("status").string();
  if (auto group = result.optional_child("entity_group")) diag.entity_group = group->string();
  if (auto id = result.optional_child("entity_id")) diag.entity_ids.push_back(entity_id_of(*id));
  if (auto ids = result.optional_child("gpu_ids")) diag.entity_ids = gpu_ids_of(*ids);
  if (auto info = result.optional_child("info"))
    diag.info = info->json().is_string() ? info->string() : info->json().dump();
  diag.warnings = warnings_of(result);
  return diag;
}

DiagTest test_of(const std::string& category, const JsonField& test) {
  DiagTest diag{category, test.child("name").string(), std::nullopt, {}};
  if (auto summary = test.optional_child("test_summary"))
    diag.summary_status = summary->child("status").string();
  const JsonField results = test.child("results");
  for (std::size_t i = 0; i < results.array_size(); ++i)
    diag.results.push_back(result_of(results.element(i)));
  return diag;
}

std::vector<DiagEntity> entities_of(const JsonField& groups) {
  std::vector<DiagEntity> entities;
  for (std::size_t g = 0; g < groups.array_size(); ++g) {
    const JsonField group = groups.element(g);
    const std::string name = group.child("entity_group").string();
    const JsonField members = group.child("entities");
    for (std::size_t e = 0; e < members.array_size(); ++e) {
      const JsonField member = members.element(e);
      DiagEntity entity{name, entity_id_of(member.child("entity_id")), std::nullopt, std::nullopt};
      if (auto device = member.optional_child("device_id")) entity.device_id = device->string();
      if (auto serial = member.optional_child("serial_num")) entity.serial = serial->string();
      entities.push_back(std::move(entity));
    }
  }
  return entities;
}

DcgmDiagReport report_of(std::string_view text, const std::string& source) {
  const nlohmann::json document = parse_json(text, source);
  const JsonField root = JsonField::root(document, source, text);
  DcgmDiagReport report;
  report.source = source;
  report.format_major = root.has(kRootV4) ? 4 : root.has(kRootV3) ? 3 : 0;
  if (report.format_major == 0)
    root.fail(
        "not dcgmi diag -j output: expected a \"DCGM GPU Diagnostic\" (3.x) or \"DCGM Diagnostic\" (4.x) "
        "object");
  const JsonField diagnostic = root.child(report.format_major == 4 ? kRootV4 : kRootV3);
  if (auto error = diagnostic.optional_child("runtime_error")) report.runtime_error = error->string();
  if (auto categories = diagnostic.optional_child("test_categories")) {
    for (std::size_t c = 0; c < categories->array_size(); ++c) {
      const JsonField category = categories->element(c);
      const std::string name = category.child("category").string();
      const JsonField tests = category.child("tests");
      for (std::size_t t = 0; t < tests.array_size(); ++t)
        report.tests.push_back(test_of(name, tests.element(t)));
    }
  }
  if (auto groups = root.optional_child("entity_groups")) report.entities = entities_of(*groups);
  const auto metadata = root.optional_child("metadata");
  if (metadata) {
    if (auto version = metadata->optional_child("version")) report.dcgm_version = version->string();
    if (auto driver = metadata->optional_child("Driver Version Detected"))
      report.driver_version = driver->string();
  }
  return report;
}

}  // namespace

Result<DcgmDiagReport> DcgmDiag::read_file(const std::string& path) {
  return guarded_parse<DcgmDiagReport>(path, [&] {
    const std::string text = read_input_file(path);
    return report_of(text, path);
  });
}

Result<DcgmDiagReport> DcgmDiag::parse(std::string_view text, const std::string& source) {
  return guarded_parse<DcgmDiagReport>(source, [&] { return report_of(text, source); });
}

}  // namespace gputwin::validate
