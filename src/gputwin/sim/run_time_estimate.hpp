// What a scheduler knows of a job's run time before the job ends: the user's requested time when the trace
// records one, otherwise a stated estimate (the true duration times an over-estimate factor). EASY backfill
// plans its reservations and backfills with it; the true duration is never used unless the factor is 1 and
// says so.
//
//   auto estimate = load_run_time_estimate(data_dir + "/reference/runtime-estimates.yaml");
//   ReplayOptions options;
//   options.run_time_estimate = estimate.value();                    // 2.42 x run time, with its source
//   options.run_time_estimate = RunTimeEstimate::factor_given(3.0);  // --runtime-estimate-factor 3
//   auto either = run_time_estimate_or_default(std::nullopt);        // the data default
//   double planned = expected_run_time(job, options.run_time_estimate);
#pragma once

#include <optional>
#include <string>

#include "gputwin/core/error.hpp"
#include "gputwin/trace/records.hpp"

namespace gputwin {

struct RunTimeEstimate {
  double factor = 1;  // estimate = factor x duration for jobs without a requested time
  std::string source = "perfect foresight: the job's own duration";  // where the factor comes from

  [[nodiscard]] static RunTimeEstimate factor_given(double factor);  // a user's factor, so stated
};

// The default factor and its source from a data file (data/reference/runtime-estimates.yaml).
[[nodiscard]] Result<RunTimeEstimate> load_run_time_estimate(const std::string& path);
// The user's factor when one is given (> 0), else the bundled data default: what `simulate replay` and
// `sweep` both plan EASY with.
[[nodiscard]] Result<RunTimeEstimate> run_time_estimate_or_default(std::optional<double> factor);

// The requested time when the trace gives one (> 0), else estimate.factor x the duration.
[[nodiscard]] double expected_run_time(const JobSpec& job, const RunTimeEstimate& estimate);

}  // namespace gputwin
