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

// A recorded trace: CSV with the header TIMESTAMP,ContextTokens,GeneratedTokens (the Azure LLM inference
// traces 2023, Splitwise, ISCA 2024), timestamps "YYYY-MM-DD HH:MM:SS[.fraction]". Rows must be in time order
// and every request must have at least one prompt and one output token; anything else is an error naming the
// file, line and field.
[[nodiscard]] Result<std::vector<ServeRequest>> read_request_trace(const std::string& path);
[[nodiscard]] Result<std::vector<ServeRequest>> parse_request_trace(const std::string& text,
                                                                    const std::string& name);

}  // namespace gputwin
