#include "gputwin/perf/gemm_model.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "gputwin/perf/perf_test_support.hpp"

namespace gputwin {
namespace {

using testing::perf_setup;
using testing::source_path;

const GemmModel& gemm() {
  static const GemmModel model = load_gemm_model(source_path("data/perf/gemm-efficiency.yaml")).value();
  return model;
}

GemmDevice device(const std::string& accelerator, const std::string& precision) {
  const auto d = gemm().device(perf_setup().catalog.get<Accelerator>(accelerator), precision);
  EXPECT_TRUE(d.ok()) << d.error_text();
  return d.value();
}

TEST(GemmModel, LargeSquareGemmsApproachTheFittedFraction) {
  const GemmDevice h100 = device("h100-sxm", "bf16");
  const double big = h100.gemm_efficiency(16384, 16384, 16384);
  EXPECT_LT(big, h100.peak_fraction);
  EXPECT_GT(big, 0.95 * h100.peak_fraction);
}

TEST(GemmModel, NarrowAndSkinnyShapesAreLessEfficient) {
  const GemmDevice h100 = device("h100-sxm", "bf16");
  EXPECT_LT(h100.gemm_efficiency(8192, 1024, 1024), h100.gemm_efficiency(8192, 8192, 8192));
  EXPECT_LT(h100.gemm_efficiency(16, 8192, 8192), 0.1);  // decode-like: bound by reading the weights
}

TEST(GemmModel, Fp8IsFasterThanBf16ButNotTwice) {
  const GemmDevice bf16 = device("h100-sxm", "bf16"), fp8 = device("h100-sxm", "fp8");
  const double speedup = bf16.gemm_s(8192, 3072, 4096) / fp8.gemm_s(8192, 3072, 4096);
  EXPECT_GT(speedup, 1.3);
  EXPECT_LT(speedup, 2.0);
}

TEST(GemmModel, Nvfp4RunsAtTheFp4RateOnBlackwellOnly) {
  const GemmDevice fp4 = device("gb200", "nvfp4");
  EXPECT_DOUBLE_EQ(fp4.peak_flops, 10000e12);
  EXPECT_FALSE(gemm().device(perf_setup().catalog.get<Accelerator>("h100-sxm"), "nvfp4").ok());
}

TEST(GemmModel, BlackwellUltraUsesItsOwnRow) {
  EXPECT_EQ(device("gb300", "mxfp8").architecture, "blackwell-ultra");
  EXPECT_EQ(device("b200", "mxfp8").architecture, "blackwell");
}

TEST(GemmModel, UnknownArchitectureIsAnErrorNamingIt) {
  const auto d = gemm().device(perf_setup().catalog.get<Accelerator>("mi300x"), "bf16");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error_text().find("cdna3"), std::string::npos) << d.error_text();
}

TEST(GemmModel, CausalAttentionWastesTheDiagonalTiles) {
  const GemmDevice h100 = device("h100-sxm", "bf16");
  const double flops = 1e12;
  EXPECT_NEAR(h100.attention_forward_s(flops, 1024) / h100.attention_forward_s(flops, 1e9), 1 + 128.0 / 1024,
              1e-6);
  EXPECT_DOUBLE_EQ(h100.attention_backward_s(flops, 8192), 2.5 * h100.attention_forward_s(flops, 8192));
}

TEST(GemmModel, BadFractionIsALocatedError) {
  const std::string path = ::testing::TempDir() + "/gemm-bad.yaml";
  std::ofstream(path) << "precisions: {bf16: {peak: bf16, element_bytes: 2, quantised: false, source: x}}\n"
                         "architectures:\n  - {architecture: hopper, peak_fraction: 1.5, source: x}\n"
                         "attention: {tile_tokens: 128, backward_to_forward_flops: 2.5, source: x}\n"
                         "quantisation: {cast_bytes_per_element: 6, source: x}\n";
  const auto model = load_gemm_model(path);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error_text().find("gemm-bad.yaml:3"), std::string::npos) << model.error_text();
  EXPECT_NE(model.error_text().find("peak_fraction"), std::string::npos) << model.error_text();
}

}  // namespace
}  // namespace gputwin
