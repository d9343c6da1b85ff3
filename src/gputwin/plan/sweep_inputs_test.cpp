// A sweep's inputs from its files: the trace read once, every design's cluster built (a spec designed in
// full, a node count as identical nodes), one design only for an array task, and the first failing file
// named.
#include "gputwin/plan/sweep_inputs.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace gputwin {
namespace {

std::string source_path(const std::string& relative) {
  return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative;
}

const CatalogSources kBundled{{}, true};

TEST(SweepInputs, EveryDesignIsBuiltFromItsSpecOrNodeCount) {
  const auto inputs = load_sweep_inputs(source_path("tests/sweeps/small.yaml"), kBundled);
  ASSERT_TRUE(inputs.ok()) << inputs.error_text();
  const SweepInputs& in = inputs.value();
  EXPECT_EQ(in.spec.name, "small policy study");
  EXPECT_EQ(in.jobs.size(), 8u);  // the sacct capture's 8 allocations
  ASSERT_EQ(in.pools.size(), 2u);
  EXPECT_EQ(in.pools[0].node_count(), 4);  // slurm-small.yaml: 4 DGX H100
  EXPECT_EQ(in.pools[0].total_gpus(), 32);
  EXPECT_EQ(in.pools[1].node_count(), 2);
  EXPECT_EQ(in.pools[1].total_gpus(), 16);
}

TEST(SweepInputs, OneDesignOnlyLeavesTheOthersAStandIn) {
  const auto inputs = load_sweep_inputs(source_path("tests/sweeps/small.yaml"), kBundled, 1);
  ASSERT_TRUE(inputs.ok()) << inputs.error_text();
  ASSERT_EQ(inputs.value().pools.size(), 2u);
  EXPECT_EQ(inputs.value().pools[0].total_gpus(), 1);
  EXPECT_EQ(inputs.value().pools[1].total_gpus(), 16);
}

// Files of a sweep that goes wrong in one place, in a fresh directory.
class BrokenSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gputwin-sweep-inputs-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
    write("jobs.csv", "id,submit_time,duration,gpus\nj1,0,100,8\nj2,10,50,4\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  // tests/specs/slurm-small.yaml, a valid 4-node design, with `from` replaced by `to`.
  static std::string small_spec(const std::string& from = "", const std::string& to = "") {
    std::ifstream in(source_path("tests/specs/slurm-small.yaml"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!from.empty()) text.replace(text.find(from), from.size(), to);
    return text;
  }
  std::filesystem::path dir_;
};

TEST_F(BrokenSweep, MissingTraceIsNamed) {
  const std::string sweep =
      write("sweep.yaml",
            "name: s\ntrace: {path: nowhere.csv}\ndesigns: [{name: a, nodes: 1}]\npolicies: [fifo]\n");
  const auto inputs = load_sweep_inputs(sweep, kBundled);
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.error_text().find("nowhere.csv"), std::string::npos) << inputs.error_text();
}

TEST_F(BrokenSweep, BadDesignSpecIsNamedByFileAndField) {
  write("bad-spec.yaml", small_spec("system: dgx-h100", "system: no-such-system"));
  const std::string sweep = write("sweep.yaml",
                                  "name: s\ntrace: {path: jobs.csv, format: jobs}\ndesigns: [{name: a, spec: "
                                  "bad-spec.yaml}]\npolicies: [fifo]\n");
  const auto inputs = load_sweep_inputs(sweep, kBundled);
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.error_text().find("bad-spec.yaml:"), std::string::npos) << inputs.error_text();
  EXPECT_NE(inputs.error_text().find("nodes.system"), std::string::npos) << inputs.error_text();
  EXPECT_NE(inputs.error_text().find("unknown system 'no-such-system'"), std::string::npos)
      << inputs.error_text();
}

TEST_F(BrokenSweep, BadCatalogFolderIsNamedOnlyWhenASpecNeedsIt) {
  const CatalogSources missing{{(dir_ / "no-parts").string()}, true};
  write("spec.yaml", small_spec());
  const std::string plain = write(
      "plain.yaml",
      "name: s\ntrace: {path: jobs.csv, format: jobs}\ndesigns: [{name: a, nodes: 2}]\npolicies: [fifo]\n");
  EXPECT_TRUE(load_sweep_inputs(plain, missing).ok());
  const std::string with_spec = write("with-spec.yaml",
                                      "name: s\ntrace: {path: jobs.csv, format: jobs}\ndesigns: [{name: a, "
                                      "spec: spec.yaml}]\npolicies: [fifo]\n");
  const auto inputs = load_sweep_inputs(with_spec, missing);
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.error_text().find("no-parts"), std::string::npos) << inputs.error_text();
}

}  // namespace
}  // namespace gputwin
