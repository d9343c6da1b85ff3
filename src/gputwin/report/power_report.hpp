// The power and energy lines of perf train, perf infer and perf serve (text and the JSON "power" object), and
// their reader.
//
//   PowerReport r{point, node, "dgx-h100", PowerUnit::training_step, energy, tokens_per_step, ...};
//   std::cout << power_text(r);                  // appended to the command's text
//   json["power"] = power_json(r);               // inside gputwin.perf-train/1 and gputwin.infer/1
//   Result<EnergySummary> back = power_summary_from_json(document_text, "train.json");  // reads /power back
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/power_model.hpp"

namespace gputwin {

enum class PowerUnit { training_step, inference_batch, serving_run };

struct PowerReport {
  PowerOperatingPoint point;
  NodePower node;
  std::string system_id;
  PowerUnit unit = PowerUnit::training_step;
  EnergyEstimate energy;       // one unit (a step; or one batch: prefill + every decode step)
  double tokens_per_unit = 0;  // training: global batch x sequence; inference: sequences x output tokens
  std::optional<double> default_seconds;  // the unit's time at the default limit, when capped
  double run_tokens = 0;                  // training: tokens of the whole run (0: per 1T tokens is shown)
  std::optional<SystemPowerFigure> published_node;  // a published training draw of the system, to compare
  // Serving (perf serve): the run's finished requests and the share of the GPUs' time spent in iterations.
  int requests = 0;
  double busy_fraction = 0;
};

[[nodiscard]] std::string power_text(const PowerReport& report);
[[nodiscard]] nlohmann::json power_json(const PowerReport& report);

// What the reader gives back of a document's "power" object.
struct EnergySummary {
  std::string accelerator;
  double limit_w = 0, default_limit_w = 0;
  bool capped = false;
  double compute_factor = 1, memory_factor = 1;
  double gpu_average_w = 0, gpu_peak_w = 0, node_average_w = 0, node_peak_w = 0, rack_average_w = 0,
         rack_peak_w = 0;
  double energy_per_unit_kwh = 0, energy_per_token_j = 0;
};

// Reads the "power" object of a perf train or perf infer JSON document; a missing or bad field is named by
// its JSON pointer.
[[nodiscard]] Result<EnergySummary> power_summary_from_json(std::string_view text, const std::string& source);

}  // namespace gputwin
