// The JSON results the HTML report draws, read back from the files `simulate ... --json` and `perf ...
// --json` wrote. Each file is recognised by its `schema` field; a file that is not JSON, has a schema the
// report does not draw, or lacks a field a chart needs is an error naming the file (and the field).
//
//   auto inputs = load_report_inputs({"replay-fifo.json", "packing-fgd.json"}, {"busbw.json"});
//   if (!inputs.ok()) std::cerr << inputs.error_text();
//   for (const ReplaySeries& replay : inputs.value().replays) { ... replay.utilisation ... }
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/plan/buy_vs_rent.hpp"
#include "gputwin/plan/power_budget.hpp"
#include "gputwin/report/collective_report.hpp"
#include "gputwin/report/goodput_report.hpp"
#include "gputwin/report/inference_report.hpp"
#include "gputwin/report/packing_report.hpp"
#include "gputwin/report/replay_report.hpp"
#include "gputwin/report/serve_documents.hpp"
#include "gputwin/report/training_report.hpp"
#include "gputwin/report/validate_report.hpp"

namespace gputwin {

// A `validate --json` result: its findings and, read from Prometheus over a range, its timeline.
struct ValidateDocument {
  std::string source;
  ValidateSummary summary;
};

struct ReportInputs {
  std::vector<ReplaySeries> replays;
  std::vector<PackingCurve> packings;
  std::vector<CollectiveCurve> collectives;
  std::vector<TrainingBreakdown> trainings;
  std::vector<InferenceResult> inferences;
  std::vector<SizingResult> sizings;
  std::vector<ServeDocument> serves;
  std::vector<CapacityDocument> capacities;
  std::vector<GoodputDocument> goodputs;  // perf goodput --json
  std::vector<ValidateDocument> validations;
  std::optional<BuyVsRent> buy_vs_rent;  // `report --rent PRICES`: the design against cloud prices
  // A spec sized to facility.power_budget: every platform and GPU power cap compared within it (the plan's).
  std::optional<PowerBudgetPlan> power_budget;
};

// Simulation files must be replay or packing results, perf files collective, training, inference, sizing,
// serving or serving-capacity results, validate files validate --json results.
[[nodiscard]] Result<ReportInputs> load_report_inputs(const std::vector<std::string>& simulation_paths,
                                                      const std::vector<std::string>& perf_paths,
                                                      const std::vector<std::string>& validate_paths = {});

// The same for one document already in memory; `source` names it in errors.
enum class ReportInputKind { simulation, perf, validate };
[[nodiscard]] Result<ReportInputs> parse_report_input(std::string_view text, const std::string& source,
                                                      ReportInputKind kind);

}  // namespace gputwin
