#include "gputwin/serve/requests.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

// The draws' mean within 1 % of the stated MEAN over 100,000 draws (the standard error is 0.16 % at CV 0.5),
// and their coefficient of variation within 3 % of CV; the same seed gives the same draws, another seed
// others.
TEST(ServeLengths, LognormalDrawsHaveTheStatedMeanAndVariation) {
  const auto lognormal = parse_length_distribution("lognormal:1024,0.5");
  ASSERT_TRUE(lognormal.ok()) << lognormal.error_text();
  EXPECT_EQ(lognormal.value().text(), "lognormal (mean 1024, CV 0.5)");
  std::vector<ServeRequest> requests(100000);
  draw_lengths(requests, lognormal.value(), LengthDistribution::fixed_at(64), 5);
  double sum = 0, sum2 = 0;
  for (const ServeRequest& r : requests) {
    ASSERT_GE(r.input_tokens, 1);
    EXPECT_EQ(r.output_tokens, 64);
    sum += r.input_tokens;
    sum2 += static_cast<double>(r.input_tokens) * r.input_tokens;
  }
  const double n = static_cast<double>(requests.size());
  const double mean = sum / n;
  EXPECT_NEAR(mean, 1024, 10.24);
  EXPECT_NEAR(std::sqrt(sum2 / n - mean * mean) / mean, 0.5, 0.015);

  std::vector<ServeRequest> again(100000), other(100000);
  draw_lengths(again, lognormal.value(), LengthDistribution::fixed_at(64), 5);
  draw_lengths(other, lognormal.value(), LengthDistribution::fixed_at(64), 6);
  EXPECT_EQ(requests, again) << "deterministic for a seed";
  EXPECT_NE(requests, other);
}

// uniform:LO,HI: every whole number of the range, its mean (LO + HI) / 2 within 1 %; both ends drawn.
TEST(ServeLengths, UniformDrawsCoverTheRangeWithItsMean) {
  const auto uniform = parse_length_distribution("uniform:10,20");
  ASSERT_TRUE(uniform.ok()) << uniform.error_text();
  EXPECT_DOUBLE_EQ(uniform.value().mean(), 15);
  std::vector<ServeRequest> requests(20000);
  draw_lengths(requests, LengthDistribution::fixed_at(7), uniform.value(), 3);
  double sum = 0;
  int least = 1000, most = 0;
  for (const ServeRequest& r : requests) {
    EXPECT_EQ(r.input_tokens, 7);
    least = std::min(least, r.output_tokens);
    most = std::max(most, r.output_tokens);
    sum += r.output_tokens;
  }
  EXPECT_EQ(least, 10);
  EXPECT_EQ(most, 20);
  EXPECT_NEAR(sum / 20000, 15, 0.15);
}

// The arrival times do not move when the lengths are drawn (the lengths have a stream of their own).
TEST(ServeLengths, DrawnLengthsKeepTheArrivalTimes) {
  const ArrivalProcess poisson{.rate_per_s = 10, .duration_s = 100};
  auto drawn = generate_arrivals(poisson, 9);
  draw_lengths(drawn, parse_length_distribution("uniform:1,4096").value(),
               parse_length_distribution("lognormal:200,1").value(), 9);
  const auto fixed = generate_arrivals(poisson, 9);
  ASSERT_EQ(drawn.size(), fixed.size());
  for (std::size_t k = 0; k < drawn.size(); ++k) EXPECT_EQ(drawn[k].arrival_s, fixed[k].arrival_s) << k;
}

TEST(ServeLengths, BadDistributionTextSaysWhatIsWrong) {
  const auto message = [](const std::string& text) {
    const auto parsed = parse_length_distribution(text);
    return parsed.ok() ? std::string("accepted") : parsed.errors().front().message;
  };
  EXPECT_NE(message("lognormal:1024").find("needs two values"), std::string::npos)
      << message("lognormal:1024");
  EXPECT_NE(message("uniform:20,10").find("LO above HI"), std::string::npos);
  EXPECT_NE(message("uniform:0,10").find("whole numbers of at least 1"), std::string::npos);
  EXPECT_NE(message("lognormal:1024,0").find("CV above 0"), std::string::npos);
  EXPECT_NE(message("lognormal:abc,0.5").find("needs numbers"), std::string::npos);
  EXPECT_NE(message("gamma:2,3").find("no known distribution 'gamma'"), std::string::npos);
  EXPECT_NE(message("0").find("at least 1 token"), std::string::npos);
  EXPECT_NE(message("12x").find("'12x'"), std::string::npos);
  EXPECT_EQ(parse_length_distribution("2048").value().text(), "2048");
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
