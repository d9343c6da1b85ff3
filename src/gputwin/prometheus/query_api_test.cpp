#include "gputwin/prometheus/query_api.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gputwin::prometheus {
namespace {

constexpr const char* kVector = R"({"status":"success","data":{"resultType":"vector","result":[
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","Hostname":"node01","gpu":"0"},"value":[1795003200.5,"41"]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","Hostname":"node01","gpu":"1"},"value":[1795003200.5,"NaN"]},
 {"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","Hostname":"node01","gpu":"1"},"value":[1795003200.5,"+Inf"]}
]},"warnings":["some warning"]})";

TEST(QueryAnswer, ReadsAVectorWithSpecialValues) {
  const auto answer = read_query_answer(kVector, "http://p:9090/api/v1/query");
  ASSERT_TRUE(answer.ok()) << answer.error_text();
  EXPECT_EQ(answer.value().type, ResultType::vector);
  ASSERT_EQ(answer.value().series.size(), 3U);
  const Series& first = answer.value().series[0];
  EXPECT_EQ(label_of(first.metric, "Hostname"), "node01");
  EXPECT_EQ(label_of(first.metric, "__name__"), "DCGM_FI_DEV_GPU_TEMP");
  ASSERT_EQ(first.points.size(), 1U);
  EXPECT_DOUBLE_EQ(first.points[0].time_s, 1795003200.5);
  EXPECT_DOUBLE_EQ(first.points[0].value, 41);
  EXPECT_TRUE(std::isnan(answer.value().series[1].points[0].value));
  EXPECT_TRUE(std::isinf(answer.value().series[2].points[0].value));
  EXPECT_EQ(answer.value().warnings, std::vector<std::string>{"some warning"});
}

TEST(QueryAnswer, ReadsAMatrix) {
  const auto answer = read_query_answer(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"gpu":"0"},
          "values":[[100,"1"],[400,"-Inf"],[700,"2.5e1"]]}]}})",
      "q");
  ASSERT_TRUE(answer.ok()) << answer.error_text();
  EXPECT_EQ(answer.value().type, ResultType::matrix);
  const auto& points = answer.value().series.at(0).points;
  ASSERT_EQ(points.size(), 3U);
  EXPECT_DOUBLE_EQ(points[2].time_s, 700);
  EXPECT_DOUBLE_EQ(points[2].value, 25);
  EXPECT_TRUE(std::isinf(points[1].value) && points[1].value < 0);
}

TEST(QueryAnswer, QuotesPrometheusErrors) {
  const auto answer = read_query_answer(
      R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": parse error"})", "q");
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error_text(),
            "q: Prometheus answered an error (bad_data): invalid parameter \"query\": parse error\n");
}

TEST(QueryAnswer, NamesTheJsonPathOfAWrongValue) {
  const auto answer = read_query_answer(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],[2,"lots"]]}]}})",
      "q");
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error_text().find("/data/result/0/values/1/1"), std::string::npos) << answer.error_text();
  EXPECT_NE(answer.error_text().find("\"lots\""), std::string::npos);
}

// A number no double holds (found by fuzz_query_api: a timestamp mutated to 179e672800) is a located error,
// not an uncaught exception.
TEST(QueryAnswer, ANumberTooLargeForADoubleIsALocatedError) {
  const auto answer = read_query_answer(
      "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"
      "{\"metric\":{},\"values\":[[179e672800,\"0\"]]}]}}",
      "q");
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error_text().find("q:2:"), std::string::npos) << answer.error_text();
  EXPECT_NE(answer.error_text().find("179e672800"), std::string::npos) << answer.error_text();
}

// The answer is read as it streams (SAX, no document): members in any order, labels sorted by name with the
// last of a repeated name kept, as a JSON object holds them.
TEST(QueryAnswer, ReadsMembersInAnyOrderAndSortsLabels) {
  const auto answer = read_query_answer(
      R"({"data":{"result":[{"values":[[5,"7"]],"metric":{"z":"1","a":"2","m":"x","m":"y"}}],
          "resultType":"matrix","extra":{"nested":[1,{"x":null}]}},"status":"success"})",
      "q");
  ASSERT_TRUE(answer.ok()) << answer.error_text();
  EXPECT_EQ(answer.value().series.at(0).metric, (Labels{{"a", "2"}, {"m", "y"}, {"z", "1"}}));
  ASSERT_EQ(answer.value().series.at(0).points.size(), 1U);
  EXPECT_DOUBLE_EQ(answer.value().series.at(0).points[0].value, 7);
}

// An error answer is quoted even when its data, or the shape of the rest, would be wrong too; a series'
// error names its index however the members were ordered.
TEST(QueryAnswer, ErrorsComeInTheOrderADocumentReaderMeetsThem) {
  EXPECT_EQ(read_query_answer(R"({"data":7,"error":"boom","status":"error"})", "q").error_text(),
            "q: Prometheus answered an error (no errorType): boom\n");
  const auto second = read_query_answer(
      R"({"status":"success","data":{"result":[{"metric":{},"value":[1,"1"]},{"metric":{"gpu":3},"value":[1,"x"]}],
          "resultType":"vector"}})",
      "q");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error_text().find("/data/result/1/metric/gpu"), std::string::npos) << second.error_text();
  EXPECT_NE(second.error_text().find("expected a string, got number"), std::string::npos)
      << second.error_text();
  // A matrix entry without "values" (its "value" is a vector's) is named.
  const auto matrix = read_query_answer(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"value":[1,"1"]}]}})", "q");
  EXPECT_NE(matrix.error_text().find("/data/result/0: missing \"values\""), std::string::npos)
      << matrix.error_text();
}

TEST(QueryAnswer, RejectsScalarsAndOtherShapes) {
  EXPECT_NE(read_query_answer(R"({"status":"success","data":{"resultType":"scalar","result":[1,"2"]}})", "q")
                .error_text()
                .find("expected vector or matrix"),
            std::string::npos);
  EXPECT_NE(read_query_answer(R"({"status":"success"})", "q").error_text().find("missing \"data\""),
            std::string::npos);
  EXPECT_NE(read_query_answer(R"([1,2])", "q").error_text().find("expected a JSON object"),
            std::string::npos);
  const auto cut = read_query_answer(R"({"status":"success","data":{"resu)", "q");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error_text().find("q:1:"), std::string::npos) << cut.error_text();
  EXPECT_NE(read_query_answer(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},
      "value":[1,2]}]}})",
                              "q")
                .error_text()
                .find("/data/result/0/value"),
            std::string::npos);
}

}  // namespace
}  // namespace gputwin::prometheus
