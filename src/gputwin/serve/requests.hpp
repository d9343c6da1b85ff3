// The requests a serving simulation replays: generated arrivals (Poisson, or bursty with a stated coefficient
// of variation) or a recorded trace in the Azure LLM inference format.
//
//   std::vector<ServeRequest> open = generate_arrivals({.rate_per_s = 10, .duration_s = 600,
//                                                       .input_tokens = 2048, .output_tokens = 256}, 42);
//   Result<std::vector<ServeRequest>> trace = read_request_trace("AzureLLMInferenceTrace_conv.csv");
//
// Arrival times are seconds from the first request. Generation is deterministic for a seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/random.hpp"
#include "gputwin/serve/engine.hpp"

namespace gputwin {

struct ArrivalProcess {
  double rate_per_s = 1;
  double duration_s = 60;
  // Coefficient of variation of the gaps between arrivals: 1 = Poisson (exponential gaps); above 1 burstier
  // (gamma-distributed gaps of shape 1/cv^2, the same mean).
  double gap_cv = 1;
  int input_tokens = 128;
  int output_tokens = 128;
};

[[nodiscard]] std::vector<ServeRequest> generate_arrivals(const ArrivalProcess& process, std::uint64_t seed);

// A request length in tokens, fixed or drawn per request (every draw a whole number of at least 1):
// - fixed N;
// - uniform:LO,HI: every whole number from LO to HI equally likely (mean (LO + HI) / 2);
// - lognormal:MEAN,CV: exp(mu + sigma Z), Z standard normal, with sigma^2 = ln(1 + CV^2) and
//   mu = ln(MEAN) - sigma^2 / 2, so that the distribution's mean is MEAN and its coefficient of variation CV;
//   rounded to the nearest whole number, at least 1 (which moves the mean by under half a token when MEAN is
//   large against 1).
struct LengthDistribution {
  enum class Shape { fixed, uniform, lognormal };
  Shape shape = Shape::fixed;
  double first = 128;  // fixed: the length; uniform: the least; lognormal: the mean
  double second = 0;   // uniform: the most; lognormal: the coefficient of variation

  [[nodiscard]] static LengthDistribution fixed_at(int tokens) {
    return {Shape::fixed, static_cast<double>(tokens), 0};
  }
  [[nodiscard]] bool is_fixed() const { return shape == Shape::fixed; }
  [[nodiscard]] double mean() const;
  [[nodiscard]] std::string text() const;  // "1024", "uniform 256..4096", "lognormal (mean 1024, CV 0.5)"
};

// "N", "uniform:LO,HI" or "lognormal:MEAN,CV"; the error says what is wrong with the text (the caller names
// the option it came from).
[[nodiscard]] Result<LengthDistribution> parse_length_distribution(const std::string& text);

// One draw (fixed: the length, no draw).
[[nodiscard]] int draw_length(const LengthDistribution& distribution, Random& random);

// Every request's lengths drawn, input then output for each in order, from a random stream of their own for
// `seed` (the arrival times stay those of the same seed with fixed lengths).
void draw_lengths(std::vector<ServeRequest>& requests, const LengthDistribution& input,
                  const LengthDistribution& output, std::uint64_t seed);

// A recorded trace: CSV with the header TIMESTAMP,ContextTokens,GeneratedTokens (the Azure LLM inference
// traces 2023, Splitwise, ISCA 2024), timestamps "YYYY-MM-DD HH:MM:SS[.fraction]". Rows must be in time order
// and every request must have at least one prompt and one output token; anything else is an error naming the
// file, line and field.
[[nodiscard]] Result<std::vector<ServeRequest>> read_request_trace(const std::string& path);
[[nodiscard]] Result<std::vector<ServeRequest>> parse_request_trace(const std::string& text,
                                                                    const std::string& name);

}  // namespace gputwin
