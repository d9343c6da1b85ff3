// Over a Prometheus range read: a node whose series stopped before the range's end, or were missing for part
// of it, and a GPU whose series stopped or went missing while its node reported. The read gives each node's
// runs of steps without a sample (validate/prometheus_fleet); a run longer than the tolerance is a finding.
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "gputwin/prometheus/time_params.hpp"
#include "gputwin/validate/finding_collector.hpp"

namespace gputwin::validate {
namespace {

// "30m", "1h", "90s": the step in its largest whole unit, as --step was likely written.
std::string step_text(double seconds) {
  for (const auto& [unit, size] : {std::pair{"d", 86400.0}, std::pair{"h", 3600.0}, std::pair{"m", 60.0}})
    if (seconds >= size && std::fmod(seconds, size) == 0) return fmt::format("{:g}{}", seconds / size, unit);
  return prometheus::duration_text(seconds);
}

std::string missing_text(const ReportingGap& gap, double step_s) {
  return fmt::format("{} step{} of {}", gap.steps, gap.steps == 1 ? "" : "s", step_text(step_s));
}

// "at 11:00" for one step, "from 08:00 to 09:30" for more.
std::string when_text(const ReportingGap& gap) {
  if (gap.steps == 1) return "at " + prometheus::rfc3339(gap.from_s);
  return "from " + prometheus::rfc3339(gap.from_s) + " to " + prometheus::rfc3339(gap.to_s);
}

SourceLocation node_location(const FleetNode& node) {
  return {node.files.empty() ? node.path : node.files.front().path, 0, 0};
}

}  // namespace

double gap_tolerance_steps(const ChecksData& checks, const CheckOptions& options) {
  if (options.gap_tolerance_steps) return *options.gap_tolerance_steps;
  return checks.rule("node-stopped-reporting").number_parameters.at("tolerance_steps");
}

void check_reporting(const FleetNode& node, const CheckOptions& options, Findings& out) {
  if (!node.reporting) return;
  const RangeReporting& reporting = *node.reporting;
  const double tolerance = options.gap_tolerance_steps.value_or(
      out.rule("node-stopped-reporting").number_parameters.at("tolerance_steps"));
  const SourceLocation where = node_location(node);
  for (const ReportingGap& gap : reporting.gaps) {
    if (gap.steps <= tolerance) continue;
    const FindingValues values = {{"last", prometheus::rfc3339(reporting.last_sample_s)},
                                  {"from", prometheus::rfc3339(gap.from_s)},
                                  {"to", prometheus::rfc3339(gap.to_s)},
                                  {"when", when_text(gap)},
                                  {"missing", missing_text(gap, reporting.step_s)}};
    out.add(gap.to_end ? "node-stopped-reporting" : "node-reporting-gap", node.name, std::nullopt, where,
            values);
  }
  for (const auto& [index, gpu] : reporting.gpus) {
    for (const ReportingGap& gap : gpu.gaps) {
      if (gap.steps <= tolerance) continue;
      const FindingValues values = {{"last", prometheus::rfc3339(gpu.last_sample_s)},
                                    {"from", prometheus::rfc3339(gap.from_s)},
                                    {"to", prometheus::rfc3339(gap.to_s)},
                                    {"when", when_text(gap)},
                                    {"node_last", prometheus::rfc3339(reporting.last_sample_s)},
                                    {"missing", missing_text(gap, reporting.step_s)}};
      out.add(gap.to_end ? "gpu-stopped-reporting" : "gpu-reporting-gap", node.name, index, where, values);
    }
  }
}

}  // namespace gputwin::validate
