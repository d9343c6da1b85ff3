// Splits an nvidia_gpu_exporter capture file (one file holding many nvidia-smi outputs, each under a banner
// "# idle :: query-gpu (csv, ...)" / "# $ nvidia-smi --query-gpu=..." between rules of '#') into sections, so
// each output goes to its reader with its own line numbers kept.
//
//   for (const CaptureSection& section : split_capture_sections(text))
//     if (section.title.starts_with("idle :: nvidia-smi (default table)"))
//       NvidiaSmiTable::parse(section.body, path, section.first_line);
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/validate/measurements.hpp"

namespace gputwin::validate {

struct CaptureSection {
  std::string title;    // "idle :: query-gpu (csv, what the exporter parses)"
  std::string command;  // "nvidia-smi --query-gpu=..." (empty when the banner names none)
  std::string_view body;
  int first_line = 0;  // line of the body's first character in the file
};

// Sections in file order; text before the first banner is not a section. `text` must outlive the result.
[[nodiscard]] std::vector<CaptureSection> split_capture_sections(std::string_view text);

// The node's facts from a capture: its loaded --query-gpu CSV (the most facts), else the idle one, merged
// with the same phase's default table (merge_node_facts), which adds the CUDA version and the MIG instances.
[[nodiscard]] Result<NodeFacts> read_exporter_capture(const std::string& path, std::string_view text);

}  // namespace gputwin::validate
