#include "gputwin/validate/dcgm_diag.hpp"

#include <gtest/gtest.h>

#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

using testing::fixture;

const DiagTest* find_test(const DcgmDiagReport& report, const std::string& name) {
  for (const DiagTest& test : report.tests)
    if (test.name == name) return &test;
  return nullptr;
}

TEST(DcgmDiag, ReadsTheLevelOneDeploymentTests) {
  const std::string path = fixture("dcgm/VirtualClient/DCGMIDiag_r1_results.json");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const auto result = DcgmDiag::read_file(path);
  ASSERT_TRUE(result.ok()) << result.error_text();
  EXPECT_EQ(result.value().format_major, 3);
  ASSERT_EQ(result.value().tests.size(), 9U);
  for (const DiagTest& test : result.value().tests) {
    EXPECT_EQ(test.category, "Deployment");
    ASSERT_EQ(test.results.size(), 1U);
    EXPECT_EQ(test.results[0].status, "Pass");
  }
  EXPECT_EQ(result.value().tests.back().name, "Inforom");
}

TEST(DcgmDiag, ReadsTheLevelThreeTestsWithGpuIds) {
  const std::string path = fixture("dcgm/VirtualClient/DCGMIDiag_r3_results.json");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const auto result = DcgmDiag::read_file(path);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const DcgmDiagReport& report = result.value();
  EXPECT_EQ(report.tests.size(), 16U);  // 9 deployment, 1 integration, 3 hardware, 3 stress
  const DiagTest* eud = find_test(report, "EUD Test");
  ASSERT_NE(eud, nullptr);
  EXPECT_EQ(eud->category, "Hardware");
  EXPECT_EQ(eud->results.at(0).status, "Skip");
  const DiagTest* power = find_test(report, "Targeted Power");
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(power->results.at(0).entity_ids, std::vector<int>{0});
  ASSERT_TRUE(power->results.at(0).info.has_value());
  EXPECT_NE(power->results.at(0).info->find("power average"), std::string::npos);
}

// No real DCGM 4.x output has a licence that lets us keep it, so this document follows NVIDIA's schema
// (fixtures/dcgm/DCGM/dcgm_diag_schema.json) field for field.
TEST(DcgmDiag, ReadsTheVersion4LayoutOfTheSchema) {
  const std::string json = R"({
    "DCGM Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{
      "name": "memory", "test_summary": {"status": "Fail"},
      "results": [
        {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Pass"},
        {"entity_group": "GPU", "entity_group_id": 1, "entity_id": 3, "status": "Fail",
         "warnings": [{"error_category": 3, "error_id": 88, "error_severity": 2,
                       "warning": "GPU 3 had a DBE"}]}]}]}]},
    "entity_groups": [{"entity_group": "GPU", "entity_group_id": 1,
                       "entities": [{"entity_id": 0, "device_id": "2330", "serial_num": "1650123"},
                                    {"entity_id": 3, "device_id": "2330"}]}],
    "metadata": {"version": "4.1.1", "Driver Version Detected": "570.86.15"}})";
  const auto result = DcgmDiag::parse(json, "v4.json");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const DcgmDiagReport& report = result.value();
  EXPECT_EQ(report.format_major, 4);
  EXPECT_EQ(report.dcgm_version, "4.1.1");
  EXPECT_EQ(report.driver_version, "570.86.15");
  ASSERT_EQ(report.tests.size(), 1U);
  EXPECT_EQ(report.tests[0].summary_status, "Fail");
  const DiagResult& failed = report.tests[0].results.at(1);
  EXPECT_EQ(failed.entity_ids, std::vector<int>{3});
  EXPECT_EQ(failed.warnings, std::vector<std::string>{"GPU 3 had a DBE"});
  ASSERT_EQ(report.entities.size(), 2U);
  EXPECT_EQ(report.entities[0].serial, "1650123");
  EXPECT_FALSE(report.entities[1].serial.has_value());
}

TEST(DcgmDiag, NamesTheFieldOfAWrongType) {
  const auto result = DcgmDiag::parse(
      R"({"DCGM GPU Diagnostic": {"test_categories": [{"category": "Deployment", "tests": [{"name": 7}]}]}})",
      "d.json");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].field, "/DCGM GPU Diagnostic/test_categories/0/tests/0/name");
  EXPECT_EQ(result.errors()[0].where.line, 1);
  EXPECT_EQ(result.errors()[0].where.column, 92);  // the 7
}

TEST(DcgmDiag, RejectsJsonOfAnotherTool) {
  const auto result = DcgmDiag::parse(R"({"results": []})", "nccl.json");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("not dcgmi diag"), std::string::npos);
}

}  // namespace
}  // namespace gputwin::validate
