#include "gputwin/validate/checks_data.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gputwin/core/test_text.hpp"

namespace gputwin::validate {
namespace {

std::string bundled_checks() {
  return std::string(GPUTWIN_SOURCE_DIR) + "/data/validate/checks.yaml";
}

// The bundled file with one text replaced, written to a temporary file.
std::string edited_checks(const std::string& from, const std::string& to) {
  return gputwin::testing::per_test_file(
      gputwin::testing::replaced(gputwin::testing::read_text(bundled_checks()), from, to), "checks", ".yaml");
}

TEST(ChecksData, BundledFileHasEveryRuleWithItsFigures) {
  const auto checks = load_checks_data(bundled_checks());
  ASSERT_TRUE(checks.ok()) << checks.error_text();
  EXPECT_EQ(checks.value().rules.size(), known_rule_ids().size());
  EXPECT_EQ(checks.value().rule("ecc-uncorrectable").severity, Severity::critical);
  EXPECT_EQ(checks.value().rule("row-remap-pending").severity, Severity::critical);
  EXPECT_EQ(checks.value().rule("persistence-mode-off").severity, Severity::warning);
  EXPECT_EQ(checks.value().rule("dcgm-diag-fail").severity, Severity::critical);
  EXPECT_EQ(checks.value().rule("dcgm-diag-warn").severity, Severity::warning);
  EXPECT_EQ(checks.value().rule("nccl-wrong-results").severity, Severity::critical);
  EXPECT_DOUBLE_EQ(checks.value().rule("nccl-busbw-below-prediction").fraction_parameters.at("margin"), 0.10);
  EXPECT_EQ(checks.value().rule("clocks-throttled").word_parameters.at("reasons").size(), 5U);
  EXPECT_DOUBLE_EQ(checks.value().outliers.threshold, 3.5);
  EXPECT_DOUBLE_EQ(checks.value().outliers.mad_scale, 1.4826);
  EXPECT_EQ(checks.value().outliers.minimum_group_size, 5);
}

TEST(ChecksData, UnknownRuleIdIsALocatedError) {
  const auto checks = load_checks_data(edited_checks("id: persistence-mode-off", "id: persistance-mode-off"));
  ASSERT_FALSE(checks.ok());
  EXPECT_NE(checks.error_text().find("gputwin-checks-ChecksData-UnknownRuleIdIsALocatedError.yaml:"),
            std::string::npos)
      << checks.error_text();
  EXPECT_NE(checks.error_text().find("unknown rule id 'persistance-mode-off'"), std::string::npos);
}

TEST(ChecksData, MarginMustBeAPercentage) {
  const auto checks = load_checks_data(edited_checks("value: 10%", "value: 10"));
  ASSERT_FALSE(checks.ok());
  EXPECT_NE(checks.error_text().find("margin.value: expected a percentage"), std::string::npos)
      << checks.error_text();
}

TEST(ChecksData, SeverityMustBeKnown) {
  const auto checks = load_checks_data(edited_checks("severity: warning", "severity: severe"));
  ASSERT_FALSE(checks.ok());
  EXPECT_NE(checks.error_text().find("severity"), std::string::npos) << checks.error_text();
}

TEST(ChecksData, PlaceholderTheRuleDoesNotFillIsRefused) {
  const auto checks = load_checks_data(edited_checks("persistence mode off", "persistence mode {mode}"));
  ASSERT_FALSE(checks.ok());
  EXPECT_NE(checks.error_text().find("placeholder {mode} is not filled by rule persistence-mode-off"),
            std::string::npos)
      << checks.error_text();
}

TEST(ChecksData, ThresholdNeedsASource) {
  const auto checks = load_checks_data(edited_checks(
      "    value: 3.5\n    source: \"Iglewicz", "    value: 3.5\n    source: \"\"\n    note: \"Iglewicz"));
  ASSERT_FALSE(checks.ok());
}

TEST(ChecksData, RuleGivenTwiceIsRefused) {
  const auto checks = load_checks_data(edited_checks("id: persistence-mode-off", "id: ecc-uncorrectable"));
  ASSERT_FALSE(checks.ok());
  EXPECT_NE(checks.error_text().find("rule 'ecc-uncorrectable' is given twice"), std::string::npos)
      << checks.error_text();
}

TEST(ChecksData, ParametersAreOnlyThoseTheRuleReads) {
  const auto checks = load_checks_data(
      edited_checks("  - id: persistence-mode-off\n", "  - id: persistence-mode-off\n    parameters: {}\n"));
  // A rule with no parameters may not be given any: an empty map is allowed, an unknown name is not.
  ASSERT_TRUE(checks.ok()) << checks.error_text();
  const auto unknown = load_checks_data(
      edited_checks("  - id: persistence-mode-off\n",
                    "  - id: persistence-mode-off\n    parameters: {limit: {value: 1, source: x}}\n"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error_text().find("has no parameter 'limit'"), std::string::npos) << unknown.error_text();
}

TEST(ChecksData, RenderFillsPlaceholdersAndKeepsUnknownOnes) {
  EXPECT_EQ(render_message("DBE {volatile} / {aggregate} {other}", {{"volatile", "2"}, {"aggregate", "5"}}),
            "DBE 2 / 5 {other}");
  EXPECT_EQ(render_message("no placeholder", {}), "no placeholder");
  EXPECT_EQ(render_message("open { only", {}), "open { only");
}

}  // namespace
}  // namespace gputwin::validate
