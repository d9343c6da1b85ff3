// The `perf infer` report: an inference setup's memory facts and its estimates by concurrent sequences, as
// text or JSON (schema gputwin.infer/1).
//
//   InferenceReport report{hardware, setup, estimates_by_sequences, max_load};
//   std::cout << inference_text(report);   // or inference_json(report).dump(2)
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/perf/inference.hpp"

namespace gputwin {

inline constexpr const char* kInferenceSchema = "gputwin.infer/1";

struct InferenceReport {
  PerfHardware hardware;
  InferenceSetup setup;
  std::vector<InferenceEstimate> by_sequences;
  InferenceEstimate max_load;
};

[[nodiscard]] std::string inference_text(const InferenceReport& report);
[[nodiscard]] nlohmann::json inference_json(const InferenceReport& report);
// Why a replica whose weights do not fit gets no estimate, and how much memory per GPU it lacks.
[[nodiscard]] std::string inference_refusal_text(const InferenceReport& report);

}  // namespace gputwin
