#include "gputwin/validate/checks_data.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "gputwin/core/yaml_input.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

enum class ParameterKind { words, fraction, number };

struct ParameterShape {
  std::string_view name;
  ParameterKind kind;
};

// What the code of each rule fills in and reads: the contract between checks.cpp and the data file.
struct RuleShape {
  std::string_view id;
  std::vector<std::string_view> placeholders;
  std::vector<ParameterShape> parameters;
};

const std::vector<RuleShape>& rule_shapes() {
  static const std::vector<RuleShape> shapes = {
      {"ecc-uncorrectable", {"volatile", "aggregate"}, {}},
      {"retired-pages-pending", {"single_bit", "double_bit"}, {}},
      {"row-remap-pending", {"uncorrectable", "correctable"}, {}},
      {"row-remap-failure", {"uncorrectable", "correctable"}, {}},
      {"pcie-width-below-max", {"width", "max_width"}, {}},
      {"pcie-generation-below-max",
       {"generation", "max_generation", "pstate"},
       {{"judged_performance_states", ParameterKind::words}}},
      {"clocks-throttled", {"reasons"}, {{"reasons", ParameterKind::words}}},
      {"power-limit-below-default", {"limit", "default_limit"}, {}},
      {"persistence-mode-off", {}, {}},
      {"xid-critical", {"xid"}, {{"xids", ParameterKind::words}}},
      {"xid-reported", {"xid"}, {}},
      {"temperature-above-limit",
       {"sensor", "measured", "limit", "limit_source"},
       {{"gpu_limit_celsius", ParameterKind::number}, {"memory_limit_celsius", ParameterKind::number}}},
      {"pcie-replays",
       {"replays", "limit"},
       {{"max_replays", ParameterKind::number}, {"max_rate_per_minute", ParameterKind::number}}},
      {"nvlink-errors", {"errors"}, {{"max_crc_rate_per_second", ParameterKind::number}}},
      {"sources-disagree", {"fact", "used", "used_at", "other", "other_at"}, {}},
      {"version-mismatch", {"what", "measured", "expected", "majority", "total", "scope"}, {}},
      {"mig-layout-mismatch", {"measured", "expected"}, {}},
      {"dcgm-diag-fail", {"category", "test", "detail"}, {}},
      {"dcgm-diag-warn", {"category", "test", "detail"}, {}},
      {"nccl-wrong-results", {"collective", "wrong", "size", "bounds"}, {}},
      {"nccl-busbw-below-prediction",
       {"collective", "ranks", "size", "measured", "expected", "shortfall", "margin"},
       {{"margin", ParameterKind::fraction}}},
      {"nccl-busbw-not-compared", {"collective", "reason"}, {}},
      {"input-unreadable", {"error"}, {}},
      {"input-not-understood", {"reason"}, {}},
      {"node-without-capture", {"files"}, {}},
      {"gpu-model-mismatch", {"measured", "expected", "accelerator"}, {}},
      {"gpu-count-mismatch", {"measured", "expected"}, {}},
      {"gpu-memory-mismatch",
       {"measured", "expected", "accelerator", "tolerance"},
       {{"tolerance", ParameterKind::fraction}}},
      {"node-stopped-reporting",
       {"last", "from", "to", "when", "missing"},
       {{"tolerance_steps", ParameterKind::number}}},
      {"node-reporting-gap", {"last", "from", "to", "when", "missing"}, {}},
      {"gpu-stopped-reporting", {"last", "from", "to", "when", "node_last", "missing"}, {}},
      {"gpu-reporting-gap", {"last", "from", "to", "when", "node_last", "missing"}, {}},
      {"nodes-missing", {"count", "designed", "names"}, {}},
      {"nodes-not-in-design", {"designed", "first", "last"}, {}},
      {"pcie-link-below-design",
       {"generation", "width", "measured", "expected_link", "expected", "accelerator"},
       {}},
      {"design-not-compared", {"what", "reason"}, {}},
  };
  return shapes;
}

const RuleShape* find_shape(std::string_view id) {
  for (const RuleShape& shape : rule_shapes())
    if (shape.id == id) return &shape;
  return nullptr;
}

