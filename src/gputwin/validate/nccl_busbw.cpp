#include "gputwin/validate/nccl_busbw.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

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

int rank_count(const NcclTestsRun& run) {
  return run.ranks.value_or(static_cast<int>(run.devices.size()));
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
    return {estimate.busbw_gbps, ""};
  };
}

}  // namespace gputwin::validate
