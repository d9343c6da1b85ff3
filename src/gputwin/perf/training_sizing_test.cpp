#include "gputwin/perf/training_sizing.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/perf/training_search.hpp"
#include "gputwin/perf/unfitted_gemm_test_support.hpp"

namespace gputwin {
namespace {

using testing::model_presets;
using testing::source_path;

const testing::PerfSetup& setup() {
  return testing::perf_setup();
}

SizingRequest request(double days) {
  SizingRequest r;
  r.model = find_model(model_presets(), "llama3-8b");
  r.tokens = 1e12;
  r.days = days;
  r.base.sequence = 8192;
  r.base.global_batch = 1024;
  r.accelerators = {"h100-sxm", "mi300x", "no-such-gpu"};
  r.gpu_hour_prices["h100-sxm"] = usd(2);
  return r;
}

TEST(TrainingSizing, SmallestDoublingThatFinishesInTimeAndItsCost) {
  const auto rows = size_training(setup().catalog, setup().collectives, setup().calibration, request(20));
  ASSERT_EQ(rows.size(), 3u);
  const SizingRow& h100 = rows[0];
  ASSERT_TRUE(h100.estimate.has_value()) << h100.note;
  EXPECT_EQ(h100.system, "dgx-h100");
  EXPECT_LE(h100.days, 20);
  EXPECT_TRUE(h100.estimate->memory.fits());
  ASSERT_TRUE(h100.cost_usd.has_value());
  EXPECT_NEAR(*h100.cost_usd, 2.0 * h100.gpus * h100.days * 24, 1e-6);
  // Half the GPUs would not have finished in time (else sizing would have stopped there).
  if (h100.gpus > 8) {
    SizingRequest shorter = request(20);
    shorter.max_gpus = h100.gpus / 2;
    shorter.accelerators = {"h100-sxm"};
    const auto smaller = size_training(setup().catalog, setup().collectives, setup().calibration, shorter);
    EXPECT_FALSE(smaller[0].estimate.has_value());
  }
  // mi300x is carried by the AMD 8-GPU platform and sized with cdna3's fitted fraction (nothing assumed).
  EXPECT_EQ(rows[1].system, "amd-mi300x-8gpu");
  ASSERT_TRUE(rows[1].estimate.has_value()) << rows[1].note;
  EXPECT_FALSE(rows[1].assumed_gemm_fraction.has_value());
  EXPECT_LE(rows[1].days, 20);
  EXPECT_EQ(rows[2].note, "not in the catalog");
}

// An architecture the data leaves unfitted (cdna3 with its fraction removed) gets no step time unless the
// user assumes one.
TEST(TrainingSizing, AnUnfittedArchitectureGetsNoStepTime) {
  TrainingCalibration unfitted = setup().calibration;
  unfitted.gemm = testing::gemm_model_without_cdna3_fraction();
  SizingRequest r = request(20);
  r.accelerators = {"mi300x"};
  const auto rows = size_training(setup().catalog, setup().collectives, unfitted, r);
  EXPECT_EQ(rows[0].note,
            "no step time: cdna3 has no fitted GEMM fraction (--gemm-fraction cdna3=F assumes one)");
  EXPECT_FALSE(rows[0].estimate.has_value());
}

TEST(TrainingSizing, MoreDaysNeverNeedMoreGpus) {
  const auto tight = size_training(setup().catalog, setup().collectives, setup().calibration, request(10));
  const auto loose = size_training(setup().catalog, setup().collectives, setup().calibration, request(40));
  ASSERT_TRUE(tight[0].estimate && loose[0].estimate);
  EXPECT_LE(loose[0].gpus, tight[0].gpus);
}

// More GPUs never take longer: the fastest split on n nodes is available on more (the extra GPUs idle). The
// issue's case: llama3-70b, 15T tokens, Llama 3's 16M-token batch, 600..800 DGX H100 nodes (640 nodes
// took 32.2 days and 736 nodes 36.6 days before).
TEST(TrainingSizing, DaysNeverGrowWithNodes) {
  const TransformerModel& llama = *find_model(model_presets(), "llama3-70b");
  TrainingConfig base;
  base.sequence = 8192;
  base.global_batch = default_global_batch(8192);
  base.memory_reserve =
      load_memory_reserve(source_path("data/perf/memory.yaml")).value().per_gpu(gigabytes(80));
  double previous_days = 1e300;
  int flat = 0;
  for (int nodes = 600; nodes <= 800; nodes += 8) {
    const auto hw = perf_hardware_of_system(setup().catalog, "dgx-h100", nodes).value();
    const auto best =
        search_training(hw, setup().collectives, setup().calibration, llama, base, nodes * 8).best;
    ASSERT_TRUE(best.has_value()) << nodes;
    const double days = training_days(15e12, *best);
    // The tie-break may trade up to its tolerance (1 %) of step time for a simpler split, never more.
    EXPECT_LE(days, previous_days * (1 + SearchSpace{}.tie_tolerance)) << nodes << " nodes";
    if (best->config.idle_gpus > 0) ++flat;
    previous_days = days;
  }
  EXPECT_GT(flat, 0);  // the 2048-sequence batch does not split over every count: idle GPUs, flat days
}

RackDensity bundled_rack_density() {
  const auto density = load_rack_density(source_path("data/perf/sizing-racks.yaml"), setup().catalog);
  EXPECT_TRUE(density.ok()) << density.error_text();
  return density.ok() ? density.value() : RackDensity{};
}

// Each accelerator is sized on its own platform; racks and power follow that platform: DGX H100 4 a rack (41
// kW air / 10.2 kW), DGX B300 4 a rack (its RA), the liquid-cooled MI355X platform 8 a rack (published), and
// power is the systems' maximum draw; GB300 on its NVL72 compute tray, one 72-GPU domain (18 trays) a rack.
TEST(TrainingSizing, EachAcceleratorOnItsPlatformWithItsRacksAndPower) {
  SizingRequest r = request(20);
  r.accelerators = {"h100-sxm", "b300", "mi355x", "gb300"};
  r.rack_density = bundled_rack_density();
  // cdna4 has a fitted fraction (AMD's MLPerf v5.1 MI355X run): an assumed one is never used in its place.
  r.assumed_gemm_fractions["cdna4"] = 0.5;
  const auto rows = size_training(setup().catalog, setup().collectives, setup().calibration, r);
  ASSERT_EQ(rows.size(), 4u);
  const std::vector<std::pair<std::string, int>> expected{
      {"dgx-h100", 4}, {"dgx-b300", 4}, {"amd-mi355x-8gpu", 8}, {"gb300-nvl72-tray", 18}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const SizingRow& row = rows[i];
    ASSERT_TRUE(row.estimate.has_value()) << row.accelerator << ": " << row.note;
    EXPECT_EQ(row.system, expected[i].first);
    EXPECT_EQ(row.per_rack.systems, expected[i].second) << row.system << ": " << row.per_rack.rule;
    EXPECT_EQ(row.nodes * setup().catalog.get<System>(row.system).accelerators, row.gpus) << row.system;
    EXPECT_EQ(row.racks, (row.nodes + expected[i].second - 1) / expected[i].second) << row.system;
    const double power_max = in_kilowatts(setup().catalog.get<System>(row.system).power_max);
    EXPECT_NEAR(row.power_kw, row.nodes * power_max, 1e-9) << row.system;
    EXPECT_LE(row.days, 20) << row.system;
  }
  // The NVL72 answer is bought in whole 72-GPU domains (18 trays); groups across its trays are timed on
  // NVLink (perf/training groups_of), so no caveat is left to state.
  EXPECT_EQ(rows[3].nodes % 18, 0) << rows[3].nodes;
  EXPECT_TRUE(rows[3].caveat.empty()) << rows[3].caveat;
  EXPECT_TRUE(rows[0].caveat.empty()) << rows[0].caveat;
  EXPECT_FALSE(rows[0].assumed_gemm_fraction.has_value());
  EXPECT_FALSE(rows[2].assumed_gemm_fraction.has_value());
}

// The deadline counts failures: a hand-worked search. n nodes work 100 / n days; failures leave an ETTR of
// 1 - 0.01 n. Within 13 days the work days alone pick 8 nodes (12.5 days; 7 take 14.3), whose time-to-train
// is 12.5 / 0.92 = 13.59 days, past the deadline; counting failures picks the next count, 9 nodes
// (11.11 / 0.91 = 12.21 days). Without a failure model the count is sized on work days, and says so.
TEST(TrainingSizing, TheDeadlineHoldsTheTimeToTrainWhenFailuresCount) {
  const System& dgx = setup().catalog.get<System>("dgx-h100");
  const TimeToTrain ettr_falls = [](const System&, int gpus, double work_days) -> std::optional<double> {
    return work_days / (1 - 0.01 * gpus / 8);
  };
  const auto search_with = [&](const TimeToTrain& time_to_train) {
    return smallest_node_count(64, 13, [&](int nodes) {
      SizingTrial trial;
      trial.nodes = nodes;
      trial.gpus = nodes * 8;
      trial.estimate = TrainingEstimate{};
      trial.days = 100.0 / nodes;
      count_failures(trial, dgx, 13, time_to_train);
      return trial;
    });
  };
  const NodeCountSearch work_days_only = search_with(TimeToTrain{});
  ASSERT_TRUE(work_days_only.answer.has_value());
  EXPECT_EQ(work_days_only.answer->nodes, 8);
  EXPECT_FALSE(work_days_only.answer->wall_days.has_value());

  const NodeCountSearch with_failures = search_with(ettr_falls);
  ASSERT_TRUE(with_failures.answer.has_value());
  EXPECT_EQ(with_failures.answer->nodes, 9);
  EXPECT_NEAR(*with_failures.answer->wall_days, 100.0 / 9 / 0.91, 1e-9);
  EXPECT_FALSE(with_failures.answer->failures_uncounted);
  for (const SizingTrial& trial : with_failures.trials) {
    if (trial.nodes == 8) {
      ASSERT_TRUE(trial.wall_days.has_value());
      EXPECT_NEAR(*trial.wall_days, 12.5 / 0.92, 1e-9);  // 13.59: over the 13 days
    }
    if (trial.days > 13) {
      EXPECT_FALSE(trial.wall_days.has_value()) << trial.nodes;  // failures only add time
    }
  }

  const NodeCountSearch no_model =
      search_with([](const System&, int, double) -> std::optional<double> { return std::nullopt; });
  ASSERT_TRUE(no_model.answer.has_value());
  EXPECT_EQ(no_model.answer->nodes, 8);
  EXPECT_TRUE(no_model.answer->failures_uncounted);
}

// size_training passes its rule to every count it tries: a time-to-train 10 % over the work days (ETTR 1/1.1)
// needs more GPUs than the work days alone, and the answer's time-to-train is within the days.
TEST(TrainingSizing, SizingTakesTheTimeToTrainIntoItsDeadline) {
  SizingRequest r = request(20);
  r.accelerators = {"h100-sxm"};
  const auto work_only = size_training(setup().catalog, setup().collectives, setup().calibration, r);
  ASSERT_TRUE(work_only[0].estimate.has_value()) << work_only[0].note;
  // Hold the deadline at the work-days answer's own days: with failures it is late, so more GPUs are needed.
  r.days = work_only[0].days;
  r.time_to_train = [](const System&, int, double work_days) -> std::optional<double> {
    return work_days * 1.1;
  };
  const auto counted = size_training(setup().catalog, setup().collectives, setup().calibration, r);
  ASSERT_TRUE(counted[0].estimate.has_value()) << counted[0].note;
  EXPECT_GT(counted[0].gpus, work_only[0].gpus);
  ASSERT_TRUE(counted[0].wall_days.has_value());
  EXPECT_NEAR(*counted[0].wall_days, counted[0].days * 1.1, 1e-9);
  EXPECT_LE(*counted[0].wall_days, r.days);
}

// Accelerators are sized on threads of their own (up to the machine's concurrency): the rows of one request
// are those of each accelerator sized alone (one thread), in the request's order, failures counted too.
TEST(TrainingSizing, ThreadsGiveIdenticalRows) {
  SizingRequest r = request(20);
  r.accelerators = {"mi300x", "no-such-gpu", "h100-sxm", "b200"};
  r.time_to_train = [](const System&, int gpus, double work_days) -> std::optional<double> {
    return work_days * (1 + gpus * 1e-5);
  };
  const auto together = size_training(setup().catalog, setup().collectives, setup().calibration, r);
  ASSERT_EQ(together.size(), 4U);
  EXPECT_EQ(together[1].note, "not in the catalog");
  EXPECT_GT(together[2].gpus, 0);  // h100-sxm answers, so the comparison compares something
  for (std::size_t k = 0; k < together.size(); ++k) {
    SizingRequest one = r;
    one.accelerators = {r.accelerators[k]};
    const auto alone = size_training(setup().catalog, setup().collectives, setup().calibration, one);
    ASSERT_EQ(alone.size(), 1U);
    SCOPED_TRACE(r.accelerators[k]);
    EXPECT_EQ(together[k].accelerator, r.accelerators[k]);
    EXPECT_EQ(together[k].note, alone[0].note);
    EXPECT_EQ(together[k].gpus, alone[0].gpus);
    EXPECT_EQ(together[k].nodes, alone[0].nodes);
    EXPECT_EQ(together[k].days, alone[0].days);  // bit for bit: the same computation
    EXPECT_EQ(together[k].wall_days, alone[0].wall_days);
    EXPECT_EQ(together[k].estimate.has_value(), alone[0].estimate.has_value());
    if (!together[k].estimate || !alone[0].estimate) continue;
    EXPECT_EQ(together[k].estimate->step_time_s, alone[0].estimate->step_time_s);
    // Neither split is preferred to the other: the same split (the preference orders every axis).
    EXPECT_FALSE(simpler_split(together[k].estimate->config, alone[0].estimate->config));
    EXPECT_FALSE(simpler_split(alone[0].estimate->config, together[k].estimate->config));
  }
}

// A time-to-train rule that throws (none does today) reaches the caller as with one thread, after the other
// accelerators are sized.
TEST(TrainingSizing, AFailureOnAThreadReachesTheCaller) {
  SizingRequest r = request(20);
  r.accelerators = {"h100-sxm", "mi300x"};
  r.time_to_train = [](const System& system, int, double) -> std::optional<double> {
    if (system.accelerator == "mi300x") throw std::runtime_error("no rates for mi300x");
    return std::nullopt;
  };
  EXPECT_THROW((void)size_training(setup().catalog, setup().collectives, setup().calibration, r),
               std::runtime_error);
}

// An assumed fraction moves the answer the way it should: a lower GEMM efficiency never needs fewer GPUs.
TEST(TrainingSizing, ALowerAssumedGemmFractionNeverNeedsFewerGpus) {
  TrainingCalibration unfitted = setup().calibration;
  unfitted.gemm = testing::gemm_model_without_cdna3_fraction();
  SizingRequest r = request(20);
  r.accelerators = {"mi300x"};
  r.assumed_gemm_fractions["cdna3"] = 0.6;
  const auto faster = size_training(setup().catalog, setup().collectives, unfitted, r);
  r.assumed_gemm_fractions["cdna3"] = 0.3;
  const auto slower = size_training(setup().catalog, setup().collectives, unfitted, r);
  ASSERT_TRUE(faster[0].estimate && slower[0].estimate) << faster[0].note << slower[0].note;
  EXPECT_GE(slower[0].gpus, faster[0].gpus);
  EXPECT_LT(slower[0].estimate->mfu, faster[0].estimate->mfu);
}

}  // namespace
}  // namespace gputwin

