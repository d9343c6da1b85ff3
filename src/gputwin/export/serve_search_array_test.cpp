#include "gputwin/export/serve_search_array.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/export/slurm_array.hpp"
#include "gputwin/report/serve_documents.hpp"
#include "gputwin/serve/requests.hpp"
#include "gputwin/serve/serve_test_support.hpp"

namespace gputwin {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("gputwin-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "results");
  fs::create_directories(dir / "logs");
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The array's files are written, each task's row is written as an array task would and read back, and the
// merged rows rank into exactly the answer of the local search.
TEST(ServeSearchArray, TaskResultsMergeIntoTheLocalAnswer) {
  const CapacityInputs inputs = testing::capacity_inputs_for("mixtral-8x7b", /*input_tokens=*/128);
  const auto candidates = candidates_for(inputs, "dgx-h100");
  ASSERT_GT(candidates.size(), 2u);
  const auto requests =
      generate_arrivals({.rate_per_s = 20, .duration_s = 10, .input_tokens = 1024, .output_tokens = 64}, 3);
  const LatencyTargets targets = testing::latency_targets(0.5, 0.04);
  const fs::path dir = fresh_dir("serve-array");
  const ServeSearchArray array{
      "mixtral-8x7b",
      "poisson",
      "ttft-p90=500ms,tpot-p90=40ms",
      candidates.size(),
      "/usr/bin/gputwin",
      dir.string(),
      "/work/here",
      {"--partition=gpu"},
      {"perf", "serve", "--search", "--model", "mixtral-8x7b", "--slo", "ttft-p90=500ms,tpot-p90=40ms"}};
  ASSERT_FALSE(write_export_files(serve_search_array_files(array), dir.string()));
  std::ifstream script_in(dir / kServeSearchScript);
  const std::string script((std::istreambuf_iterator<char>(script_in)), std::istreambuf_iterator<char>());
  EXPECT_NE(script.find(fmt::format("#SBATCH --array=0-{}\n", candidates.size() - 1)), std::string::npos)
      << script;
  EXPECT_NE(script.find("#SBATCH --chdir=/work/here\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=gpu\n"), std::string::npos) << script;
  EXPECT_NE(script.find("exec '/usr/bin/gputwin' perf serve --search --model mixtral-8x7b --slo "
                        "'ttft-p90=500ms,tpot-p90=40ms' --task \"$SLURM_ARRAY_TASK_ID\""),
            std::string::npos)
      << script;

  for (int k = 0; k < static_cast<int>(candidates.size()); ++k) {  // each task as the array runs it
    const auto task = search_task(inputs, candidates, k, requests, targets, 64);
    ASSERT_TRUE(task.ok()) << task.error_text();
    const std::string path = slurm_array_task_result(dir.string(), k);
    ASSERT_TRUE(write_capacity_task(path, task.value()));
    EXPECT_FALSE(fs::exists(path + ".partial"));
  }
  const auto merged = merge_serve_search_array(dir.string());
  ASSERT_TRUE(merged.ok()) << merged.error_text();
  EXPECT_TRUE(merged.value().missing.empty());
  EXPECT_EQ(merged.value().slo, "ttft-p90=500ms,tpot-p90=40ms");
  const CapacitySearch from_array = merged_search(merged.value());
  const CapacitySearch local = search_capacity(inputs, candidates, requests, targets, 64, 2);
  EXPECT_EQ(capacity_text(from_array, "m", "t", targets), capacity_text(local, "m", "t", targets));
  EXPECT_EQ(capacity_json(from_array, "m", "t", targets), capacity_json(local, "m", "t", targets));

  fs::remove(slurm_array_task_result(dir.string(), 1));
  write(slurm_array_task_log(dir.string(), 1), "slurmstepd: error: *** JOB CANCELLED ***\n");
  const auto partial = merge_serve_search_array(dir.string());
  ASSERT_TRUE(partial.ok());
  ASSERT_EQ(partial.value().missing.size(), 1u);
  EXPECT_NE(partial.value().missing.front().find("task 1: no result; its log ends: slurmstepd"),
            std::string::npos)
      << partial.value().missing.front();
  fs::remove_all(dir);
}

// The tasks repeat the search's own arguments, without those that steer the array (in either spelling).
TEST(ServeSearchArray, TasksRepeatTheSearchWithoutTheArraysOwnOptions) {
  const std::vector<std::string> line{
      "perf",        "serve",  "--search", "--slurm-array", "run", "--model",         "llama3.1-8b",
      "--threads=4", "--json", "--wait",   "--rate",        "5",   "--sbatch-option", "--qos=x",
      "--no-submit", "--task", "3",        "--out=r.json"};
  EXPECT_EQ(array_task_arguments(line),
            (std::vector<std::string>{"perf", "serve", "--search", "--model", "llama3.1-8b", "--rate", "5"}));
}

TEST(ServeSearchArray, ATaskBeyondTheCandidatesIsRefusedWithTheRange) {
  const CapacityInputs inputs = testing::capacity_inputs_for("llama3.1-8b", /*input_tokens=*/128);
  const auto candidates = candidates_for(inputs, "dgx-h100");
  const auto requests =
      generate_arrivals({.rate_per_s = 1, .duration_s = 5, .input_tokens = 128, .output_tokens = 16}, 1);
  const auto task = search_task(inputs, candidates, static_cast<int>(candidates.size()), requests,
                                testing::latency_targets(1, 0.1), 8);
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.error_text().find(fmt::format("(0 to {})", candidates.size() - 1)), std::string::npos)
      << task.error_text();
}

TEST(ServeSearchArray, AManifestOfAnotherKindIsRefusedByField) {
  const fs::path dir = fresh_dir("serve-array-bad");
  write(dir / "manifest.json", R"({"schema": "gputwin.sweep-manifest/1", "name": "x", "tasks": 1})");
  const auto merged = merge_serve_search_array(dir.string());
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error_text().find("/schema"), std::string::npos) << merged.error_text();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gputwin
