#include "gputwin/sim/sim_test_support.hpp"

#include <gtest/gtest.h>

#include <utility>

#include "gputwin/core/data_dir.hpp"

namespace gputwin::testing {

JobSpec job(const std::string& id, double submit, int gpus, double duration, const std::string& group) {
  JobSpec spec;
  spec.id = id;
  spec.submit_time = submit;
  spec.gpus = gpus;
  spec.duration = duration;
  spec.group = group;
  return spec;
}

ReplayOptions every(double seconds) {
  ReplayOptions options;
  options.interval = seconds;
  return options;
}

FailureRates bundled_failure_rates() {
  auto rates = load_failure_rates(bundled_data_dir() + "/reliability/failure-rates.yaml");
  EXPECT_TRUE(rates.ok()) << rates.error_text();
  if (!rates.ok()) return {};
  return std::move(rates).value();
}

}  // namespace gputwin::testing