std::string known_ids_text() {
  std::string text;
  for (const RuleShape& shape : rule_shapes()) text += (text.empty() ? "" : ", ") + std::string(shape.id);
  return text;
}

// "10%" or "10 %" -> 0.10; a bare number is refused so that 10 is never read as 1000 %.
double fraction_of(const YamlField& field) {
  std::string text = field.text();
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  if (text.empty() || text.back() != '%')
    field.fail("expected a percentage such as '10%', got '" + text + "'");
  const auto number = parse_double(std::string_view(text).substr(0, text.size() - 1));
  if (!number || *number < 0 || *number >= 100)
    field.fail("expected a percentage from 0% to below 100%, got '" + field.text() + "'");
  return *number / 100.0;
}

std::vector<std::string> words_of(const YamlField& field) {
  if (!field.is_sequence()) field.fail("expected a list of words");
  std::vector<std::string> words;
  for (const YamlField& item : field.items()) words.push_back(item.text());
  if (words.empty()) field.fail("expected at least one word");
  return words;
}

void check_placeholders(const YamlField& message, const RuleShape& shape) {
  const std::string text = message.text();
  for (std::size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    const auto close = text.find('}', open);
    if (close == std::string::npos) message.fail("unclosed '{' in the message template");
    const std::string name = text.substr(open + 1, close - open - 1);
    if (std::find(shape.placeholders.begin(), shape.placeholders.end(), name) == shape.placeholders.end()) {
      std::string allowed;
      for (std::string_view each : shape.placeholders)
        allowed += (allowed.empty() ? "" : ", ") + std::string(each);
      message.fail("placeholder {" + name + "} is not filled by rule " + std::string(shape.id) +
                   "; it fills: " + (allowed.empty() ? "nothing" : allowed));
    }
  }
}

void read_parameters(const YamlField& parameters, const RuleShape& shape, CheckRule& rule) {
  for (const auto& entry : parameters.entries()) {
    const std::string& name = entry.first;
    const YamlField& field = entry.second;
    const auto wanted = std::find_if(shape.parameters.begin(), shape.parameters.end(),
                                     [&](const ParameterShape& each) { return each.name == name; });
    if (wanted == shape.parameters.end()) field.fail("rule " + rule.id + " has no parameter '" + name + "'");
    field.expect_keys({"value", "source"});
    if (field.child("source").text().empty()) field.child("source").fail("a parameter needs its source");
    rule.parameter_sources[name] = field.child("source").text();
    if (wanted->kind == ParameterKind::words)
      rule.word_parameters[name] = words_of(field.child("value"));
    else if (wanted->kind == ParameterKind::fraction)
      rule.fraction_parameters[name] = fraction_of(field.child("value"));
    else
      rule.number_parameters[name] = field.child("value").positive_number();
  }
  for (const ParameterShape& each : shape.parameters)
    if (!rule.word_parameters.contains(std::string(each.name)) &&
        !rule.fraction_parameters.contains(std::string(each.name)) &&
        !rule.number_parameters.contains(std::string(each.name)))
      parameters.fail("rule " + rule.id + " needs parameter '" + std::string(each.name) + "'");
}

CheckRule read_rule(const YamlField& field) {
  field.expect_keys({"id", "severity", "message", "source", "parameters"});
  CheckRule rule;
  rule.id = field.child("id").text();
  const RuleShape* shape = find_shape(rule.id);
  if (shape == nullptr)
    field.child("id").fail("unknown rule id '" + rule.id + "'; known: " + known_ids_text());
  rule.severity = *severity_from_name(field.child("severity").one_of({"critical", "warning", "info"}));
  check_placeholders(field.child("message"), *shape);
  rule.message = field.child("message").text();
  rule.source = field.child("source").text_or_list();
  if (rule.source.empty()) field.child("source").fail("a rule needs its source");
  if (const auto parameters = field.optional_child("parameters"))
    read_parameters(*parameters, *shape, rule);
  else if (!shape->parameters.empty())
    field.fail("rule " + rule.id + " needs its parameters");
  return rule;
}

