// Full nccl-tests sweeps (../shared/fixtures/nccl-tests, read in place) against the collective model: the
// loader's located errors, the per-band errors held to their measured values, and the candidate mid-size term
// (fitted on the fit sweeps only) with the reason it is not adopted.
#include "gputwin/validate/collective_sweeps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gputwin/core/test_text.hpp"
#include "gputwin/validate/validate_test_support.hpp"

namespace gputwin::validate {
namespace {

std::string bundled_sweeps() {
  return std::string(GPUTWIN_SOURCE_DIR) + "/data/reference/collective-sweeps.yaml";
}
std::string nccl_tests_dir() {
  return testing::fixture("nccl-tests");
}

// The bundled file with one text replaced, written to a temporary file (one per test).
std::string edited_sweeps(const std::string& from, const std::string& to) {
  return gputwin::testing::per_test_file(
      gputwin::testing::replaced(gputwin::testing::read_text(bundled_sweeps()), from, to), "sweeps", ".yaml");
}

struct Loaded {
  Catalog catalog;
  CollectiveModel model;
  CollectiveSweeps sweeps;
};

const Loaded& loaded() {
  static const Loaded value{
      Catalog::load({std::string(GPUTWIN_SOURCE_DIR) + "/data/catalog"}).value(),
      load_collective_model(std::string(GPUTWIN_SOURCE_DIR) + "/data/perf/nccl-cost-model.yaml").value(),
      load_collective_sweeps(bundled_sweeps()).value()};
  return value;
}

ComparedSweep compared(const std::string& name) {
  for (const auto& sweep : loaded().sweeps.sweeps)
    if (sweep.name == name) {
      auto result = compare_sweep(loaded().catalog, loaded().model, sweep, nccl_tests_dir());
      EXPECT_TRUE(result.ok()) << result.error_text();
      return result.ok() ? result.value() : ComparedSweep{};
    }
  ADD_FAILURE() << "no sweep named " << name;
  return {};
}

const char* const kDeepops = "2x DGX A100, 8x HDR 200G InfiniBand, all_reduce";

TEST(CollectiveSweeps, BundledFileSplitsBySourceAndListsWhatItCannotExpress) {
  const auto& sweeps = loaded().sweeps;
  ASSERT_EQ(sweeps.sweeps.size(), 4U);
  for (const auto& sweep : sweeps.sweeps) EXPECT_EQ(sweep.set, "fit") << sweep.name;
  EXPECT_EQ(sweeps.sweeps[0].system.system, "dgx-a100");
  EXPECT_EQ(sweeps.sweeps[0].system.nodes, 2);
  EXPECT_EQ(sweeps.not_expressible.size(), 5U);
  EXPECT_DOUBLE_EQ(sweeps.cross_node_op_overhead_applied_us, 0);
}

TEST(CollectiveSweeps, AnUnknownSetIsALocatedError) {
  const auto result = load_collective_sweeps(edited_sweeps("\n    set: fit", "\n    set: training"));
  ASSERT_FALSE(result.ok());
  // file:line:column and the field's path
  EXPECT_NE(result.error_text().find("gputwin-sweeps-CollectiveSweeps-AnUnknownSetIsALocatedError.yaml:15:"),
            std::string::npos)
      << result.error_text();
  EXPECT_NE(result.error_text().find("sweeps[0].set"), std::string::npos) << result.error_text();
  EXPECT_NE(result.error_text().find("fit or evaluation"), std::string::npos) << result.error_text();
}

TEST(CollectiveSweeps, ANegativeAppliedOverheadIsALocatedError) {
  const auto result = load_collective_sweeps(edited_sweeps("applied_us: 0", "applied_us: -3"));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("applied_us"), std::string::npos) << result.error_text();
}

TEST(CollectiveSweeps, AMissingOutputIsAnErrorNamingIt) {
  CollectiveSweep sweep = loaded().sweeps.sweeps[0];
  sweep.file = "deepops/no-such-run.txt";
  const auto result = compare_sweep(loaded().catalog, loaded().model, sweep, nccl_tests_dir());
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("no-such-run.txt"), std::string::npos) << result.error_text();
}

