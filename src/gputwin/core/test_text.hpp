// Test helpers shared by every concern's tests: paths into the source tree, and a bundled or inline text with
// one piece replaced (the piece must be there), written to a file of its own when a loader needs a path.
//
//   const auto path = testing::per_test_file(
//       testing::replaced(testing::read_text(testing::source_path("data/validate/checks.yaml")), "10%",
//       "10"), "checks", ".yaml");
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>

namespace gputwin::testing {

inline std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `text` with the first `from` replaced by `to`; a test whose `from` is missing fails (it would test
// nothing).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "not in the text: " << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Writes `text` to a temporary file named after the running test: ctest runs a file's tests in parallel
// processes, so each test needs its own file.
inline std::string per_test_file(const std::string& text, const std::string& prefix,
                                 const std::string& extension) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto path =
      std::filesystem::temp_directory_path() /
      ("gputwin-" + prefix + "-" + std::string(test->test_suite_name()) + "-" + test->name() + extension);
  std::ofstream(path) << text;
  return path.string();
}

// Writes `text` to the running test's own file and loads it with `load` (a path in, a result with ok() and
// error_text() out): the loader must refuse it, naming the file at `line` and saying each of `expected`.
template <class Load>
void expect_located_error(const Load& load, const std::string& text, int line,
                          std::initializer_list<std::string_view> expected) {
  const std::string path = per_test_file(text, "located", ".yaml");
  const auto loaded = load(path);
  ASSERT_FALSE(loaded.ok()) << "accepted:\n" << text;
  const std::string error = loaded.error_text();
  EXPECT_NE(error.find(path + ":" + std::to_string(line) + ":"), std::string::npos) << error;
  for (const std::string_view piece : expected) EXPECT_NE(error.find(piece), std::string::npos) << error;
}

}  // namespace gputwin::testing
