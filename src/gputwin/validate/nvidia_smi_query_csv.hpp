// Reads `nvidia-smi --query-gpu=... --format=csv` output (with its header; with or without "nounits"): one
// row per GPU, columns located by their names ("power.draw [W]" is the column power.draw in watts).
//
//   Result<NodeFacts> node = NvidiaSmiQueryCsv::read_file("node017/query-gpu.csv");
//   node.value().gpus[0].max_clocks.sm_mhz;   // 1980
//
// Columns gputwin does not use are ignored; "[N/A]" and "[Not Supported]" are absent values; a row with a
// different number of cells than the header, or a value that is not what its column holds, is an error
// naming the line and the column.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

class NvidiaSmiQueryCsv {
 public:
  [[nodiscard]] static Result<NodeFacts> read_file(const std::string& path);
  [[nodiscard]] static Result<NodeFacts> parse(std::string_view text, const std::string& source,
                                               int first_line = 1);
};

}  // namespace gputwin::validate
