// Test fixture: the bundled GEMM data with cdna3's fitted fraction removed, for the paths an architecture
// without a fitted fraction takes (perf train refuses it, perf size asks for --gemm-fraction). Every
// architecture of the bundled data is fitted since cdna3 got its fit rows (amd-pytorch-training-v25.2).
#pragma once

#include <string>

#include "gputwin/core/test_text.hpp"
#include "gputwin/perf/gemm_model.hpp"

namespace gputwin::testing {

// The fraction stored for cdna3 in data/perf/gemm-efficiency.yaml (TrainingCalibration.RecomputesTheStoredFit
// checks it is the fit's).
inline constexpr const char* kStoredCdna3Fraction = "architecture: cdna3, peak_fraction: 0.370";

inline GemmModel gemm_model_without_cdna3_fraction() {
  const std::string text = replaced(read_text(source_path("data/perf/gemm-efficiency.yaml")),
                                    kStoredCdna3Fraction, "architecture: cdna3, peak_fraction: null");
  return load_gemm_model(per_test_file(text, "gemm-unfitted-cdna3", ".yaml")).value();
}

}  // namespace gputwin::testing
