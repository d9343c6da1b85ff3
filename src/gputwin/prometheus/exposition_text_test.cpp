#include "gputwin/prometheus/exposition_text.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "gputwin/prometheus/prometheus_test_support.hpp"

namespace gputwin::prometheus {
namespace {

using testing::fixture;

const MetricSample* find_sample(const MetricScrape& scrape, const std::string& name) {
  for (const MetricSample& sample : scrape.samples)
    if (sample.name == name) return &sample;
  return nullptr;
}

TEST(ExpositionText, ReadsAFullDcgmExporterScrape) {
  const std::string path =
      fixture("dcgm/k8s-ai-conformance/dcgm-exporter-metrics_L4_kops__output.md_L51-121.txt");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const auto result = ExpositionText::read_file(path);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const MetricScrape& scrape = result.value();
  EXPECT_EQ(scrape.samples.size(), 23U);
  EXPECT_EQ(scrape.type.size(), 23U);
  EXPECT_EQ(scrape.help.size(), 23U);
  EXPECT_TRUE(scrape.skipped.empty());
  const MetricSample* power = find_sample(scrape, "DCGM_FI_DEV_POWER_USAGE");
  ASSERT_NE(power, nullptr);
  EXPECT_DOUBLE_EQ(power->value, 16.365);
  EXPECT_EQ(power->label("modelName"), "NVIDIA L4");
  EXPECT_EQ(power->label("DCGM_FI_DRIVER_VERSION"), "580.105.08");
  EXPECT_EQ(power->label("pci_bus_id"), "00000000:31:00.0");
  EXPECT_EQ(scrape.help.front().second, "SM clock frequency (in MHz).");
}

TEST(ExpositionText, SkipsTheCommandAboveAScrapeWithoutHelpLines) {
  const std::string path = fixture(
      "dcgm/k8s-ai-conformance/dcgm-exporter-metrics_T4_ericsson-ccd__accelerator_metrics.md_L14-35.txt");
  GPUTWIN_REQUIRE_FIXTURE(path);
  const auto result = ExpositionText::read_file(path);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const MetricScrape& scrape = result.value();
  EXPECT_EQ(scrape.samples.size(), 20U);
  ASSERT_EQ(scrape.skipped.size(), 1U);
  EXPECT_EQ(scrape.skipped[0].line, 1);  // the curl command
  const MetricSample* temperature = find_sample(scrape, "DCGM_FI_DEV_GPU_TEMP");
  ASSERT_NE(temperature, nullptr);
  EXPECT_EQ(temperature->value, 74.0);
  EXPECT_EQ(temperature->label("modelName"), "Tesla T4");
}

TEST(ExpositionText, ReadsEscapesSpecialValuesAndTimestamps) {
  const std::string text =
      "# HELP up Whether \\\"up\\\".\n# TYPE up gauge\n"
      "up{job=\"a\\\"b\",path=\"C:\\\\x\",note=\"two\\nlines\",} NaN 1700000000000\n"
      "temperature +Inf\nfree -Inf\n";
  const auto result = ExpositionText::parse(text, "m.txt");
  ASSERT_TRUE(result.ok()) << result.error_text();
  const auto& samples = result.value().samples;
  ASSERT_EQ(samples.size(), 3U);
  EXPECT_EQ(samples[0].label("job"), "a\"b");
  EXPECT_EQ(samples[0].label("path"), "C:\\x");
  EXPECT_EQ(samples[0].label("note"), "two\nlines");
  EXPECT_TRUE(std::isnan(samples[0].value));
  EXPECT_EQ(samples[0].timestamp_ms, 1700000000000);
  EXPECT_TRUE(std::isinf(samples[1].value) && samples[1].value > 0);
  EXPECT_TRUE(std::isinf(samples[2].value) && samples[2].value < 0);
}

TEST(ExpositionText, NamesLineAndColumnOfAnUnterminatedLabel) {
  const auto result = ExpositionText::parse("# TYPE a gauge\na{gpu=\"0} 1\n", "m.txt");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 2);
  EXPECT_GT(result.errors()[0].where.column, 0);
}

TEST(ExpositionText, RejectsAnUnknownMetricType) {
  const auto result = ExpositionText::parse("# TYPE a thermometer\n", "m.txt");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].field, "a");
}

TEST(ExpositionText, SkipsCurlsTrailingConnectionLine) {
  const auto result = ExpositionText::parse(
      "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40\n"
      "* Connection #0 to host localhost left intact\n",
      "m.txt");
  ASSERT_TRUE(result.ok()) << result.error_text();
  EXPECT_EQ(result.value().samples.size(), 1U);
  ASSERT_EQ(result.value().skipped.size(), 1U);
  EXPECT_EQ(result.value().skipped[0].line, 3);
}

TEST(ExpositionText, TextBetweenMetricLinesIsAnErrorQuotingIt) {
  const auto result =
      ExpositionText::parse("a 1\n* Connection #0 to host localhost left intact\nb 2\n", "m.txt");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 2);
  EXPECT_NE(result.errors()[0].message.find("'* Connection #0 to host localhost left intact'"),
            std::string::npos)
      << result.error_text();
}

TEST(ExpositionText, AMalformedLastSampleIsStillAnError) {
  const auto result = ExpositionText::parse("a 1\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 16.3W\n", "m.txt");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.errors()[0].where.line, 2);
  EXPECT_NE(result.errors()[0].message.find("16.3W"), std::string::npos) << result.error_text();
}

}  // namespace
}  // namespace gputwin::prometheus
