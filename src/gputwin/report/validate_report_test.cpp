// validate --json read back: a real run on the faulty test fleet comes back finding for finding; another
// schema, a cut document and a missing field are errors that name the file and the field.
#include "gputwin/report/validate_report.hpp"

#include <gtest/gtest.h>

#include "gputwin/report/report_test_support.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin {
namespace {

using testing::error_of;

struct FaultyRun {
  validate::Fleet fleet =
      validate::read_fleet(std::string(GPUTWIN_SOURCE_DIR) + "/tests/validate-fleets/faulty").value();
  ValidateRun run;
  FaultyRun() {
    const auto& checks = validate::testing::bundled_checks();
    run = {&fleet,
           validate::evaluate_checks(fleet, checks, {}),
           validate::find_outliers(fleet, checks.outliers),
           "",
           validate::Severity::warning,
           checks.outliers.threshold};
  }
  [[nodiscard]] std::string text() const { return validate_json(run).dump(2); }
};

const FaultyRun& faulty() {
  static const FaultyRun run;
  return run;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ValidateJson, RoundTripOfTheFaultyFleet) {
  const ValidateRun& run = faulty().run;
  ASSERT_FALSE(run.findings.empty());
  const auto read = read_validate_json(faulty().text(), "validate.json");
  ASSERT_TRUE(read.ok()) << read.error_text();
  const ValidateSummary& back = read.value();
  EXPECT_EQ(back.measured, run.fleet->directory);
  EXPECT_EQ(back.cluster, "");
  ASSERT_EQ(back.nodes.size(), run.fleet->nodes.size());
  for (std::size_t i = 0; i < back.nodes.size(); ++i) {
    EXPECT_EQ(back.nodes[i].node, run.fleet->nodes[i].name);
    EXPECT_EQ(back.nodes[i].files, static_cast<int>(run.fleet->nodes[i].files.size()));
  }
  ASSERT_EQ(back.findings.size(), run.findings.size());
  int warnings = 0;
  for (std::size_t i = 0; i < back.findings.size(); ++i) {
    const validate::Finding& finding = run.findings[i];
    EXPECT_EQ(back.findings[i].rule, finding.rule);
    EXPECT_EQ(back.findings[i].severity, finding.severity);
    EXPECT_EQ(back.findings[i].node, finding.node);
    EXPECT_EQ(back.findings[i].gpu, finding.gpu);
    EXPECT_EQ(back.findings[i].file, finding.where.file);
    EXPECT_EQ(back.findings[i].line.value_or(0), finding.where.line);
    EXPECT_EQ(back.findings[i].message, finding.message);
    warnings += finding.severity == validate::Severity::warning ? 1 : 0;
  }
  EXPECT_EQ(back.warning, warnings);
  ASSERT_EQ(back.outliers.size(), run.outliers.size());
  for (std::size_t i = 0; i < back.outliers.size(); ++i) {
    EXPECT_EQ(back.outliers[i].metric, run.outliers[i].metric);
    EXPECT_EQ(back.outliers[i].node, run.outliers[i].node);
    EXPECT_EQ(back.outliers[i].gpu, run.outliers[i].gpu);
    EXPECT_DOUBLE_EQ(back.outliers[i].robust_z, run.outliers[i].robust_z);
  }
  EXPECT_EQ(back.fail_on, validate::Severity::warning);
  EXPECT_EQ(back.failed, validate_failed(run));
}

TEST(ValidateJson, AnotherSchemaIsRefusedAtTheSchemaField) {
  const std::string error =
      error_of(read_validate_json(testing::with_schema(faulty().text(), "gputwin.plan/1"), "validate.json"));
  EXPECT_TRUE(contains(error, "validate.json:2:")) << error;
  EXPECT_TRUE(
      contains(error, "/schema: expected gputwin.validate/1 (validate --json), found 'gputwin.plan/1'"))
      << error;
}

TEST(ValidateJson, TruncatedDocumentIsMalformedJsonWithItsLine) {
  const std::string error =
      error_of(read_validate_json(testing::truncated(faulty().text()), "validate.json"));
  EXPECT_TRUE(contains(error, "validate.json:")) << error;
  EXPECT_TRUE(contains(error, "malformed JSON")) << error;
}

TEST(ValidateJson, MissingFieldAndUnknownSeverityAreNamedByTheirPointer) {
  const std::string text = faulty().text();
  const std::string no_rule =
      error_of(read_validate_json(testing::without(text, "/findings/0/rule"), "validate.json"));
  EXPECT_TRUE(contains(no_rule, "/findings/0: missing field 'rule'")) << no_rule;
  const std::string no_summary =
      error_of(read_validate_json(testing::without(text, "/summary"), "validate.json"));
  EXPECT_TRUE(contains(no_summary, "/: missing field 'summary'")) << no_summary;
  std::string fatal = text;
  const std::size_t at = fatal.find("\"severity\": \"");
  ASSERT_NE(at, std::string::npos);
  fatal.insert(at + 13, "fatal-");
  const std::string error = error_of(read_validate_json(fatal, "validate.json"));
  EXPECT_TRUE(contains(error, "/findings/0/severity: expected critical, warning or info, found 'fatal-"))
      << error;
}

}  // namespace
}  // namespace gputwin
