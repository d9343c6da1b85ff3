// Reads the text output of nccl-tests (all_reduce_perf, all_gather_perf, ...): every layout found in real
// logs.
//
//   Result<NcclTestsRun> run = NcclTestsText::read_file("node017/all_reduce.log");
//   for (const CollectiveRow& row : run.value().rows)
//     in_gigabytes_per_second(*row.out_of_place.bus_bandwidth);   // 78.33 for 2 GB on 2x p4de
//
// Columns are located by the header line ("#  size  count  type  redop  root  time  algbw  busbw  #wrong
// ..."), so old logs (an "error" column instead of "#wrong", no "root", an empty "redop") read the same. A
// prefix before the header's '#' ("0: " from srun -l, "[1,0]<stdout>:" from Open MPI, Markdown indentation)
// is removed from every line. Lines that are not results ("...", NCCL INFO log lines) are counted in
// `skipped` with the reason; a row that cannot be read (cut mid-line, a word where a number belongs) is an
// error naming the line and the column.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

class NcclTestsText {
 public:
  [[nodiscard]] static Result<NcclTestsRun> read_file(const std::string& path);
  [[nodiscard]] static Result<NcclTestsRun> parse(std::string_view text, const std::string& source);
};

}  // namespace gputwin::validate