TEST(CollectiveSweeps, SizeBandsSplitAt64KiBAnd64MiB) {
  EXPECT_EQ(size_band(65535), SizeBand::small);
  EXPECT_EQ(size_band(65536), SizeBand::mid);
  EXPECT_EQ(size_band(67108863), SizeBand::mid);
  EXPECT_EQ(size_band(67108864), SizeBand::large);
}

TEST(CollectiveSweeps, OverheadShiftsOnlyGroupsSpanningNodes) {
  ValidationRow row;
  row.point.nodes = 2;
  row.point.time_us = 20.0;
  row.predicted_time_us = 10.0;
  EXPECT_NEAR(row.error_percent(), 100.0, 1e-9);
  EXPECT_NEAR(error_with_cross_node_overhead(row, 10.0), 0.0, 1e-9);  // 20 / (10 + 10) - 1
  ValidationRow bandwidth;
  bandwidth.point.nodes = 4;
  bandwidth.point.busbw_min_gbps = bandwidth.point.busbw_max_gbps = 50;
  bandwidth.predicted_time_us = 100;
  bandwidth.predicted_busbw_gbps = 100;
  EXPECT_NEAR(error_with_cross_node_overhead(bandwidth, 100.0), 0.0, 1e-9);  // half the rate: 50 GB/s
  row.point.nodes = 1;
  EXPECT_NEAR(error_with_cross_node_overhead(row, 10.0), 100.0, 1e-9);
}

TEST(CollectiveSweeps, FitIsTheMedianOfMultiNodeMidBandResiduals) {
  ComparedSweep sweep;
  sweep.sweep.set = "fit";
  sweep.sweep.system.nodes = 2;
  for (const double residual : {5.0, 40.0, 10.0}) {
    SweepRow row;
    row.bytes = 1048576;
    row.row.predicted_time_us = 100;
    row.published_time_us = 100 + residual;
    sweep.rows.push_back(row);
  }
  SweepRow small;
  small.bytes = 8;
  small.published_time_us = 1000;
  sweep.rows.push_back(small);
  EXPECT_DOUBLE_EQ(fit_cross_node_op_overhead_us({sweep}), 10.0);
  ComparedSweep evaluation = sweep;
  evaluation.sweep.set = "evaluation";
  evaluation.rows[0].published_time_us = 10000;
  EXPECT_DOUBLE_EQ(fit_cross_node_op_overhead_us({sweep, evaluation}), 10.0);  // never fitted on
  ComparedSweep one_node = sweep;
  one_node.sweep.system.nodes = 1;
  EXPECT_DOUBLE_EQ(fit_cross_node_op_overhead_us({one_node}), 0.0);
}

// Hand-worked: 8 GPUs per process, published 40 us over a 20 us operation at 20 iterations:
// (40 - 20 / 20) / 8 = 4.875 us a GPU; mid-band rows, held-out sweeps, per-peer operations and one GPU per
// process are never fitted on.
TEST(CollectiveSweeps, HostLaunchCostIsFittedOnSmallRowsOfOneProcessFitSweepsOnly) {
  ComparedSweep sweep;
  sweep.sweep.set = "fit";
  sweep.sweep.system.gpus_per_process = 8;
  sweep.sweep.system.op = CollectiveOp::all_reduce;
  SweepRow row;
  row.bytes = 1024;
  row.published_time_us = 40;
  row.row.estimate.time_us = 20;
  sweep.rows.push_back(row);
  SweepRow mid = row;
  mid.bytes = 1048576;
  mid.published_time_us = 500;
  sweep.rows.push_back(mid);
  EXPECT_DOUBLE_EQ(fit_host_launch_us_per_gpu({sweep}, 20), 4.875);
  ComparedSweep held_out = sweep;
  held_out.sweep.set = "evaluation";
  held_out.rows[0].published_time_us = 4000;
  ComparedSweep alltoall = held_out;
  alltoall.sweep.set = "fit";
  alltoall.sweep.system.op = CollectiveOp::alltoall;
  ComparedSweep own_process = alltoall;
  own_process.sweep.system.op = CollectiveOp::all_reduce;
  own_process.sweep.system.gpus_per_process = 1;
  EXPECT_DOUBLE_EQ(fit_host_launch_us_per_gpu({sweep, held_out, alltoall, own_process}, 20), 4.875);
  EXPECT_DOUBLE_EQ(fit_host_launch_us_per_gpu({own_process}, 20), 0.0);
}

