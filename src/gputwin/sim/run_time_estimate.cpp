#include "gputwin/sim/run_time_estimate.hpp"

#include <filesystem>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/core/yaml_input.hpp"

namespace gputwin {

RunTimeEstimate RunTimeEstimate::factor_given(double factor) {
  if (factor == 1.0) return RunTimeEstimate{};
  return {factor, "set by the user"};
}

Result<RunTimeEstimate> load_run_time_estimate(const std::string& path) {
  try {
    const YamlField root = YamlDocument::load(path).root();
    root.expect_keys({"source", "confidence", "requested_over_actual_median", "requested_over_actual_p25",
                      "requested_over_actual_p75", "default_factor"});
    const YamlField factor = root.child("default_factor");
    RunTimeEstimate estimate;
    estimate.factor = factor.positive_number();
    estimate.source = "median requested/actual time on the " + root.child("source").child("name").text() +
                      "; " + root.child("confidence").text() + ", data/reference/" +
                      std::filesystem::path(path).filename().string();
    return estimate;
  } catch (const InputFailure& failure) {
    return failure.error();
  }
}

Result<RunTimeEstimate> run_time_estimate_or_default(std::optional<double> factor) {
  if (factor && *factor > 0) return RunTimeEstimate::factor_given(*factor);
  return load_run_time_estimate(bundled_data_dir() + "/reference/runtime-estimates.yaml");
}

double expected_run_time(const JobSpec& job, const RunTimeEstimate& estimate) {
  return job.requested_time > 0 ? job.requested_time : job.duration * estimate.factor;
}

}  // namespace gputwin
