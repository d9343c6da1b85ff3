// Test helpers: paths of the shared real captures (../shared/fixtures, read in place, never copied) and of
// the malformed corpus. Tests that need the captures skip with a message when the folder is absent.
//
//   const std::string path = fixture("nccl-tests/superbenchmark/nccl_allreduce.log");
//   GPUTWIN_REQUIRE_FIXTURE(path);
//   evaluate_checks(fleet, bundled_checks(), {});   // the checks shipped in data/validate/checks.yaml
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gputwin/validate/checks_data.hpp"

namespace gputwin::validate::testing {

inline std::string fixture(const std::string& relative) {
  return std::string(GPUTWIN_SHARED_DIR) + "/fixtures/" + relative;
}

// The checks shipped with gputwin, loaded once.
inline const ChecksData& bundled_checks() {
  static const ChecksData checks =
      load_checks_data(std::string(GPUTWIN_SOURCE_DIR) + "/data/validate/checks.yaml").value();
  return checks;
}

inline std::string malformed_corpus() {
  return std::string(GPUTWIN_SOURCE_DIR) + "/tests/malformed";
}

}  // namespace gputwin::validate::testing

#define GPUTWIN_REQUIRE_FIXTURE(path)                                                        \
  do {                                                                                       \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared fixture absent: " << (path); \
  } while (false)
