// The report's result readers: each schema read into its series, and every kind of wrong file named.
#include "gputwin/report/html/inputs.hpp"

#include <gtest/gtest.h>

#include "gputwin/core/input_file.hpp"
#include "gputwin/report/html/perf_tables.hpp"

namespace gputwin {
namespace {

constexpr const char* kReplay = R"({"schema": "gputwin.replay/1", "policy": "easy", "jobs": 3,
  "utilisation": 0.5, "wait_s": {"mean": 1, "median": 0, "p95": 2, "max": 3},
  "jct_s": {"mean": 10, "median": 9, "p95": 20, "max": 30},
  "intervals": [{"start_s": 0.0, "utilisation": 0.25, "queue_length": 1.5, "stranded_gpus": 2.0},
                {"start_s": 3600.0, "utilisation": 0.75, "queue_length": 0.0, "stranded_gpus": 0.5}]})";

std::string error_of(std::string_view text, ReportInputKind kind = ReportInputKind::simulation) {
  const auto result = parse_report_input(text, "result.json", kind);
  return result.ok() ? "" : result.error_text();
}

TEST(ReportInputs, ReadsReplayIntervals) {
  const auto result = parse_report_input(kReplay, "replay.json", ReportInputKind::simulation);
  ASSERT_TRUE(result.ok()) << result.error_text();
  ASSERT_EQ(result.value().replays.size(), 1u);
  const ReplaySeries& replay = result.value().replays.front();
  EXPECT_EQ(replay.policy, "easy");
  EXPECT_EQ(replay.interval_start_s, (std::vector<double>{0.0, 3600.0}));
  EXPECT_EQ(replay.interval_utilisation, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(replay.interval_queue_length, (std::vector<double>{1.5, 0.0}));
  EXPECT_EQ(replay.interval_stranded_gpus, (std::vector<double>{2.0, 0.5}));
  EXPECT_EQ(replay.jct_s.p95, 20);
}

// A replay on a known system: IT and facility power per interval, the energy totals, the budget and the
// policies it compared (one refused).
constexpr const char* kEnergyReplay = R"({"schema": "gputwin.replay/1", "policy": "fifo", "jobs": 3,
  "utilisation": 0.5, "wait_s": {"mean": 1, "median": 0, "p95": 2, "max": 3},
  "jct_s": {"mean": 10, "median": 9, "p95": 20, "max": 30},
  "energy": {"it_kwh": 400.5, "facility_kwh": 590.25, "pue": 1.4738,
             "budget": {"policy": "cap-all", "it_kw": 230},
             "power_policies": {"budget_it_kw": 230, "runs": [
               {"policy": "none", "refused": "no budget to hold"},
               {"policy": "cap-all", "completed_work_gpu_hours": 96.5, "mean_wait_s": 7200,
                "it_kwh": 400.5, "facility_kwh": 590.25, "peak_it_kw": 229.5, "lowest_cap_w": 410}]}},
  "intervals": [{"start_s": 0.0, "utilisation": 0.25, "queue_length": 1.5, "stranded_gpus": 2.0,
                 "it_kw": 180, "facility_kw": 262.5},
                {"start_s": 3600.0, "utilisation": 0.75, "queue_length": 0.0, "stranded_gpus": 0.5,
                 "it_kw": 220.5, "facility_kw": 327.75}]})";

TEST(ReportInputs, ReadsReplayEnergyFacilityPowerAndPowerPolicies) {
  const auto result = parse_report_input(kEnergyReplay, "replay.json", ReportInputKind::simulation);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const ReplaySeries& replay = result.value().replays.front();
  ASSERT_TRUE(replay.has_energy);
  EXPECT_EQ(replay.interval_it_kw, (std::vector<double>{180, 220.5}));
  EXPECT_EQ(replay.interval_facility_kw, (std::vector<double>{262.5, 327.75}));
  EXPECT_EQ(replay.it_kwh, 400.5);
  EXPECT_EQ(replay.facility_kwh, 590.25);
  EXPECT_EQ(replay.budget_policy, "cap-all");
  ASSERT_EQ(replay.power_policies.size(), 2u);
  EXPECT_EQ(replay.power_policies[0].refused, "no budget to hold");
  EXPECT_EQ(replay.power_policies[1].lowest_cap_w, 410);
  EXPECT_EQ(replay.power_policies[1].facility_kwh, 590.25);

  std::string missing = kEnergyReplay;
  missing.erase(missing.find("\"lowest_cap_w\": 410"), std::string("\"lowest_cap_w\": 410").size());
  missing.erase(missing.rfind(',', missing.find("}]}}")), 1);  // the comma before the removed field
  const std::string error = error_of(missing);
  EXPECT_NE(error.find("lowest_cap_w"), std::string::npos) << error;
}

