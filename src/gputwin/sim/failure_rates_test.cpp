#include "gputwin/sim/failure_rates.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "gputwin/core/data_dir.hpp"
#include "gputwin/sim/failure_options.hpp"
#include "gputwin/sim/sim_test_support.hpp"

namespace gputwin {
namespace {

const std::string kHead = R"(title: t
exposures:
  e: {hours: 100, units: {gpu: 80, node: 10}}
job_defaults: {checkpoint_write: 5min, restart: 10min, source: s, confidence: assumed}
profiles:
  p:
    description: d
    set: fit
    rows:
)";

std::string error_of(const std::string& row) {
  const auto rates = parse_failure_rates(kHead + "      - " + row + "\n", "rates.yaml");
  EXPECT_FALSE(rates.ok());
  return rates.ok() ? std::string() : rates.error_text();
}

TEST(FailureRates, LlamaThreeCountsGiveTheirSharesAndTotal) {
  const FailureRates rates = testing::bundled_failure_rates();
  const FailureProfile* llama = rates.profile("llama3-table5");
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(llama->set, "fit");
  ASSERT_EQ(llama->rows.size(), 18U);
  double total = 0;
  for (const auto& row : llama->rows) total += row.count;
  EXPECT_EQ(total, 419);  // Table 5's counts, not its printed percentages
  EXPECT_EQ(llama->rows[0].id, "faulty-gpu");
  EXPECT_DOUBLE_EQ(llama->rows[0].rate_per_unit_hour, 148.0 / (16384.0 * 1296.0));
  // Over the whole 16,384-GPU cluster, the processes add up to 419 events in 1,296 hours.
  const ClusterShape shape{.gpus_per_node = 8};
  double per_hour = 0;
  for (const auto& p : failure_processes(*llama, shape)) per_hour += p.rate_per_unit_hour * 2048;
  EXPECT_NEAR(per_hour * 1296.0, 419.0, 1e-9);
}

// The repair of a node struck by a single command-line rate is data with its confidence, not a constant; a
// file may leave it out, and a zero repair is a located error.
TEST(FailureRates, TheNodeRepairDefaultIsReadFromTheData) {
  const FailureRates rates = testing::bundled_failure_rates();
  ASSERT_TRUE(rates.node_repair_default);
  EXPECT_DOUBLE_EQ(rates.node_repair_default->repair_hours, 24);
  EXPECT_EQ(rates.node_repair_default->confidence, "assumed");
  const std::string row =
      "{id: x, component: gpu, category: GPU, scope: node, value: 1, unit: per_node_day, "
      "repair: 1h, source: s, confidence: c}\n";
  const auto without = parse_failure_rates(kHead + "      - " + row, "rates.yaml");
  ASSERT_TRUE(without.ok()) << without.error_text();
  EXPECT_FALSE(without.value().node_repair_default);
  const auto zero = parse_failure_rates(
      kHead + "      - " + row + "node_repair_default: {repair: 0, source: s, confidence: assumed}\n",
      "rates.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error_text().find("rates.yaml:11:"), std::string::npos) << zero.error_text();
  EXPECT_NE(zero.error_text().find("must be greater than zero"), std::string::npos) << zero.error_text();
}

// The rate file's periods and the command line's rates read months the same way (failure_options' table).
TEST(FailureRates, ARatePerMonthIsTheSameInTheFileAndOnTheCommandLine) {
  const auto rates = parse_failure_rates(
      kHead +
          "      - {id: x, component: gpu, category: GPU, scope: node, value: 2, unit: per_node_month, "
          "repair: 1h, source: s, confidence: c}\n",
      "rates.yaml");
  ASSERT_TRUE(rates.ok()) << rates.error_text();
  EXPECT_DOUBLE_EQ(rates.value().profiles[0].rows[0].rate_per_unit_hour,
                   parse_failure_rate_per_hour("2/month", "--node-failure-rate"));
}

TEST(FailureRates, ProcessesScaleARateToTheirScope) {
  const FailureRates rates = testing::bundled_failure_rates();
  const ClusterShape shape{
      .gpus_per_node = 4, .nics_per_node = 2, .nodes_per_leaf = 16, .leaves_per_node = 2};
  const auto processes = failure_processes(*rates.profile("alibaba-hpn-network"), shape);
  ASSERT_EQ(processes.size(), 2U);
  const double month = 365.25 * 24 / 12;
  EXPECT_DOUBLE_EQ(processes[0].rate_per_unit_hour, 5.7e-4 / month * 2);  // per NIC -> per node (2 NICs)
  EXPECT_EQ(processes[1].scope, FailureScope::leaf_switch);
  EXPECT_DOUBLE_EQ(processes[1].rate_per_unit_hour, 5.1e-4 / month);  // per switch -> per leaf switch
  const auto gpu = failure_processes(*rates.profile("llama3-table5"), shape)[0];
  EXPECT_DOUBLE_EQ(gpu.rate_per_unit_hour, 4 * 148.0 / (16384.0 * 1296.0));  // per GPU -> per 4-GPU node
}

TEST(FailureRates, EveryProfileLoadsWithRepairOnEveryHardwareScope) {
  const FailureRates rates = testing::bundled_failure_rates();
  EXPECT_EQ(rates.profile_names(), "llama3-table5, meta-rsc1, meta-rsc2, alibaba-hpn-network");
  for (const auto& profile : rates.profiles) {
    for (const auto& row : profile.rows) {
      EXPECT_FALSE(row.source.empty()) << row.id;
      if (row.scope != FailureScope::job_on_node) {
        EXPECT_GT(row.repair_hours, 0) << row.id;
      }
    }
  }
  EXPECT_EQ(rates.replacement_thresholds.size(), 2U);
  EXPECT_DOUBLE_EQ(rates.job_defaults.checkpoint_write_hours, 5.0 / 60);
}

TEST(FailureRates, ARateWithoutItsUnitIsALocatedError) {
  const std::string error = error_of(
      "{id: a, component: gpu, category: GPU, scope: node, value: 1.0e-5, "
      "repair: 48h, source: s, confidence: read}");
  EXPECT_NE(error.find("rates.yaml:10:"), std::string::npos) << error;
  EXPECT_NE(error.find("profiles.p.rows[0].value"), std::string::npos) << error;
  EXPECT_NE(error.find("a rate needs its unit"), std::string::npos) << error;
}

TEST(FailureRates, AZeroRepairOnHardwareIsALocatedError) {
  const std::string error = error_of(
      "{id: a, component: gpu, category: GPU, scope: node, value: 1.0e-5, "
      "unit: per_gpu_hour, repair: 0, source: s, confidence: read}");
  EXPECT_NE(error.find("rates.yaml:10:"), std::string::npos) << error;
  EXPECT_NE(error.find(".repair: must be greater than zero for scope node"), std::string::npos) << error;
}

TEST(FailureRates, UnknownScopeComponentUnitAndExposureAreLocatedErrors) {
  EXPECT_NE(error_of("{id: a, component: gpu, category: GPU, scope: rack, value: 1, unit: per_gpu_hour, "
                     "repair: 1h, source: s, confidence: read}")
                .find(".scope: unknown scope 'rack'"),
            std::string::npos);
  EXPECT_NE(error_of("{id: a, component: flux, category: GPU, scope: node, value: 1, unit: per_gpu_hour, "
                     "repair: 1h, source: s, confidence: read}")
                .find(".component: unknown component 'flux'"),
            std::string::npos);
  EXPECT_NE(error_of("{id: a, component: gpu, category: GPU, scope: node, value: 1, unit: per_rack_hour, "
                     "repair: 1h, source: s, confidence: read}")
                .find("unknown counted component 'rack'"),
            std::string::npos);
  EXPECT_NE(error_of("{id: a, component: gpu, category: GPU, scope: node, count: 3, exposure: f, "
                     "unit: per_gpu_hour, repair: 1h, source: s, confidence: read}")
                .find(".exposure: unknown exposure 'f'"),
            std::string::npos);
  EXPECT_NE(error_of("{id: a, component: gpu, category: GPU, scope: node, value: 1, unit: per_gpu_hour, "
                     "repair: 2 weeks, source: s, confidence: read}")
                .find(".repair: expected a duration with its unit"),
            std::string::npos);
}

TEST(FailureRates, ParsesDurationsWithTheirUnitsOnly) {
  EXPECT_DOUBLE_EQ(*parse_hours("3h"), 3);
  EXPECT_DOUBLE_EQ(*parse_hours("90min"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_hours("2 d"), 48);
  EXPECT_DOUBLE_EQ(*parse_hours("36s"), 0.01);
  EXPECT_FALSE(parse_hours("3"));
  EXPECT_FALSE(parse_hours("-3h"));
  EXPECT_FALSE(parse_hours("h"));
}

}  // namespace
}  // namespace gputwin