double sourced_number(const YamlField& outliers, std::string_view name) {
  const YamlField field = outliers.child(name);
  field.expect_keys({"value", "source"});
  if (field.child("source").text().empty()) field.child("source").fail("a figure needs its source");
  return field.child("value").positive_number();
}

OutlierSettings read_outliers(const YamlField& field) {
  field.expect_keys({"threshold", "mad_scale", "mean_absolute_deviation_scale", "minimum_group_size"});
  OutlierSettings settings;
  settings.threshold = sourced_number(field, "threshold");
  settings.mad_scale = sourced_number(field, "mad_scale");
  settings.mean_absolute_deviation_scale = sourced_number(field, "mean_absolute_deviation_scale");
  const double group = sourced_number(field, "minimum_group_size");
  if (group < 3 || group != static_cast<int>(group))
    field.child("minimum_group_size").child("value").fail("expected a whole number of at least 3");
  settings.minimum_group_size = static_cast<int>(group);
  return settings;
}

ChecksData read_checks(const YamlDocument& document, const std::string& path) {
  const YamlField root = document.root();
  root.expect_keys({"schema", "rules", "outliers"});
  if (root.child("schema").text() != "gputwin.checks/1")
    root.child("schema").fail("expected 'gputwin.checks/1', got '" + root.child("schema").text() + "'");
  ChecksData checks;
  checks.source = path;
  std::set<std::string> seen;
  for (const YamlField& item : root.child("rules").items()) {
    CheckRule rule = read_rule(item);
    if (!seen.insert(rule.id).second) item.child("id").fail("rule '" + rule.id + "' is given twice");
    checks.rules.push_back(std::move(rule));
  }
  for (const RuleShape& shape : rule_shapes())
    if (!seen.contains(std::string(shape.id)))
      root.child("rules").fail("rule '" + std::string(shape.id) +
                               "' is missing (every check needs its severity)");
  checks.outliers = read_outliers(root.child("outliers"));
  return checks;
}

}  // namespace

std::string_view severity_name(Severity severity) {
  switch (severity) {
    case Severity::critical:
      return "critical";
    case Severity::warning:
      return "warning";
    case Severity::info:
      return "info";
  }
  return "?";
}

std::optional<Severity> severity_from_name(std::string_view name) {
  if (name == "critical") return Severity::critical;
  if (name == "warning") return Severity::warning;
  if (name == "info") return Severity::info;
  return std::nullopt;
}

const CheckRule& ChecksData::rule(std::string_view id) const {
  for (const CheckRule& each : rules)
    if (each.id == id) return each;
  throw std::logic_error("no check rule '" + std::string(id) + "' (the loader requires every known rule)");
}

const std::vector<std::string_view>& known_rule_ids() {
  static const std::vector<std::string_view> ids = [] {
    std::vector<std::string_view> all;
    for (const RuleShape& shape : rule_shapes()) all.push_back(shape.id);
    return all;
  }();
  return ids;
}

const std::vector<std::string_view>& rule_placeholders(std::string_view id) {
  static const std::vector<std::string_view> none;
  const RuleShape* shape = find_shape(id);
  return shape == nullptr ? none : shape->placeholders;
}

Result<ChecksData> load_checks_data(const std::string& path) {
  return result_of<ChecksData>([&] { return read_checks(YamlDocument::load(path), path); });
}

std::string render_message(std::string_view message_template,
                           const std::map<std::string, std::string>& values) {
  std::string out;
  std::size_t position = 0;
  while (position < message_template.size()) {
    const auto open = message_template.find('{', position);
    const auto close = open == std::string_view::npos ? open : message_template.find('}', open);
    if (close == std::string_view::npos) break;
    out += message_template.substr(position, open - position);
    const auto value = values.find(std::string(message_template.substr(open + 1, close - open - 1)));
    out +=
        value != values.end() ? value->second : std::string(message_template.substr(open, close - open + 1));
    position = close + 1;
  }
  if (position < message_template.size()) out += message_template.substr(position);
  return out;
}

}  // namespace gputwin::validate
