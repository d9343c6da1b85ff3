// Reads `nvidia-smi -q -x` XML (schemas nvsmi_device_v10 to v13, and older logs with no DOCTYPE line) into
// the facts of one node.
//
//   Result<NodeFacts> node = NvidiaSmiXml::read_file("node017/nvidia-smi.xml");
//   if (!node.ok()) std::cerr << node.error_text();   // node017/nvidia-smi.xml:3: ...: what was wrong
//   node.value().gpus[0].power.enforced_limit;       // watts(700)
//
// Element names that changed between schema versions (clocks_throttle_reasons -> clocks_event_reasons,
// power_readings -> gpu_power_readings, power_draw -> instant_power_draw, per-location ECC counts ->
// SRAM/DRAM counts) are all understood. Elements gputwin does not use are ignored; a value it uses but cannot
// read is an error naming the file, the line and the element.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

class NvidiaSmiXml {
 public:
  [[nodiscard]] static Result<NodeFacts> read_file(const std::string& path);
  // `first_line` is the line of `text`'s first character in `source` (when the XML is a section of a file).
  [[nodiscard]] static Result<NodeFacts> parse(std::string_view text, const std::string& source,
                                               int first_line = 1);
};

}  // namespace gputwin::validate