TEST(ReportInputs, PackingKeepsGapsAndPrefersTheMeanOverSeeds) {
  const auto result = parse_report_input(
      R"({"schema": "gputwin.packing/1", "policy": "fgd", "runs": [{}, {}],
          "mean_over_seeds": {"allocation_percent_by_arrived_percent": [0.5, null, 2.0]}})",
      "packing.json", ReportInputKind::simulation);
  ASSERT_TRUE(result.ok()) << result.error_text();
  const PackingCurve& curve = result.value().packings.front();
  EXPECT_EQ(curve.seeds, 2);
  ASSERT_EQ(curve.allocation_percent.size(), 3u);
  EXPECT_EQ(curve.allocation_percent[0], 0.5);
  EXPECT_FALSE(curve.allocation_percent[1].has_value());
}

TEST(ReportInputs, ReadsCollectiveAndTrainingAsPerf) {
  const auto collective = parse_report_input(
      R"({"schema": "gputwin.collective/1", "op": "all_reduce", "group": {"ranks": 16},
          "rows": [{"bytes": 8, "busbw_gbps": 0.1}, {"bytes": 16, "busbw_gbps": 0.2}]})",
      "busbw.json", ReportInputKind::perf);
  ASSERT_TRUE(collective.ok()) << collective.error_text();
  EXPECT_EQ(collective.value().collectives.front().busbw_gbps, (std::vector<double>{0.1, 0.2}));
  const auto training = parse_report_input(
      R"({"schema": "gputwin.perf-train/1", "model": "m", "config": {"gpus": 64}, "step_time_s": 2.0,
          "mfu": 0.4, "terms": [{"name": "compute", "seconds": 1.5}, {"name": "bubble", "seconds": 0.5}]})",
      "train.json", ReportInputKind::perf);
  ASSERT_TRUE(training.ok()) << training.error_text();
  EXPECT_EQ(training.value().trainings.front().terms.size(), 2u);
  EXPECT_EQ(training.value().trainings.front().terms[1].seconds, 0.5);
}

TEST(ReportInputs, ReadsInferenceAndSizingResultsAsPerf) {
  const std::string dir = std::string(GPUTWIN_SOURCE_DIR) + "/tests/report/";
  const auto result =
      load_report_inputs({}, {dir + "infer-llama3.1-8b-h200.json", dir + "size-llama3-70b.json"});
  ASSERT_TRUE(result.ok()) << result.error_text();
  ASSERT_EQ(result.value().inferences.size(), 1u);
  const InferenceResult& inference = result.value().inferences.front();
  EXPECT_EQ(inference.model, "llama3.1-8b");
  EXPECT_EQ(inference.source, dir + "infer-llama3.1-8b-h200.json");
  ASSERT_EQ(inference.by_sequences.size(), 2u);
  EXPECT_EQ(inference.by_sequences[1].sequences, 256);
  EXPECT_EQ(inference.max_load.sequences, inference.max_sequences);
  ASSERT_EQ(result.value().sizings.size(), 1u);
  const SizingResult& sizing = result.value().sizings.front();
  EXPECT_EQ(sizing.model, "llama3-70b");
  ASSERT_EQ(sizing.accelerators.size(), 3u);
  EXPECT_EQ(sizing.accelerators[0].accelerator, "h100-sxm");
  EXPECT_TRUE(sizing.accelerators[0].sized);
  EXPECT_TRUE(sizing.accelerators[0].cost_usd.has_value());
}

TEST(ReportInputs, InferenceResultPassedAsSimulationIsRefused) {
  const std::string text =
      read_input_file(std::string(GPUTWIN_SOURCE_DIR) + "/tests/report/infer-llama3.1-8b-h200.json");
  const std::string error = error_of(text, ReportInputKind::simulation);
  EXPECT_NE(error.find("found 'gputwin.infer/1'"), std::string::npos) << error;
}

TEST(ReportInputs, ForeignSchemaIsNamedWithWhatWasExpected) {
  const std::string error = error_of(R"({"schema": "gputwin.plan/1"})");
  EXPECT_NE(error.find("result.json:1:"), std::string::npos) << error;
  EXPECT_NE(error.find("found 'gputwin.plan/1'"), std::string::npos) << error;
  EXPECT_NE(error.find("gputwin.replay/1 or gputwin.packing/1"), std::string::npos) << error;
}

