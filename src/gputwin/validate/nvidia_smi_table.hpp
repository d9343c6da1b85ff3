// Reads the default `nvidia-smi` table (the boxed summary): driver and CUDA versions, and per GPU the index,
// name, persistence mode, bus id, volatile uncorrectable ECC count, temperature, performance state, power
// draw and cap, memory, MIG mode, and the "MIG devices" table when present.
//
//   Result<NodeFacts> node = NvidiaSmiTable::read_file("node017/nvidia-smi.txt");
//   node.value().gpus[0].power.limit;   // watts(700) from "69W /  700W"
//
// The table truncates long names and shows fewer facts than `-q -x`; prefer the XML when both exist. A GPU
// line the reader cannot split into its cells is an error naming the line.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

class NvidiaSmiTable {
 public:
  [[nodiscard]] static Result<NodeFacts> read_file(const std::string& path);
  [[nodiscard]] static Result<NodeFacts> parse(std::string_view text, const std::string& source,
                                               int first_line = 1);
};

}  // namespace gputwin::validate
