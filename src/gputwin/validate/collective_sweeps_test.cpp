// Full nccl-tests sweeps (../shared/fixtures/nccl-tests, read in place) against the collective model: the
// loader's located errors, the per-band errors held to their measured values, and the candidate mid-size term
// (fitted on the fit sweeps only) with the reason it is not adopted.
#include "gputwin/validate/collective_sweeps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>

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
const char* const kTwoH100 = "2x HGX H100 (Dell XE9680), 8x CX-7 400G InfiniBand, all_reduce";
const char* const kFourH100Vms = "4x HGX H100 (VMs), 8x 400G InfiniBand, all_reduce";

// Every sweep of the bundled file that spans nodes, compared (fit and evaluation).
std::vector<ComparedSweep> multi_node_sweeps() {
  std::vector<ComparedSweep> out;
  for (const auto& sweep : loaded().sweeps.sweeps)
    if (sweep.system.nodes > 1) out.push_back(compared(sweep.name));
  return out;
}

TEST(CollectiveSweeps, BundledFileSplitsBySourceAndListsWhatItCannotExpress) {
  const auto& sweeps = loaded().sweeps;
  ASSERT_EQ(sweeps.sweeps.size(), 10U);
  // Four sweeps read from ../shared, then five transcribed from nccl-tests issue #309 (one poster's two
  // clusters from 8 B: fit; the other poster's three runs from 1 MiB: evaluation), then OCI's 2 x A100 README
  // run (evaluation: found after the calibration had been run).
  for (std::size_t i = 0; i < sweeps.sweeps.size(); ++i) {
    const auto& sweep = sweeps.sweeps[i];
    EXPECT_EQ(sweep.set, i < 6 ? "fit" : "evaluation") << sweep.name;
    EXPECT_EQ(sweep.file.empty(), i >= 4) << sweep.name;
    EXPECT_EQ(sweep.rows.empty(), i < 4) << sweep.name;
    if (i >= 4 && i < 9) {
      EXPECT_NE(sweep.source.find("NVIDIA/nccl-tests issue #309"), std::string::npos) << sweep.name;
    }
  }
  EXPECT_NE(sweeps.sweeps[9].source.find("oracle-quickstart/oci-hpc-oke"), std::string::npos);
  EXPECT_EQ(sweeps.sweeps[9].system.nics_per_node, 16);
  EXPECT_EQ(sweeps.sweeps[0].system.system, "dgx-a100");
  EXPECT_EQ(sweeps.sweeps[0].system.nodes, 2);
  EXPECT_EQ(sweeps.sweeps[4].system.system, "hgx-h100-8gpu");
  ASSERT_EQ(sweeps.sweeps[4].rows.size(), 32U);  // 8 B to 16 GiB
  EXPECT_DOUBLE_EQ(sweeps.sweeps[4].rows.front().bytes, 8);
  EXPECT_DOUBLE_EQ(sweeps.sweeps[4].rows.front().time_us, 68.52);
  EXPECT_DOUBLE_EQ(sweeps.sweeps[4].rows.back().bytes, 17179869184.0);
  EXPECT_EQ(sweeps.not_expressible.size(), 5U);
  EXPECT_DOUBLE_EQ(sweeps.cross_node_op_overhead_applied_us, 0);
}

TEST(CollectiveSweeps, ASweepNeedsEitherAFileOrRows) {
  const auto both = load_collective_sweeps(edited_sweeps(
      "\n    set: fit\n    system: dgx-a100", "\n    rows: [[8, 10.0]]\n    set: fit\n    system: dgx-a100"));
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error_text().find("sweeps[0]"), std::string::npos) << both.error_text();
  EXPECT_NE(both.error_text().find("either `file` or `rows`"), std::string::npos) << both.error_text();
  const auto neither = load_collective_sweeps(edited_sweeps(
      "\n    file: deepops/2x-DGX-A100-HDR-IB_all_reduce__nvidia-network-operator.md_L240-276.txt", ""));
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.error_text().find("either `file` or `rows`"), std::string::npos) << neither.error_text();
}