TEST(ReportInputs, SimulationResultPassedAsPerfIsRefused) {
  const std::string error = error_of(kReplay, ReportInputKind::perf);
  EXPECT_NE(
      error.find(
          "gputwin.collective/1, gputwin.perf-train/1, gputwin.infer/1, gputwin.perf-size/1, "
          "gputwin.serve/1, gputwin.serve-capacity/2, gputwin.serve-capacity/1 or gputwin.perf-goodput/1"),
      std::string::npos)
      << error;
}

TEST(ReportInputs, NotJsonNamesFileAndLine) {
  const std::string error = error_of("{\n  \"schema\": oops\n}");
  EXPECT_NE(error.find("result.json:2"), std::string::npos) << error;
}

TEST(ReportInputs, NoSchemaIsRefused) {
  EXPECT_NE(error_of("[1, 2]").find("with a schema field"), std::string::npos);
  EXPECT_NE(error_of(R"({"policy": "fifo"})").find("with a schema field"), std::string::npos);
}

TEST(ReportInputs, MissingFieldIsNamedByItsPath) {
  const std::string error = error_of(
      R"({"schema": "gputwin.replay/1", "policy": "easy", "jobs": 3, "utilisation": 0.5,
          "wait_s": {"mean": 1, "median": 0, "p95": 2, "max": 3},
          "jct_s": {"mean": 10, "median": 9, "p95": 20, "max": 30},
          "intervals": [{"start_s": 0.0, "utilisation": 0.25, "queue_length": 1.5}]})");
  EXPECT_NE(error.find("/intervals/0"), std::string::npos) << error;
  EXPECT_NE(error.find("stranded_gpus"), std::string::npos) << error;
}

TEST(ReportInputs, MissingFileIsNamed) {
  const auto result = load_report_inputs({"/nonexistent/replay.json"}, {});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("/nonexistent/replay.json"), std::string::npos) << result.error_text();
}

// perf goodput --json, written by its writer from a real Monte Carlo and read back as a perf input: the
// report shows its interruptions, MTTF, interval, ETTR and wall days; a missing field is named by its pointer
// and the document is refused as a simulation.
TEST(ReportInputs, ReadsAGoodputResultAsPerf) {
  GoodputRequest request;
  request.gpus = 1024;
  request.work_hours = 10 * 24;
  request.shape = ClusterShape{.gpus_per_node = 8};
  request.processes.push_back({.cause = "node-failure",
                               .category = "All",
                               .rate_per_unit_hour = 1.0 / 2000,
                               .repair_hours = 24,
                               .source = "test"});
  request.checkpoint_write_hours = 1.0 / 60;
  request.restart_hours = 5.0 / 60;
  request.spare_nodes = 8;
  request.seeds = 5;
  const auto result = simulate_goodput(request);
  ASSERT_TRUE(result.ok()) << result.error_text();
  GoodputJob job;
  job.system = "dgx-h100";
  job.failure_model = "--node-mtbf 2000h";
  job.gpus = 1024;
  job.work_days = 10;
  const std::string text = goodput_json(job, result.value()).dump(2);
  const auto read = parse_report_input(text, "goodput.json", ReportInputKind::perf);
  ASSERT_TRUE(read.ok()) << read.error_text();
  ASSERT_EQ(read.value().goodputs.size(), 1u);
  const GoodputDocument& back = read.value().goodputs.front();
  EXPECT_EQ(back.gpus, 1024);
  EXPECT_EQ(back.nodes, 128);
  EXPECT_EQ(back.spare_nodes, 8);
  EXPECT_EQ(back.seeds, 5);
  EXPECT_NEAR(back.mttf_hours, 2000.0 / 128, 1e-3);
  EXPECT_NEAR(back.interruptions_mean, result.value().interruptions.mean, 1e-3);
  EXPECT_NEAR(back.ettr, result.value().ettr.mean, 1e-5);
  EXPECT_NEAR(back.wall_days, result.value().wall_hours.mean / 24, 1e-4);
  ASSERT_EQ(back.by_cause.size(), 1u);
  EXPECT_EQ(back.by_cause[0].cause, "node-failure");
  const std::string html = goodput_section(read.value().goodputs);
  EXPECT_NE(html.find("Goodput under failures"), std::string::npos);
  EXPECT_NE(html.find("--node-mtbf 2000h"), std::string::npos);
  EXPECT_EQ(goodput_section({}), "");

  nlohmann::json cut = nlohmann::json::parse(text);
  cut.erase("mttf_hours");
  const std::string missing = error_of(cut.dump(2), ReportInputKind::perf);
  EXPECT_NE(missing.find("missing field 'mttf_hours'"), std::string::npos) << missing;
  EXPECT_NE(error_of(text, ReportInputKind::simulation).find("found 'gputwin.perf-goodput/1'"),
            std::string::npos);
}

}  // namespace
}  // namespace gputwin
