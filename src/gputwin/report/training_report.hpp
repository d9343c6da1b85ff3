// Reports of the training models: step time with its terms, throughput, MFU/HFU with their FLOP convention,
// memory per GPU with the verdict; the sizing table. Text for the terminal, JSON for tools.
//
//   std::cout << training_text(run, estimate, /*explain*/ true);
//   nlohmann::json doc = training_json(run, estimate);   // schema "gputwin.perf-train/1"
//   Result<SizingResult> sizing = read_sizing_json(text, "size.json");   // perf size --json read back
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/core/json_input.hpp"
#include "gputwin/perf/training.hpp"
#include "gputwin/perf/training_search.hpp"
#include "gputwin/perf/training_sizing.hpp"
#include "gputwin/plan/workload_fit.hpp"

namespace gputwin {

inline constexpr const char* kTrainingSchema = "gputwin.perf-train/1";
inline constexpr const char* kSizingSchema = "gputwin.perf-size/1";

// What the run is, for the report's heading.
struct TrainingRunInfo {
  const TransformerModel* model = nullptr;
  const PerfHardware* hardware = nullptr;
  const TrainingCalibration* calibration = nullptr;
  std::optional<TrainingSearch> search;  // set when the configuration was found by --search
  std::string precision_recipe;          // the --precision recipe the config applied (empty: not stated)
};

[[nodiscard]] std::string training_text(const TrainingRunInfo& run, const TrainingEstimate& estimate,
                                        bool explain);
[[nodiscard]] nlohmann::json training_json(const TrainingRunInfo& run, const TrainingEstimate& estimate);

// The FLOP convention every MFU is stated with.
[[nodiscard]] std::string_view flop_convention();

// `cost_basis` says where the GPU-hour prices came from ("GPU-hour prices of prices.yaml", a cluster's TCO);
// empty when there were none. `deadline_rule` says what the days were held against (time-to-train under
// failures, or work days); printed under the title when given.
[[nodiscard]] std::string sizing_text(const TransformerModel& model, double tokens, double days,
                                      const std::vector<SizingRow>& rows, const std::string& cost_basis = {},
                                      const std::string& deadline_rule = {});
[[nodiscard]] nlohmann::json sizing_json(const TransformerModel& model, double tokens, double days,
                                         const std::vector<SizingRow>& rows,
                                         const std::string& cost_basis = {},
                                         const std::string& deadline_rule = {});

// How a spec's node count was sized for its workload: the answer, its split and every count tried.
[[nodiscard]] std::string workload_fit_text(const WorkloadFit& fit);
[[nodiscard]] nlohmann::json workload_fit_json(const WorkloadFit& fit);

// What a gputwin.perf-train/1 document holds for a chart: the terms that add up to one training step.
struct StepTerm {
  std::string name;
  double seconds = 0;
};
struct TrainingBreakdown {
  std::string source;
  std::string model;
  int gpus = 0;
  double step_time_s = 0;
  double mfu = 0;
  std::vector<StepTerm> terms;
};

// Reads a gputwin.perf-train/1 document back; throws InputFailure naming the field when one is missing.
[[nodiscard]] TrainingBreakdown training_breakdown_from_json(const JsonField& root,
                                                             const std::string& source);

// What a gputwin.perf-size/1 document holds for the HTML report and for comparing accelerators: per
// accelerator, the GPUs, split, days, MFU, memory and cost of its answer, or why there is none. The FLOP
// convention is not read (flop_convention() states it).
struct SizingSplit {
  int tp = 1;
  int pp = 1;
  int vp = 1;
  int cp = 1;
  int ep = 1;  // expert-parallel size; 1 in documents written before it was carried
  int dp = 1;
  int micro_batch = 1;
  std::string recompute;
  int zero = 0;
  int idle_gpus = 0;
};
struct SizedAccelerator {
  std::string accelerator;
  std::string system;  // empty when no catalog system carries it
  std::string note;    // why there is no answer; empty when there is one
  bool sized = false;  // the fields below are set
  int gpus = 0;
  double days = 0;
  double mfu = 0;
  SizingSplit split;
  double memory_gb = 0;  // per GPU, of memory_capacity_gb
  double memory_capacity_gb = 0;
  std::optional<double> cost_usd;  // empty without a GPU-hour price
};
struct SizingResult {
  std::string source;  // the file it was read from
  std::string model;
  double parameters = 0;
  double tokens = 0;
  double days = 0;         // the time allowed
  std::string cost_basis;  // empty when unpriced
  std::vector<SizedAccelerator> accelerators;
};

// Reads a gputwin.perf-size/1 document back; throws InputFailure naming the field (JSON pointer) when the
// schema is another or a field is missing or of the wrong type.
[[nodiscard]] SizingResult sizing_result_from_json(const JsonField& root, const std::string& source);
[[nodiscard]] Result<SizingResult> read_sizing_json(std::string_view text, const std::string& source);

}  // namespace gputwin