namespace gputwin {
namespace {

// Systems per rack: a published count first, then one scale-up domain a rack for trays of a larger domain,
// then the default cooling's rack power and the default rack's height.
TEST(RackDensity, PublishedCountThenDomainThenPowerAndSpace) {
  const Catalog& catalog = gputwin::testing::perf_setup().catalog;
  const auto density =
      load_rack_density(gputwin::testing::source_path("data/perf/sizing-racks.yaml"), catalog);
  ASSERT_TRUE(density.ok()) << density.error_text();
  EXPECT_EQ(systems_per_rack(catalog, density.value(), catalog.get<System>("dgx-b300")).systems, 4);
  EXPECT_EQ(systems_per_rack(catalog, density.value(), catalog.get<System>("dgx-h100")).systems,
            4);  // 41/10.2
  EXPECT_EQ(systems_per_rack(catalog, density.value(), catalog.get<System>("dgx-b200")).systems,
            2);  // 41/14.3
  // 4.5 kW, 4 U: power would allow 9, 48 U allow 12.
  const SystemsPerRack l40s =
      systems_per_rack(catalog, density.value(), catalog.get<System>("pcie-8gpu-l40s"));
  EXPECT_EQ(l40s.systems, 9) << l40s.rule;
  System tray = catalog.get<System>("dgx-h100");
  tray.info.id = "nvl72-like-tray";
  tray.accelerators = 4;
  tray.scale_up_domain = 72;
  EXPECT_EQ(systems_per_rack(catalog, density.value(), tray).systems, 18);
  System small = tray;
  small.scale_up_domain = 4;
  small.power_max = kilowatts(1);
  small.rack_units = rack_units(8);
  EXPECT_EQ(systems_per_rack(catalog, density.value(), small).systems, 6);  // 48 U / 8 U, not 41 kW / 1 kW
}

// A rack-scale tray (4 GPUs in a larger domain) is preferred over an 8-GPU box for the same accelerator, and
// its racks hold one domain. The bundled GB200 NVL72 tray: 18 a rack; a fictitious mi355x tray of a 64-GPU
// domain in a user folder, beside the bundled 8-GPU platform: chosen, 16 a rack.
TEST(RackDensity, ATrayOfALargerDomainIsChosenAndFillsOneDomainARack) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(::testing::TempDir()) / "gputwin-tray-catalog";
  fs::create_directories(folder);
  std::ofstream(folder / "systems.yaml") << R"(systems:
  - {id: test-mi355x-tray, name: "rack-scale test tray", source: test, confidence: unverified, accelerator: mi355x,
     accelerators: 4, scale_up_domain: 64, cpu: "2x test", cpu_cores: 64, system_memory: 1 TB, rack_units: 1 U,
     power_max: 7 kW, nics: {compute: {ports: 4, speed: 800 Gb/s, ports_per_cage: 1, cage: OSFP}}}
)";
  const auto catalog = Catalog::load({gputwin::testing::source_path("data/catalog"), folder.string()});
  ASSERT_TRUE(catalog.ok()) << catalog.error_text();
  const auto density =
      load_rack_density(gputwin::testing::source_path("data/perf/sizing-racks.yaml"), catalog.value());
  ASSERT_TRUE(density.ok()) << density.error_text();
  const System* tray = system_for_accelerator(catalog.value(), "mi355x");
  ASSERT_NE(tray, nullptr);
  EXPECT_EQ(tray->info.id, "test-mi355x-tray");
  EXPECT_EQ(systems_per_rack(catalog.value(), density.value(), *tray).systems, 16);
  const System* gb200 = system_for_accelerator(catalog.value(), "gb200");
  ASSERT_NE(gb200, nullptr);
  EXPECT_EQ(gb200->info.id, "gb200-nvl72-tray");
  const SystemsPerRack nvl72 = systems_per_rack(catalog.value(), density.value(), *gb200);
  EXPECT_EQ(nvl72.systems, 18) << nvl72.rule;
  // A DGX still wins over any other system of its accelerator.
  EXPECT_EQ(system_for_accelerator(catalog.value(), "b300")->info.id, "dgx-b300");
}

