// Reads the JSON that nccl-tests writes with `-J FILE` (JSON_FILE_VERSION 3).
//
//   Result<NcclTestsRun> run = NcclTestsJson::read_file("allreduce.json");
//   run.value().rows[0].in_place.bus_bandwidth;   // gigabytes_per_second(5.717374)
//
// A field of the wrong type ("size": "big") is an error naming the file and the JSON path of the field;
// malformed JSON is an error naming the line and column.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

class NcclTestsJson {
 public:
  [[nodiscard]] static Result<NcclTestsRun> read_file(const std::string& path);
  [[nodiscard]] static Result<NcclTestsRun> parse(std::string_view text, const std::string& source);
};

}  // namespace gputwin::validate
