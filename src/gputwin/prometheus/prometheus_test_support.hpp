// Test helpers of the prometheus module: paths of the shared real captures (../shared/fixtures, read in
// place) and of the recorded server answers under tests/prometheus/.
//
//   const std::string path = testing::fixture("dcgm/k8s-ai-conformance/....txt");
//   GPUTWIN_REQUIRE_FIXTURE(path);
//   FakeTransport::from_directory(testing::recorded("healthy-fleet"));
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace gputwin::prometheus::testing {

inline std::string fixture(const std::string& relative) {
  return std::string(GPUTWIN_SHARED_DIR) + "/fixtures/" + relative;
}

inline std::string recorded(const std::string& name) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/tests/prometheus/" + name;
}

}  // namespace gputwin::prometheus::testing

#ifndef GPUTWIN_REQUIRE_FIXTURE
#define GPUTWIN_REQUIRE_FIXTURE(path)                                                        \
  do {                                                                                       \
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared fixture absent: " << (path); \
  } while (false)
#endif