TEST(CollectiveSweeps, TranscribedRowsAreLocatedWhenMalformed) {
  const auto triple = load_collective_sweeps(edited_sweeps("[16, 24.96]", "[16, 24.96, 3]"));
  ASSERT_FALSE(triple.ok());
  EXPECT_NE(triple.error_text().find("sweeps[4].rows[1]"), std::string::npos) << triple.error_text();
  EXPECT_NE(triple.error_text().find("[bytes, out-of-place time in us]"), std::string::npos)
      << triple.error_text();
  const auto unordered = load_collective_sweeps(edited_sweeps("[32, 24.93]", "[12, 24.93]"));
  ASSERT_FALSE(unordered.ok());
  EXPECT_NE(unordered.error_text().find("sweeps[4].rows[2]"), std::string::npos) << unordered.error_text();
  EXPECT_NE(unordered.error_text().find("increasing order"), std::string::npos) << unordered.error_text();
  const auto zero_time = load_collective_sweeps(edited_sweeps("[16, 24.96]", "[16, 0]"));
  ASSERT_FALSE(zero_time.ok());
  EXPECT_NE(zero_time.error_text().find("greater than zero"), std::string::npos) << zero_time.error_text();
}

TEST(CollectiveSweeps, AnUnknownSetIsALocatedError) {
  const auto result = load_collective_sweeps(edited_sweeps("\n    set: fit", "\n    set: training"));
  ASSERT_FALSE(result.ok());
  // file:line:column and the field's path
  EXPECT_NE(result.error_text().find("gputwin-sweeps-CollectiveSweeps-AnUnknownSetIsALocatedError.yaml:16:"),
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

// The transcribed sweeps (no ../shared needed), every size: held to the measured band errors (not to grow).
// Fit: nccl-tests #309, one poster's 2 x 8 H100 bare metal and 4 x 8 VMs from 8 B; evaluation: the other
// poster's 8, 4 and 2 nodes from 1 MiB, and OCI's 2 x 8 A100 over RoCE.
TEST(CollectiveSweeps, TranscribedSweepsByBand) {
  struct Expected {
    const char* name;
    std::size_t rows;
    double small, mid, large;  // measured mean |error|, % (0: no row in the band)
  };
  // Since NVLSTree's store-and-forward fill (issue 15): 2 x 8 mid 22.3 -> 13.9, large 18.5 -> 7.0; 4 x 8 VMs
  // 34.3 -> 33.3, 7.4 -> 2.8; held out 8 nodes large 23.3 -> 10.3, 4 nodes 133.7 -> 128.5 and 21.8 -> 11.4,
  // 2 nodes 46.7 -> 18.5 and 20.7 -> 7.6.
  for (const Expected& e :
       {Expected{kTwoH100, 32, 43.6, 13.9, 7.0}, Expected{kFourH100Vms, 32, 39.7, 33.3, 2.8},
        Expected{"8x H100 (gj-aion), 400G InfiniBand, all_reduce", 14, 0, 179.0, 10.3},
        Expected{"4x H100 (gj-aion), 400G InfiniBand, all_reduce", 14, 0, 128.5, 11.4},
        Expected{"2x H100 (gj-aion), 400G InfiniBand, all_reduce", 14, 0, 18.5, 7.6},
        Expected{"2x OCI BM.GPU4.8 (8x A100-SXM4-40GB), 16x 100G RoCE, all_reduce", 31, 50.4, 20.3, 12.5}}) {
    const ComparedSweep sweep = compared(e.name);
    EXPECT_EQ(sweep.rows.size(), e.rows) << e.name;
    if (e.small == 0)
      EXPECT_EQ(band_summary(sweep, SizeBand::small).rows, 0) << e.name;
    else
      EXPECT_LE(band_summary(sweep, SizeBand::small).mean_abs_error_percent, e.small + 0.1) << e.name;
    EXPECT_LE(band_summary(sweep, SizeBand::mid).mean_abs_error_percent, e.mid + 0.1) << e.name;
    EXPECT_LE(band_summary(sweep, SizeBand::large).mean_abs_error_percent, e.large + 0.1) << e.name;
  }
}

// A small all_reduce across nodes is NCCL's Tree/LL latency, worked by hand from the stored 2.30.7 constants
// (data/perf/nccl-cost-model.yaml): base 6.8 + 2 x ((8 - 1) x NVLink 0.6 + log2(nodes) x NET 5.0) us = 25.2 us
// on 2 nodes, 35.2 us on 4. The fit sweeps' 16-128 B rows (bare metal and VMs) are within 2 % of it (measured
// worst 1.7 %); their 8 B and 256 B rows are the runs' own outliers (in place 24.7 / 25.9 and 34.8 / 35.8 us).
TEST(CollectiveSweeps, SmallAllReduceAcrossNodesIsNcclsTreeLatency) {
  const CollectiveModel& m = loaded().model;
  const int tree = static_cast<int>(CollectiveAlgorithm::Tree);
  const int ll = static_cast<int>(CollectiveProtocol::LL);
  EXPECT_DOUBLE_EQ(m.base_latency_us[tree][ll], 6.8);
  EXPECT_DOUBLE_EQ(m.hop_latency_us[CollectiveModel::kNvlink][tree][ll], 0.6);
  EXPECT_DOUBLE_EQ(m.hop_latency_us[CollectiveModel::kNet][tree][ll], 5.0);
  for (const auto& [name, nodes, latency_us] :
       {std::tuple{kTwoH100, 2, 6.8 + 2 * (7 * 0.6 + 1 * 5.0)}, std::tuple{kFourH100Vms, 4, 6.8 + 2 * (7 * 0.6 + 2 * 5.0)}}) {
    const ComparedSweep sweep = compared(name);
    ASSERT_EQ(sweep.sweep.system.nodes, nodes);
    int checked = 0;
    for (const auto& row : sweep.rows) {
      if (row.bytes < 16 || row.bytes > 128) continue;
      EXPECT_EQ(row.row.estimate.algorithm, "Tree") << name << " " << row.bytes;
      EXPECT_EQ(row.row.estimate.protocol, "LL") << name << " " << row.bytes;
      EXPECT_NEAR(row.row.estimate.latency_us, latency_us, 1e-9) << name;
      EXPECT_LT(row.row.estimate.bandwidth_us, 0.1) << name << " " << row.bytes;
      EXPECT_LE(std::abs(row.error_percent), 1.8) << name << " " << row.bytes;
      ++checked;
    }
    EXPECT_EQ(checked, 4) << name;
  }
}

TEST(CollectiveSweeps, MultiNodeBandsPoolOneSetsRowsAcrossSweeps) {
  auto row_at = [](double bytes, int nodes, double published_us, double predicted_us) {
    SweepRow row;
    row.bytes = bytes;
    row.published_time_us = published_us;
    row.row.point.nodes = nodes;
    row.row.point.time_us = published_us;
    row.row.predicted_time_us = predicted_us;
    row.error_percent = row.row.error_percent();
    return row;
  };
  ComparedSweep two;
  two.sweep.set = "fit";
  two.sweep.system.nodes = 2;
  two.rows = {row_at(65536, 2, 30, 20), row_at(8, 2, 10, 10)};  // +50 % mid, 0 % small
  ComparedSweep four = two;
  four.sweep.system.nodes = 4;
  four.rows = {row_at(1 << 20, 4, 40, 50)};  // -20 % mid
  ComparedSweep one_node = two;
  one_node.sweep.system.nodes = 1;  // never pooled
  ComparedSweep held_out = two;
  held_out.sweep.set = "evaluation";
  const BandSummary mid = multi_node_band_summary({two, four, one_node, held_out}, "fit", SizeBand::mid);
  EXPECT_EQ(mid.rows, 2);
  EXPECT_NEAR(mid.mean_abs_error_percent, 35.0, 1e-9);
  EXPECT_NEAR(mid.worst_abs_error_percent, 50.0, 1e-9);
  // With 10 us added to every prediction: 30 / 30 - 1 = 0 %, 40 / 60 - 1 = -33.3 %.
  const BandSummary shifted = multi_node_band_summary({two, four}, "fit", SizeBand::mid, 10);
  EXPECT_NEAR(shifted.mean_abs_error_percent, (0 + 100.0 / 3) / 2, 1e-9);
  EXPECT_EQ(multi_node_band_summary({two, four}, "evaluation", SizeBand::mid).rows, 0);
}

// The stored fitted value is what the multi-node fit sweeps give (no hand-set number). Since NVLSTree's
// store-and-forward fill is modelled the refit is 17.9 us (47.3 before) and it cuts the fit sweeps' mid band
// by about a quarter (42.0 -> 30.8 %); it still puts the small H100 all_reduces (NCCL's latency within 2 %)
// about 40 % too slow, and NCCL's source gives no such cost, so it stays off. The held-out points now improve
// with it (29.2 -> 21.4 %): recorded for the lead, not a reason used here (an adoption chosen on held-out
// rows would be fitted to them).
TEST(CollectiveSweeps, CandidateTermFitsTheFitSweepsAndIsNotAdopted) {
  GPUTWIN_REQUIRE_FIXTURE(nccl_tests_dir());
  const std::vector<ComparedSweep> sweeps = multi_node_sweeps();
  const double fitted = fit_cross_node_op_overhead_us(sweeps);
  EXPECT_NEAR(fitted, loaded().sweeps.cross_node_op_overhead_fitted_us, 0.05);
  EXPECT_DOUBLE_EQ(loaded().sweeps.cross_node_op_overhead_applied_us, 0);

  const BandSummary mid_before = multi_node_band_summary(sweeps, "fit", SizeBand::mid);
  const BandSummary mid_after = multi_node_band_summary(sweeps, "fit", SizeBand::mid, fitted);
  EXPECT_EQ(mid_before.rows, 30);
  EXPECT_LT(mid_after.mean_abs_error_percent, mid_before.mean_abs_error_percent / 1.3);
  // compare_sweep applies the same term when given it (what applied_us feeds from the bench).
  const ComparedSweep deepops = compared(kDeepops);
  const auto shifted =
      compare_sweep(loaded().catalog, loaded().model, deepops.sweep, nccl_tests_dir(), fitted);
  ASSERT_TRUE(shifted.ok()) << shifted.error_text();
  for (std::size_t i = 0; i < deepops.rows.size(); ++i)
    EXPECT_NEAR(shifted.value().rows[i].error_percent,
                error_with_cross_node_overhead(deepops.rows[i].row, fitted), 1e-9);

  for (const auto& row : compared(kTwoH100).rows) {
    if (row.bytes >= 16 && row.bytes <= 128) {
      EXPECT_LT(error_with_cross_node_overhead(row.row, fitted), -35)
          << row.bytes << ": within 2 % without it";
    }
  }

  const auto points = load_published_collectives(std::string(GPUTWIN_SOURCE_DIR) +
                                                 "/data/reference/collectives-published.yaml");
  ASSERT_TRUE(points.ok()) << points.error_text();
  double before = 0;
  int count = 0;
  for (const auto& point : points.value()) {
    if (point.set != "evaluation") continue;
    const auto row = validate_collective_point(loaded().catalog, loaded().model, point);
    ASSERT_TRUE(row.ok()) << row.error_text();
    before += std::abs(row.value().error_percent());
    ++count;
  }
  // 17 one process per GPU, 5 one-node -g 8, and the 5 points of one whole GB200 NVL72 (72 ranks, held out
  // after this what-if: +24 .. +73 %, docs/accuracy.md).
  ASSERT_EQ(count, 27);
  EXPECT_LE(before / count, 31.6) << "measured 31.5 % (the adopted model: the term off; 29.2 % on the first 22)";
}

// A what-if, not adopted (docs/accuracy.md): the two A100 sweeps across nodes sit 11-20 us above NCCL's Tree/LL
// latency at small sizes where the H100 ones match it. A cross-node constant fitted on the A100 fit sweep's small
// rows only (deepops: median of published - predicted = 15.2 us) takes the held-out OCI A100 sweep's small band
// from 50.4 to 3.5 % and its mid band from 20.3 to 5.0 %; on the H100 fit rows it would be the -38 % the same
// constant costs them, so it could only be keyed to the A100 systems, a key the sources cannot tell from their
// NIC generation, NCCL version or virtualisation.
TEST(CollectiveSweeps, AnA100OnlyCrossNodeConstantFromTheFitSweepMatchesTheHeldOutA100Sweep) {
  GPUTWIN_REQUIRE_FIXTURE(nccl_tests_dir());
  std::vector<double> residuals;
  for (const auto& row : compared(kDeepops).rows)
    if (size_band(row.bytes) == SizeBand::small) residuals.push_back(row.published_time_us - row.row.predicted_time_us);
  std::sort(residuals.begin(), residuals.end());
  ASSERT_EQ(residuals.size(), 13U);
  const double constant = residuals[6];
  EXPECT_NEAR(constant, 15.23, 0.01);
  ComparedSweep oci = compared("2x OCI BM.GPU4.8 (8x A100-SXM4-40GB), 16x 100G RoCE, all_reduce");
  for (const auto& [band, before, after] : {std::tuple{SizeBand::small, 50.4, 3.5}, std::tuple{SizeBand::mid, 20.3, 5.0}}) {
    EXPECT_NEAR(band_summary(oci, band).mean_abs_error_percent, before, 0.05) << band_name(band);
    ComparedSweep shifted = oci;
    for (auto& row : shifted.rows) row.error_percent = error_with_cross_node_overhead(row.row, constant);
    EXPECT_NEAR(band_summary(shifted, band).mean_abs_error_percent, after, 0.05) << band_name(band);
  }
  for (const auto& row : compared(kTwoH100).rows)
    if (row.bytes >= 16 && row.bytes <= 128) {
      EXPECT_LT(error_with_cross_node_overhead(row.row, constant), -35) << row.bytes;
    }
}

}  // namespace
}  // namespace gputwin::validate
