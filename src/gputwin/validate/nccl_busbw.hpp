// What an nccl-tests run says about bus bandwidth, and what the design predicts for the same run.
//
//   std::optional<LargestMessage> largest = largest_message(run);   // the largest size, out-of-place busbw
//   BusbwPredictor predict = design_busbw_predictor(hw, model);     // perf's collective model on the design
//   BusbwPrediction expected = predict("all_reduce", 16, largest->bytes);
//
// The collective is the one the run names (its binary) or, failing that, its file name
// ("nccl_allreduce.log"); the rank count is the number of "Rank N ... device" lines (-J JSON: devices x ngpus
// x nthreads), or, for output that lists no ranks, what busbw/algbw implies (ranks_from_bandwidths).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

struct LargestMessage {
  std::int64_t bytes = 0;
  double busbw_gbps = 0;  // out-of-place
  int line = 0;
};

[[nodiscard]] std::optional<LargestMessage> largest_message(const NcclTestsRun& run);
// "all_reduce", or empty when neither the output nor the file name says.
[[nodiscard]] std::optional<std::string> collective_of_run(const NcclTestsRun& run);
// Ranks of the run: as the output gives them, else inferred from busbw/algbw (0 when neither says).
[[nodiscard]] int rank_count(const NcclTestsRun& run);
// The rank count that busbw/algbw implies for the run's collective (all_reduce, all_gather, reduce_scatter,
// alltoall); empty when the collective's factor does not depend on it or the printed digits do not decide.
[[nodiscard]] std::optional<int> ranks_from_bandwidths(const NcclTestsRun& run);
// Runs comparable across nodes: "all_reduce 8 ranks 8589934592 B".
[[nodiscard]] std::string busbw_group_name(const NcclTestsRun& run, const LargestMessage& largest);

struct BusbwPrediction {
  std::optional<double> busbw_gbps;
  std::string reason;  // why there is no prediction
};
using BusbwPredictor =
    std::function<BusbwPrediction(std::string_view collective, int ranks, std::int64_t bytes)>;

// The ranks fill whole nodes of the design (as `perf collective` assumes by default).
[[nodiscard]] BusbwPredictor design_busbw_predictor(PerfHardware hardware, CollectiveModel model);

}  // namespace gputwin::validate