TEST(RackDensity, AnUnknownSystemIsLocated) {
  gputwin::testing::expect_located_error(
      [](const std::string& path) { return load_rack_density(path, gputwin::testing::perf_setup().catalog); },
      "default_cooling: air-standard\ndefault_facility: default\nsystems:\n"
      "  - {system: dgx-h900, per_rack: 4, source: test}\n",
      4, {"no system 'dgx-h900' in the catalog"});
}

std::string written_prices(const std::string& text) {
  const std::string path = ::testing::TempDir() + "/gputwin-prices.yaml";
  std::ofstream(path) << text;
  return path;
}

TEST(GpuHourPrices, ReadByIdAndABadEntryIsLocated) {
  const Catalog& catalog = gputwin::testing::perf_setup().catalog;
  const auto prices =
      load_gpu_hour_prices(written_prices("gpu_hour: {h100-sxm: 2.50 USD, b200: 4 USD}\n"), catalog);
  ASSERT_TRUE(prices.ok()) << prices.error_text();
  EXPECT_DOUBLE_EQ(prices.value().at("h100-sxm").base(), 2.5);
  EXPECT_EQ(prices.value().size(), 2u);
  gputwin::testing::expect_located_error(
      [&](const std::string& path) { return load_gpu_hour_prices(path, catalog); },
      "gpu_hour:\n  h900: 2 USD\n", 2, {"no accelerator 'h900' in the catalog"});
}

}  // namespace
}  // namespace gputwin
