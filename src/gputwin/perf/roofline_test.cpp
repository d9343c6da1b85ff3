#include "gputwin/perf/roofline.hpp"

#include <gtest/gtest.h>

#include "gputwin/catalog/catalog.hpp"

namespace gputwin {
namespace {

const Catalog& bundled() {
  static const Catalog catalog = Catalog::load({std::string(GPUTWIN_SOURCE_DIR) + "/data/catalog"}).value();
  return catalog;
}

Roofline roofline(const std::string& accelerator, const std::string& precision) {
  return roofline_of(bundled().get<Accelerator>(accelerator), precision).value();
}

// data/reference figures: /work/shared/data/inference.yaml roofline_reference.ridge_point_flop_per_byte
TEST(Roofline, RidgePointsMatchThePublishedOnes) {
  EXPECT_NEAR(roofline("h100-sxm", "bf16").ridge_flop_per_byte(), 295, 0.5);
  EXPECT_NEAR(roofline("a100-80gb-sxm", "bf16").ridge_flop_per_byte(), 153, 0.5);
}

TEST(Roofline, LargeSquareGemmIsComputeBoundAndSmallBatchGemvIsMemoryBound) {
  const Roofline h100 = roofline("h100-sxm", "bf16");
  const KernelTime square = h100.gemm(8192, 8192, 8192, 2);
  EXPECT_TRUE(square.compute_bound());
  EXPECT_NEAR(square.seconds(), 2.0 * 8192 * 8192 * 8192 / 989.4e12, 1e-9);
  // Decode of one token: a 1 x 8192 activation times an 8192 x 8192 weight reads 128 MiB for 134 MFLOP.
  const KernelTime gemv = h100.gemm(1, 8192, 8192, 2);
  EXPECT_FALSE(gemv.compute_bound());
  EXPECT_NEAR(gemv.intensity(), 1.0, 0.01);
  EXPECT_NEAR(gemv.seconds(), (8192.0 * 8192 + 2 * 8192) * 2 / 3.35e12, 1e-9);
}

TEST(Roofline, BatchAtTheRidgeChangesTheBound) {
  const Roofline h100 = roofline("h100-sxm", "fp8");
  // FP8 weights, intensity ~ 2 x batch: below ~ridge/2 rows memory-bound, above compute-bound.
  EXPECT_FALSE(h100.gemm(64, 8192, 8192, 1).compute_bound());
  EXPECT_TRUE(h100.gemm(2048, 8192, 8192, 1).compute_bound());
}

TEST(Roofline, ElementSizesFollowThePrecision) {
  EXPECT_EQ(bytes_per_element("fp8"), 1);
  EXPECT_EQ(bytes_per_element("int8"), 1);
  EXPECT_EQ(bytes_per_element("bf16"), 2);
  EXPECT_EQ(bytes_per_element("fp16"), 2);
  EXPECT_EQ(bytes_per_element("tf32"), 4);
  EXPECT_EQ(bytes_per_element("fp64"), 8);
}

TEST(Roofline, PrecisionWithoutAPublishedRateIsAnErrorNamingTheAccelerator) {
  const auto a100_fp8 = roofline_of(bundled().get<Accelerator>("a100-80gb-sxm"), "fp8");
  ASSERT_FALSE(a100_fp8.ok());
  EXPECT_NE(a100_fp8.error_text().find("a100-80gb-sxm"), std::string::npos);
  EXPECT_NE(a100_fp8.error_text().find("not supported"), std::string::npos);
  EXPECT_FALSE(roofline_of(bundled().get<Accelerator>("h100-sxm"), "fp4").ok());
}

}  // namespace
}  // namespace gputwin
