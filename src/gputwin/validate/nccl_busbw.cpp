#include "gputwin/validate/nccl_busbw.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "gputwin/perf/nccl_tests_loop.hpp"

namespace gputwin::validate {

std::optional<LargestMessage> largest_message(const NcclTestsRun& run) {
  std::optional<LargestMessage> largest;
  for (const CollectiveRow& row : run.rows) {
    if (!row.out_of_place.bus_bandwidth) continue;
    const auto bytes = static_cast<std::int64_t>(row.size.base());
    if (largest && bytes < largest->bytes) continue;
    largest = LargestMessage{bytes, in_gigabytes_per_second(*row.out_of_place.bus_bandwidth), row.line};
  }
  return largest;
}

std::optional<std::string> collective_of_run(const NcclTestsRun& run) {
  if (run.collective) return run.collective;
  std::string name;
  for (char c : std::filesystem::path(run.source).filename().string())
    if (std::isalnum(static_cast<unsigned char>(c)))
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Longest first, so "reducescatter" is not read as "reduce".
  constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kSpellings = {{
      {"reducescatter", "reduce_scatter"},
      {"allreduce", "all_reduce"},
      {"allgather", "all_gather"},
      {"alltoall", "alltoall"},
      {"broadcast", "broadcast"},
      {"sendrecv", "sendrecv"},
      {"reduce", "reduce"},
  }};
  for (const auto& [spelling, collective] : kSpellings)
    if (name.find(spelling) != std::string::npos) return std::string(collective);
  return std::nullopt;
}

namespace {

// nccl-tests derives busbw from algbw by a factor of the rank count n (nccl-tests doc/PERFORMANCE.md):
//   all_reduce                            busbw = algbw x 2(n-1)/n   ->  n = 2 / (2 - r)
//   all_gather, reduce_scatter, alltoall  busbw = algbw x (n-1)/n    ->  n = 1 / (1 - r)
//   broadcast, reduce, sendrecv           busbw = algbw              ->  n cannot be told
// where r = busbw / algbw. Empty for a collective whose factor does not depend on n.
std::optional<double> ranks_from_ratio(std::string_view collective, double ratio) {
  if (collective == "all_reduce" && ratio < 2) return 2 / (2 - ratio);
  if ((collective == "all_gather" || collective == "reduce_scatter" || collective == "alltoall") && ratio < 1)
    return 1 / (1 - ratio);
  return std::nullopt;
}

// The row whose algbw is largest: its printed figures carry the most significant digits.
const CollectiveTiming* widest_timing(const NcclTestsRun& run) {
  const CollectiveTiming* widest = nullptr;
  for (const CollectiveRow& row : run.rows) {
    const CollectiveTiming& timing = row.out_of_place;
    if (!timing.algorithm_bandwidth || !timing.bus_bandwidth) continue;
    if (widest == nullptr || *widest->algorithm_bandwidth < *timing.algorithm_bandwidth) widest = &timing;
  }
  return widest;
}

}  // namespace

std::optional<int> ranks_from_bandwidths(const NcclTestsRun& run) {
  const auto collective = collective_of_run(run);
  const CollectiveTiming* timing = widest_timing(run);
  if (!collective || timing == nullptr) return std::nullopt;
  // nccl-tests prints GB/s with two decimals, so each figure is known to +-0.005: the rank count is taken
  // only when every ratio within that rounding gives the same whole number.
  constexpr double kPrintedHalfUnit = 0.005;
  const double algbw = in_gigabytes_per_second(*timing->algorithm_bandwidth);
  const double busbw = in_gigabytes_per_second(*timing->bus_bandwidth);
  if (algbw <= kPrintedHalfUnit) return std::nullopt;
  const auto low = ranks_from_ratio(*collective, (busbw - kPrintedHalfUnit) / (algbw + kPrintedHalfUnit));
  const auto high = ranks_from_ratio(*collective, (busbw + kPrintedHalfUnit) / (algbw - kPrintedHalfUnit));
  if (!low || !high || std::lround(*low) != std::lround(*high) || std::lround(*low) < 2) return std::nullopt;
  return static_cast<int>(std::lround(*low));
}

int rank_count(const NcclTestsRun& run) {
  if (run.ranks) return *run.ranks;
  if (!run.devices.empty()) return static_cast<int>(run.devices.size());
  return ranks_from_bandwidths(run).value_or(0);
}

std::string busbw_group_name(const NcclTestsRun& run, const LargestMessage& largest) {
  return collective_of_run(run).value_or("unknown collective") + " " + std::to_string(rank_count(run)) +
         " ranks " + std::to_string(largest.bytes) + " B";
}

BusbwPredictor design_busbw_predictor(PerfHardware hardware, CollectiveModel model) {
  return [hardware = std::move(hardware), model = std::move(model)](std::string_view collective, int ranks,
                                                                    std::int64_t bytes) -> BusbwPrediction {
    const auto op = collective_from_name(collective);
    if (!op) return {std::nullopt, "the collective model has no '" + std::string(collective) + "'"};
    if (ranks < 1) return {std::nullopt, "the output lists no ranks"};
    if (ranks < 2) return {std::nullopt, "one rank moves no data between GPUs"};
    if (ranks > hardware.gpus())
      return {std::nullopt,
              std::to_string(ranks) + " ranks, the design has " + std::to_string(hardware.gpus()) + " GPUs"};
    const CollectiveGroup group{ranks, std::min(ranks, hardware.gpus_per_node)};
    if (ranks % group.ranks_per_node != 0)
      return {std::nullopt, std::to_string(ranks) + " ranks do not fill whole nodes of " +
                                std::to_string(hardware.gpus_per_node) + " GPUs"};
    const CollectiveEstimate estimate =
        estimate_collective(hardware, model, *op, ByteSize::from_base(static_cast<double>(bytes)), group, {});
    if (!estimate.available) return {std::nullopt, "no algorithm of the model runs it on this group"};
    // What nccl-tests' loop prints for it (a broadcast's or reduce's operations overlap down their chain).
    const NcclTestsTime printed = nccl_tests_time(estimate, model, {model.nccl_tests_loop.iters, false});
    return {printed.algbw_gbps(static_cast<double>(bytes)) * busbw_factor(*op, ranks), ""};
  };
}

}  // namespace gputwin::validate
