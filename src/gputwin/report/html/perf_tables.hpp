// The HTML report's tables of perf results whose figures read best as numbers: each `perf infer --json`
// result (latency and throughput by concurrent sequences) and each `perf size --json` result (GPUs, split,
// days and cost per accelerator). Key figures are also data-* attributes, for tests.
//
//   html += inference_section(inputs.inferences) + sizing_section(inputs.sizings);   // "" when none
#pragma once

#include <string>
#include <vector>

#include "gputwin/report/goodput_report.hpp"
#include "gputwin/report/inference_report.hpp"
#include "gputwin/report/serve_documents.hpp"
#include "gputwin/report/training_report.hpp"

namespace gputwin {

[[nodiscard]] std::string inference_section(const std::vector<InferenceResult>& inferences);
[[nodiscard]] std::string sizing_section(const std::vector<SizingResult>& sizings);
// perf goodput --json results: one row a job (interruptions, MTTF, checkpoint interval, ETTR, wall days).
[[nodiscard]] std::string goodput_section(const std::vector<GoodputDocument>& goodputs);
// perf serve --json runs (one row each: latency percentiles, throughput, targets met) and perf serve --search
// --json answers (the candidates as ranked).
[[nodiscard]] std::string serving_section(const std::vector<ServeDocument>& serves,
                                          const std::vector<CapacityDocument>& capacities);

}  // namespace gputwin
