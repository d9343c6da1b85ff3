// Reads `dcgmi diag -j` JSON: DCGM 3.x (root "DCGM GPU Diagnostic", results with "gpu_ids") and DCGM 4.x
// (root "DCGM Diagnostic" with "entity_groups" and "metadata", per NVIDIA's dcgm_diag_schema.json).
//
//   Result<DcgmDiagReport> diag = DcgmDiag::read_file("node017/dcgmi-diag-r3.json");
//   for (const DiagTest& test : diag.value().tests)
//     for (const DiagResult& result : test.results)
//       if (result.status == "Fail") ...   // test.name, result.entity_ids, result.warnings
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

class DcgmDiag {
 public:
  [[nodiscard]] static Result<DcgmDiagReport> read_file(const std::string& path);
  [[nodiscard]] static Result<DcgmDiagReport> parse(std::string_view text, const std::string& source);
};

}  // namespace gputwin::validate
