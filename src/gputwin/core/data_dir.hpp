// Where the data shipped with gputwin lives (catalog, perf constants, reference figures, validate checks).
//
//   const std::string checks = bundled_data_dir() + "/validate/checks.yaml";
//
// The folder is set at build time (the source tree's data/) and can be overridden with GPUTWIN_DATA_DIR.
#pragma once

#include <string>

namespace gputwin {

[[nodiscard]] std::string bundled_data_dir();

}  // namespace gputwin
