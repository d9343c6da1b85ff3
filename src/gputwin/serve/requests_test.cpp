#include "gputwin/serve/requests.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace gputwin {
namespace {

double gap_cv(const std::vector<ServeRequest>& requests) {
  double sum = 0, sum2 = 0;
  const auto n = static_cast<double>(requests.size() - 1);
  for (std::size_t k = 1; k < requests.size(); ++k) {
    const double gap = requests[k].arrival_s - requests[k - 1].arrival_s;
    sum += gap;
    sum2 += gap * gap;
  }
  const double mean = sum / n;
  return std::sqrt(sum2 / n - mean * mean) / mean;
}

TEST(ServeArrivals, PoissonHasTheRateAndUnitVariation) {
  const auto requests = generate_arrivals({.rate_per_s = 20, .duration_s = 2000}, 7);
  EXPECT_NEAR(requests.size() / 2000.0, 20.0, 0.5);
  EXPECT_NEAR(gap_cv(requests), 1.0, 0.03);
  EXPECT_EQ(requests, generate_arrivals({.rate_per_s = 20, .duration_s = 2000}, 7)) << "deterministic";
}

TEST(ServeArrivals, BurstyArrivalsKeepTheRateWithTheStatedVariation) {
  const auto requests = generate_arrivals({.rate_per_s = 20, .duration_s = 5000, .gap_cv = 3}, 11);
  EXPECT_NEAR(requests.size() / 5000.0, 20.0, 1.0);
  EXPECT_NEAR(gap_cv(requests), 3.0, 0.25);
}

TEST(ServeTrace, ReadsTheAzureFormat) {
  const auto trace = parse_request_trace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:50.9951690,396,109\n",
      "t.csv");
  ASSERT_TRUE(trace.ok()) << trace.error_text();
  ASSERT_EQ(trace.value().size(), 2u);
  EXPECT_DOUBLE_EQ(trace.value()[0].arrival_s, 0);
  EXPECT_NEAR(trace.value()[1].arrival_s, 4.314579, 1e-7);
  EXPECT_EQ(trace.value()[1].input_tokens, 396);
  EXPECT_EQ(trace.value()[1].output_tokens, 109);
}

TEST(ServeTrace, BadRowsAreLocated) {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  const auto order =
      parse_request_trace(header + "2023-11-16 18:15:50,1,1\n2023-11-16 18:15:49,1,1\n", "t.csv");
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error_text().find("t.csv:3"), std::string::npos) << order.error_text();
  EXPECT_NE(order.error_text().find("time order"), std::string::npos);
  const auto zero = parse_request_trace(header + "2023-11-16 18:15:50,12,0\n", "t.csv");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error_text().find("GeneratedTokens"), std::string::npos) << zero.error_text();
  const auto truncated = parse_request_trace(header + "2023-11-16 18:15:50,12\n", "t.csv");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error_text().find("truncated"), std::string::npos) << truncated.error_text();
  EXPECT_FALSE(parse_request_trace("time,in,out\n", "t.csv").ok());
  EXPECT_FALSE(parse_request_trace(header, "t.csv").ok()) << "no request";
}

TEST(ServeTrace, ReadsTheSharedAzureConversationTrace) {
  const std::string path = "../shared/traces/azure-llm-inference-2023/AzureLLMInferenceTrace_conv.csv";
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << path << " is absent (../shared not beside the repository)";
  const auto trace = read_request_trace(path);
  ASSERT_TRUE(trace.ok()) << trace.error_text();
  EXPECT_GT(trace.value().size(), 10000u);
  EXPECT_DOUBLE_EQ(trace.value().front().arrival_s, 0);
  EXPECT_GT(trace.value().back().arrival_s, 600.0);
}

}  // namespace
}  // namespace gputwin