// The stored cost (data/perf/nccl-cost-model.yaml) is what the bundled fit sweeps give, not a hand-set number;
// the one-process sweeps' headers say "nGpus 8".
TEST(CollectiveSweeps, StoredHostLaunchCostIsWhatTheFitSweepsGive) {
  GPUTWIN_REQUIRE_FIXTURE(nccl_tests_dir());
  std::vector<ComparedSweep> fit;
  int one_process = 0;
  for (const auto& sweep : loaded().sweeps.sweeps) {
    if (sweep.set != "fit") continue;
    fit.push_back(compared(sweep.name));
    if (sweep.system.gpus_per_process == 1) continue;
    ++one_process;
    std::ifstream in(nccl_tests_dir() + "/" + sweep.file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("nGpus " + std::to_string(sweep.system.gpus_per_process)), std::string::npos)
        << sweep.file;
  }
  EXPECT_EQ(one_process, 3);
  EXPECT_NEAR(fit_host_launch_us_per_gpu(fit, loaded().model.nccl_tests_loop.iters),
              loaded().model.nccl_tests_loop.host_launch_us_per_gpu, 0.05);
}

TEST(CollectiveSweeps, ZeroGpusPerProcessIsALocatedError) {
  const auto result =
      load_collective_sweeps(edited_sweeps("gpus_per_process: 8", "gpus_per_process: 0"));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error_text().find("sweeps[1].gpus_per_process"), std::string::npos) << result.error_text();
}

// The 2 x DGX A100 InfiniBand sweep, every size: held to the measured errors (not to grow).
TEST(CollectiveSweeps, DeepopsAllReduceByBand) {
  GPUTWIN_REQUIRE_FIXTURE(nccl_tests_dir());
  const ComparedSweep sweep = compared(kDeepops);
  ASSERT_EQ(sweep.rows.size(), 30U);  // 8 B - 4 GiB
  const BandSummary small = band_summary(sweep, SizeBand::small);
  const BandSummary mid = band_summary(sweep, SizeBand::mid);
  const BandSummary large = band_summary(sweep, SizeBand::large);
  EXPECT_EQ(small.rows, 13);
  EXPECT_EQ(mid.rows, 10);
  EXPECT_EQ(large.rows, 7);
  EXPECT_LE(small.mean_abs_error_percent, 71.2) << "measured 71.1 %";
  EXPECT_LE(mid.mean_abs_error_percent, 78.8) << "measured 78.7 %";
  EXPECT_LE(large.mean_abs_error_percent, 5.6) << "measured 5.5 %";
  // The gap's sign: the model is too fast at every size below 64 MiB.
  for (const auto& row : sweep.rows) {
    if (row.bytes < 67108864) {
      EXPECT_GT(row.error_percent, 0) << row.bytes;
    }
  }
}

