// The checks of `gputwin validate` as data (data/validate/checks.yaml): per rule its severity, message
// template and parameters, each figure with its source; and the robust-statistics settings of the outliers.
//
//   Result<ChecksData> checks = load_checks_data(bundled_data_dir() + "/validate/checks.yaml");
//   const CheckRule& rule = checks.value().rule("ecc-uncorrectable");   // severity critical
//   render_message(rule.message, {{"volatile", "2"}, {"aggregate", "5"}});
//
// The rule ids are the ones the code evaluates (known_rule_ids()); a YAML naming another id, a missing rule,
// a placeholder a rule does not fill, or a parameter of the wrong kind is an error naming file, line and
// field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"

namespace gputwin::validate {

enum class Severity { info = 0, warning = 1, critical = 2 };
[[nodiscard]] std::string_view severity_name(Severity severity);
[[nodiscard]] std::optional<Severity> severity_from_name(std::string_view name);

struct CheckRule {
  std::string id;
  Severity severity = Severity::warning;
  std::string message;  // template with {placeholders}
  std::string source;
  std::map<std::string, std::vector<std::string>> word_parameters;  // e.g. clocks-throttled.reasons
  std::map<std::string, double> fraction_parameters;                // e.g. margin: 10% -> 0.10
  std::map<std::string, double> number_parameters;                  // e.g. gpu_limit_celsius: 85
  std::map<std::string, std::string> parameter_sources;             // every parameter's source
};

struct OutlierSettings {
  double threshold = 0;                      // robust z-score above which a value is an outlier
  double mad_scale = 0;                      // MAD x scale estimates the standard deviation
  double mean_absolute_deviation_scale = 0;  // used instead when MAD = 0
  int minimum_group_size = 0;
};

struct ChecksData {
  std::string source;
  std::vector<CheckRule> rules;  // in the file's order
  OutlierSettings outliers;

  [[nodiscard]] const CheckRule& rule(std::string_view id) const;  // every known id is present after loading
};

// Ids in the order the documentation lists them.
[[nodiscard]] const std::vector<std::string_view>& known_rule_ids();
// The placeholders the code fills for a rule (what a message template may use).
[[nodiscard]] const std::vector<std::string_view>& rule_placeholders(std::string_view id);

[[nodiscard]] Result<ChecksData> load_checks_data(const std::string& path);

// Replaces each {name} of `message_template` by its value; placeholders without a value stay as written.
[[nodiscard]] std::string render_message(std::string_view message_template,
                                         const std::map<std::string, std::string>& values);

}  // namespace gputwin::validate
