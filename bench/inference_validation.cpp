// Prints the inference model's validation table against the TensorRT-LLM rows (data/reference/inference-trtllm.yaml)
// and, with --calibrate, the grid search that chose the calibrated constants of data/perf/inference.yaml: every
// combination on the grid below is scored by its worst relative error over all rows (then the mean), and the best
// is printed next to the values in use; --cross-validate calibrates on all but one configuration and predicts it. Not run by CI; the thresholds are asserted by perf/inference_test.cpp.
//
//   ninja -C build inference_validation && build/bench/inference_validation [--calibrate]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gputwin/perf/inference_validation.hpp"

namespace {

using namespace gputwin;

std::string source_path(const std::string& relative) { return std::string(GPUTWIN_SOURCE_DIR) + "/" + relative; }

struct Score {
  double worst = 0;
  double mean = 0;
  bool operator<(const Score& other) const {
    return worst != other.worst ? worst < other.worst : mean < other.mean;
  }
};

Score score(const std::vector<InferenceCheck>& checks) {
  Score s;
  for (const auto& check : checks) {
    s.worst = std::max(s.worst, std::abs(check.error_percent()));
    s.mean += std::abs(check.error_percent()) / static_cast<double>(checks.size());
  }
  return s;
}

void print_table(const std::vector<InferenceCheck>& checks) {
  std::printf("| configuration | ISL/OSL | published tok/s | predicted tok/s | sequences | error |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const auto& c : checks) {
    std::printf("| %s | %d/%d | %.0f | %.0f | %d | %+.1f %% |\n", c.configuration.c_str(), c.input_tokens,
                c.output_tokens, c.published_tokens_per_s, c.predicted_tokens_per_s, c.sequences, c.error_percent());
  }
  const Score s = score(checks);
  std::printf("\nmean |error| %.1f %%, worst %.1f %% over %zu rows\n", s.mean, s.worst, checks.size());
}


// The calibration grid: every combination scored by its worst row error (then the mean); rows of the
// configuration `held_out` (if any) are left out of the score.
template <class Run>
std::pair<InferenceConstants, Score> grid_search(const InferenceConstants& start, const Run& run,
                                                 const std::string& held_out) {
  const auto scored = [&](const InferenceConstants& c) {
    const auto checks = run(c);
    std::vector<InferenceCheck> kept;
    for (const auto& check : checks.value()) {
      if (check.configuration != held_out) kept.push_back(check);
    }
    return score(kept);
  };
  InferenceConstants best = start;
  Score best_score = scored(start);
  InferenceConstants trial = start;
  for (double efficiency = 0.45; efficiency <= 0.851; efficiency += 0.05) {
    for (const double half : {0.0, 32.0, 64.0, 128.0, 256.0, 512.0}) {
      for (double memory = 0.6; memory <= 0.951; memory += 0.05) {
        for (double reserved_gb = 0; reserved_gb <= 16; reserved_gb += 2) {
          for (double host_us = 0; host_us <= 12; host_us += 2) {
            trial.gemm_efficiency_max = efficiency;
            trial.gemm_half_saturation_tokens = half;
            trial.memory_efficiency = memory;
            trial.runtime_reserved_bytes = reserved_gb * 1e9;
            trial.host_seconds_per_sequence_step = host_us * 1e-6;
            const Score s = scored(trial);
            if (s < best_score) {
              best_score = s;
              best = trial;
            }
          }
        }
      }
    }
  }
  return {best, best_score};
}

}  // namespace

// Leave-one-configuration-out: calibrate on the other configurations, then predict the held-out one's rows.
// A model that only memorised the rows would fail here.
template <class Run>
int cross_validate(const InferenceConstants& start, const Run& run, const std::vector<InferenceCheck>& checks) {
  std::vector<std::string> configurations;
  for (const auto& check : checks) {
    if (std::find(configurations.begin(), configurations.end(), check.configuration) == configurations.end()) {
      configurations.push_back(check.configuration);
    }
  }
  std::printf("\nleave-one-configuration-out (calibrated on the other %zu configurations):\n",
              configurations.size() - 1);
  for (const auto& held_out : configurations) {
    const auto calibrated = grid_search(start, run, held_out).first;
    const auto all = run(calibrated);
    std::vector<InferenceCheck> predicted;
    for (const auto& check : all.value()) {
      if (check.configuration == held_out) predicted.push_back(check);
    }
    const Score s = score(predicted);
    std::printf("  %-24s held out: mean |error| %.1f %%, worst %.1f %%\n", held_out.c_str(), s.mean, s.worst);
  }
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto catalog = Catalog::load({source_path("data/catalog")});
  const auto presets = load_model_presets(source_path("data/perf/models.yaml"));
  const auto collectives = load_collective_model(source_path("data/perf/nccl-cost-model.yaml"));
  const auto constants = load_inference_constants(source_path("data/perf/inference.yaml"));
  for (const std::string& error :
       {catalog.error_text(), presets.error_text(), collectives.error_text(), constants.error_text()}) {
    if (!error.empty()) {
      std::fprintf(stderr, "%s", error.c_str());
      return 1;
    }
  }
  const auto cases = load_inference_cases(source_path("data/reference/inference-trtllm.yaml"));
  if (!cases.ok()) {
    std::fprintf(stderr, "%s", cases.error_text().c_str());
    return 1;
  }
  // The reference is read once; every constant set of the search re-predicts the same cases.
  const auto run = [&](const InferenceConstants& c) {
    return predict_inference(catalog.value(), presets.value(), collectives.value(), c, cases.value());
  };
  const auto checks = run(constants.value());
  if (!checks.ok()) {
    std::fprintf(stderr, "%s", checks.error_text().c_str());
    return 1;
  }
  print_table(checks.value());
  if (mode == "--cross-validate") return cross_validate(constants.value(), run, checks.value());
  if (mode != "--calibrate") return 0;

  const auto [best, best_score] = grid_search(constants.value(), run, "");
  std::printf("\ncalibration grid: best worst-row error %.1f %% (mean %.1f %%) at gemm_efficiency_max %.2f, "
              "gemm_half_saturation_tokens %.0f, memory_efficiency %.2f, runtime_reserved_memory %.0f GB, "
              "host_overhead_per_sequence_step_us %.0f\n",
              best_score.worst, best_score.mean, best.gemm_efficiency_max, best.gemm_half_saturation_tokens,
              best.memory_efficiency, best.runtime_reserved_bytes / 1e9, best.host_seconds_per_sequence_step * 1e6);
  return 0;
}