// The one-node 8 x A100 sweeps (one process driving 8 GPUs, charged the fitted host launch cost): held to the
// measured band errors (without the host cost: 125.1 / 77.7 / 5.1, 207.8 / 163.6 / 17.8, 638.6 / 381.2 / 18.5;
// alltoall's per-peer calls are charged as one, a lower bound).
TEST(CollectiveSweeps, OneNodeA100SweepsByBand) {
  GPUTWIN_REQUIRE_FIXTURE(nccl_tests_dir());
  struct Expected {
    const char* name;
    std::size_t rows;
    double small, mid, large;
  };
  for (const Expected& e :
       {Expected{"8x A100-SXM4-40GB (one node, NVSwitch), all_reduce", 32, 1.8, 43.9, 5.1},
        Expected{"8x A100-SXM4-40GB (one node, NVSwitch), all_gather", 29, 0.9, 71.0, 17.7},
        Expected{"8x A100-SXM4-40GB (one node, NVSwitch), alltoall", 29, 151.4, 144.4, 18.4}}) {
    const ComparedSweep sweep = compared(e.name);
    EXPECT_EQ(sweep.rows.size(), e.rows) << e.name;
    EXPECT_LE(band_summary(sweep, SizeBand::small).mean_abs_error_percent, e.small) << e.name;
    EXPECT_LE(band_summary(sweep, SizeBand::mid).mean_abs_error_percent, e.mid) << e.name;
    EXPECT_LE(band_summary(sweep, SizeBand::large).mean_abs_error_percent, e.large) << e.name;
  }
}

// The stored fitted value is what the fit sweep gives (no hand-set number), and the evaluation decision
// holds: the term halves the fit sweep's mid-band error but makes the held-out 4 x 8 H100 points worse.
TEST(CollectiveSweeps, CandidateTermFitsTheFitSweepAndIsWorseOnHeldOutPoints) {
  GPUTWIN_REQUIRE_FIXTURE(nccl_tests_dir());
  std::vector<ComparedSweep> fit;
  for (const auto& sweep : loaded().sweeps.sweeps)
    if (sweep.set == "fit") fit.push_back(compared(sweep.name));
  const double fitted = fit_cross_node_op_overhead_us(fit);
  EXPECT_NEAR(fitted, loaded().sweeps.cross_node_op_overhead_fitted_us, 0.05);

  const ComparedSweep deepops = compared(kDeepops);
  double mid_before = 0;
  double mid_after = 0;
  for (const auto& row : deepops.rows) {
    if (size_band(row.bytes) != SizeBand::mid) continue;
    mid_before += std::abs(row.error_percent);
    mid_after += std::abs(error_with_cross_node_overhead(row.row, fitted));
  }
  EXPECT_LT(mid_after, mid_before / 2);
  // compare_sweep applies the same term when given it (what applied_us feeds from the bench).
  const auto shifted =
      compare_sweep(loaded().catalog, loaded().model, deepops.sweep, nccl_tests_dir(), fitted);
  ASSERT_TRUE(shifted.ok()) << shifted.error_text();
  const BandSummary shifted_mid = band_summary(shifted.value(), SizeBand::mid);
  EXPECT_NEAR(shifted_mid.mean_abs_error_percent * shifted_mid.rows, mid_after, 1e-9);

  const auto points = load_published_collectives(std::string(GPUTWIN_SOURCE_DIR) +
                                                 "/data/reference/collectives-published.yaml");
  ASSERT_TRUE(points.ok()) << points.error_text();
  double before = 0;
  double after = 0;
  int count = 0;
  for (const auto& point : points.value()) {
    if (point.set != "evaluation") continue;
    const auto row = validate_collective_point(loaded().catalog, loaded().model, point);
    ASSERT_TRUE(row.ok()) << row.error_text();
    before += std::abs(row.value().error_percent());
    after += std::abs(error_with_cross_node_overhead(row.value(), fitted));
    ++count;
  }
  ASSERT_EQ(count, 22);  // 17 one process per GPU, 5 one-node -g 8
  EXPECT_LE(before / count, 29.4) << "measured 29.3 % (the adopted model: the term off)";
  EXPECT_GT(after / count, before / count) << "the fitted term would be adopted if it helped held-out points";
}

}  // namespace
}  // namespace gputwin::validate
