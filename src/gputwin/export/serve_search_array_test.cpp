#include "gputwin/export/serve_search_array.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gputwin/catalog/catalog_test_support.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/export/slurm_array.hpp"
#include "gputwin/report/serve_report.hpp"
#include "gputwin/serve/requests.hpp"

namespace gputwin {
namespace {

namespace fs = std::filesystem;

CapacityInputs inputs_for(const std::string& model_name) {
  const std::string data = bundled_data_dir() + "/perf/";
  const auto presets = load_model_presets(data + "models.yaml").value();
  return CapacityInputs{testing::bundled_catalog(),
                        load_collective_model(data + "nccl-cost-model.yaml").value(),
                        load_inference_constants(data + "inference.yaml").value(),
                        load_serving_engine_defaults(data + "serving-engine.yaml").value(),
                        *find_model(presets, model_name),
                        "fp8",
                        1.0,
                        128,
                        128,
                        {},
                        {},
                        4};
}

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
  const CapacityInputs inputs = inputs_for("mixtral-8x7b");
  const auto candidates = candidates_for(inputs, "dgx-h100");
  ASSERT_GT(candidates.size(), 2u);
  const auto requests =
      generate_arrivals({.rate_per_s = 20, .duration_s = 10, .input_tokens = 1024, .output_tokens = 64}, 3);
  LatencyTargets targets;
  targets.ttft_s = 0.5;
  targets.tpot_s = 0.04;
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

  for (std::size_t k = 0; k < candidates.size(); ++k) {
    CapacityTask task;
    task.task = static_cast<int>(k);
    task.row = search_candidate(inputs, candidates[k], requests, targets, 64, task.simulations);
    write(slurm_array_task_result(dir.string(), task.task), capacity_task_json(task).dump(2));
  }
  const auto merged = merge_serve_search_array(dir.string());
  ASSERT_TRUE(merged.ok()) << merged.error_text();
  EXPECT_TRUE(merged.value().missing.empty());
  EXPECT_EQ(merged.value().slo, "ttft-p90=500ms,tpot-p90=40ms");
  const CapacitySearch from_array = rank_capacity_rows(merged.value().rows, merged.value().simulations);
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
