#include "gputwin/perf/gemm_model.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "gputwin/perf/perf_test_support.hpp"
#include "gputwin/perf/unfitted_gemm_test_support.hpp"

namespace gputwin {
namespace {

using testing::perf_setup;
using testing::source_path;

// The stored cdna3 fraction (data/perf/gemm-efficiency.yaml), the MI300X's.
constexpr double kCdna3Fraction = 0.370;

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

// Blackwell Ultra's precisions run at their measured rates (data/perf/gemm-efficiency.yaml precision_rates:
// Transformer Engine's GEMM profiling tutorial, per-layer GEMM time pre-quantized on one B300), relative to
// bf16: the same GEMMs' time x the precision's peak against bf16's, worked by hand here.
TEST(GemmModel, BlackwellUltraPrecisionsRunAtTheirMeasuredRates) {
  EXPECT_NEAR(device("b300", "nvfp4").precision_rate, (13.102 * 2250) / (3.764 * 14000), 1e-12);  // 0.559
  EXPECT_NEAR(device("gb300", "mxfp8").precision_rate, (13.102 * 2250) / (7.161 * 4500), 1e-12);  // 0.915
  EXPECT_NEAR(device("gb300", "fp8").precision_rate, (13.102 * 2250) / (6.812 * 4500), 1e-12);    // 0.962
  EXPECT_DOUBLE_EQ(device("gb300", "bf16").precision_rate, 1.0);
  EXPECT_DOUBLE_EQ(device("gb300", "nvfp4").bf16_rate, 1.0);
  // A large compute-bound GEMM on the B300 the rates were measured on: NVFP4 is the published 7.161 / 3.764 =
  // 1.90x MXFP8's speed, not the datasheet's 14000 / 4500 = 3.1x.
  GemmDevice fp4 = device("b300", "nvfp4"), mx = device("b300", "mxfp8");
  fp4.memory_bytes_per_s = mx.memory_bytes_per_s = 1e30;  // compute alone
  EXPECT_NEAR(mx.gemm_s(16384, 16384, 16384) / fp4.gemm_s(16384, 16384, 16384), 7.161 / 3.764, 1e-9);
  // No measurement for blackwell (B200, GB200) or hopper: every precision at the one fraction.
  EXPECT_DOUBLE_EQ(device("b200", "nvfp4").precision_rate, 1.0);
  EXPECT_DOUBLE_EQ(device("h100-sxm", "fp8").precision_rate, 1.0);
}

// NVFP4's quantisation costs more than the 8-bit formats' (an amax pass, the Hadamard transform, stochastic
// rounding): 6 x 2.689 / 1.823 bytes per element, the measured NVFP4 / MXFP8 quantisation time on B300.
TEST(GemmModel, Nvfp4CastsCostTheirMeasuredShareMore) {
  EXPECT_DOUBLE_EQ(device("gb300", "nvfp4").cast_bytes_per_element, 8.85);
  EXPECT_DOUBLE_EQ(device("gb300", "mxfp8").cast_bytes_per_element, 6.0);  // the rule
  EXPECT_NEAR(8.85 / 6.0, 2.689 / 1.823, 0.005);
}

// FP8 current scaling's amax pass before every cast: 6 x 2.335 / 1.823 bytes per element, its quantisation time
// over MXFP8's measured on B300 (autocast minus pre-quantized per-layer GEMM time, 9.147 - 6.812 and 8.984 -
// 7.161 ms). Delayed scaling has no measured entry and keeps the precision's rule.
TEST(GemmModel, CurrentScalingCastsCostTheirMeasuredShareMore) {
  const auto current = gemm().scaling_cast_bytes("current");
  ASSERT_TRUE(current.has_value());
  EXPECT_NEAR(*current, 6.0 * (9.147 - 6.812) / (8.984 - 7.161), 0.005);  // 7.685
  EXPECT_FALSE(gemm().scaling_cast_bytes("delayed").has_value());
  EXPECT_FALSE(gemm().scaling_cast_bytes("").has_value());
  EXPECT_TRUE(is_fp8_scaling("delayed"));
  EXPECT_FALSE(is_fp8_scaling("rowwise"));
}

TEST(GemmModel, AnUnknownScalingIsALocatedError) {
  testing::expect_located_error(
      load_gemm_model,
      "precisions: {bf16: {peak: bf16, element_bytes: 2, quantised: false, source: x}}\n"
      "architectures:\n  - {architecture: hopper, peak_fraction: 0.5, source: x}\n"
      "attention: {tile_tokens: 128, backward_to_forward_flops: 2.5, source: x}\n"
      "quantisation:\n"
      "  cast_bytes_per_element: 6\n"
      "  source: x\n"
      "  by_scaling:\n"
      "    blockwise: {cast_bytes_per_element: 7, source: x}\n",
      9, {"blockwise"});
}

TEST(GemmModel, APrecisionRateForAnUnknownPrecisionIsALocatedError) {
  testing::expect_located_error(
      load_gemm_model,
      "precisions: {bf16: {peak: bf16, element_bytes: 2, quantised: false, source: x}}\n"
      "architectures:\n  - {architecture: hopper, peak_fraction: 0.5, source: x}\n"
      "precision_rates:\n"
      "  - architecture: hopper\n"
      "    measured_on: h100-sxm\n"
      "    reference: bf16\n"
      "    peak_tflops: {bf16: 989}\n"
      "    layer_ms: {bf16: 10, fp6: 3}\n"
      "    source: x\n"
      "attention: {tile_tokens: 128, backward_to_forward_flops: 2.5, source: x}\n"
      "quantisation: {cast_bytes_per_element: 6, source: x}\n",
      9, {"no precision 'fp6'"});
}

TEST(GemmModel, BlackwellUltraUsesItsOwnRow) {
  EXPECT_EQ(device("gb300", "mxfp8").architecture, "blackwell-ultra");
  EXPECT_EQ(device("b200", "mxfp8").architecture, "blackwell");
}

// An architecture whose fraction the data leaves unknown (cdna3 with its fraction removed) is refused by
// name.
TEST(GemmModel, UnknownArchitectureIsAnErrorNamingIt) {
  const GemmModel unfitted = testing::gemm_model_without_cdna3_fraction();
  const auto d = unfitted.device(perf_setup().catalog.get<Accelerator>("mi300x"), "bf16");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error_text().find("cdna3"), std::string::npos) << d.error_text();
}

// cdna3's fitted fraction (amd-pytorch-training-v25.2) is the MI300X's, its reference part; the MI325X has
// the same datasheet peaks but sustains a higher clock under GEMM load, so it runs at the fraction x AMD's
// measured max-achievable ratio (ROCm blog 'Measuring Max-Achievable FLOPs - Part 2', Table 1): bf16 843 /
// 708, fp8 1,519 / 1,273 TFLOP/s.
TEST(GemmModel, Cdna3FractionIsMi300xsAndMi325xRunsAtItsMeasuredSustainedRate) {
  const double fitted = kCdna3Fraction;
  EXPECT_DOUBLE_EQ(device("mi300x", "bf16").peak_fraction, fitted);
  EXPECT_DOUBLE_EQ(device("mi300x", "fp8").peak_fraction, fitted);
  EXPECT_DOUBLE_EQ(device("mi300x", "fp8").precision_rate, 1.0);
  EXPECT_NEAR(device("mi325x", "bf16").peak_fraction, fitted * 843 / 708, 1e-12);
  EXPECT_NEAR(device("mi325x", "fp8").peak_fraction * device("mi325x", "fp8").precision_rate,
              fitted * 1519 / 1273, 1e-12);
  for (const auto& [precision, ratio] : {std::pair{"bf16", 843.0 / 708}, std::pair{"fp8", 1519.0 / 1273}}) {
    GemmDevice mi300x = device("mi300x", precision), mi325x = device("mi325x", precision);
    mi300x.memory_bytes_per_s = mi325x.memory_bytes_per_s = 1e30;  // compute alone
    EXPECT_NEAR(mi300x.gemm_s(16384, 16384, 16384) / mi325x.gemm_s(16384, 16384, 16384), ratio, 1e-9)
        << precision;
    // Attention runs in bf16 in every recipe, so at the bf16 clock ratio.
    EXPECT_NEAR(mi300x.attention_forward_s(1e12, 4096) / mi325x.attention_forward_s(1e12, 4096), 843.0 / 708,
                1e-9)
        << precision;
  }
}

// A part without a measured max-achievable rate runs at its architecture's fraction unadjusted.
TEST(GemmModel, APartWithoutSustainedRateIsUnadjusted) {
  EXPECT_DOUBLE_EQ(device("mi355x", "fp8").peak_fraction, 0.505);  // cdna4, no measurement
  EXPECT_DOUBLE_EQ(device("mi355x", "fp8").precision_rate, 1.0);
  EXPECT_DOUBLE_EQ(device("h100-sxm", "bf16").peak_fraction, 0.590);
  EXPECT_DOUBLE_EQ(device("b300", "bf16").peak_fraction, 0.670);
}

// The reference part's stored peaks are the catalog's (the factor divides by them).
TEST(GemmModel, SustainedRatesReferencePeaksAreTheCatalogs) {
  const Accelerator& mi300x = perf_setup().catalog.get<Accelerator>("mi300x");
  for (const char* key : {"bf16", "fp8"}) {
    EXPECT_DOUBLE_EQ(device("mi300x", key).peak_flops, in_teraflops(*mi300x.dense_compute.at(key)) * 1e12);
    EXPECT_NEAR(in_teraflops(*mi300x.dense_compute.at(key)), std::string(key) == "bf16" ? 1307.4 : 2614.9,
                1e-9);
  }
}

// Without a published kernel table (blackwell) the rule: the GEMM fraction, the diagonal tiles whole.
TEST(GemmModel, CausalAttentionWithoutKernelTableWastesTheDiagonalTiles) {
  const GemmDevice b200 = device("b200", "bf16");
  ASSERT_FALSE(b200.attention_kernel.has_value());
  const double flops = 1e12;
  EXPECT_NEAR(b200.attention_forward_s(flops, 1024) / b200.attention_forward_s(flops, 1e9), 1 + 128.0 / 1024,
              1e-6);
  EXPECT_DOUBLE_EQ(b200.attention_backward_s(flops, 8192), 2.5 * b200.attention_forward_s(flops, 8192));
  // Ring attention over 4 ranks: one block in four masked, so the diagonal waste is a quarter's.
  EXPECT_NEAR(b200.attention_forward_s(flops, 1024, 0.25) / b200.attention_forward_s(flops, 1e9),
              1 + 0.25 * 128.0 / 1024, 1e-6);
}

// Hopper times attention at the published kernel speed (FlashAttention-3 paper, Figures 5-6): the default is
// cuDNN (Transformer Engine's preference), FlashAttention-2 is slower at every length and gains with length.
TEST(GemmModel, HopperAttentionRunsAtThePublishedKernelSpeed) {
  const Accelerator& h100 = perf_setup().catalog.get<Accelerator>("h100-sxm");
  const GemmDevice cudnn = gemm().device(h100, "bf16").value();
  const GemmDevice fa2 = gemm().device(h100, "bf16", "fa2").value();
  ASSERT_TRUE(cudnn.attention_kernel && fa2.attention_kernel);
  EXPECT_EQ(cudnn.attention_kernel->name, "cudnn");
  const double flops = 1e12;
  // At 8K the causal forward runs at 529 (cuDNN) and 333 (FA2) of 989 TFLOP/s, scaled by the H100's own peak.
  EXPECT_NEAR(flops / cudnn.attention_forward_s(flops, 8192) / cudnn.bf16_peak_flops, 529.0 / 989, 1e-9);
  EXPECT_NEAR(flops / fa2.attention_forward_s(flops, 8192) / fa2.bf16_peak_flops, 333.0 / 989, 1e-9);
  // Beyond the measured lengths the last figure holds; between them log2 interpolation (3K: between 2K and
  // 4K).
  EXPECT_DOUBLE_EQ(fa2.attention_forward_s(flops, 65536), fa2.attention_forward_s(flops, 16384));
  const double at3k = flops / fa2.attention_forward_s(flops, 3072) / fa2.bf16_peak_flops * 989;
  EXPECT_GT(at3k, 298);
  EXPECT_LT(at3k, 319);
  // Causal backward: the unmasked backward (318 at 8K) x the forward's causal / unmasked ratio (333 / 370).
  EXPECT_NEAR(2.5 * flops / fa2.attention_backward_s(flops, 8192) / fa2.bf16_peak_flops,
              318.0 / 989 * 333.0 / 370, 1e-9);
  // Unmasked blocks (ring attention's off-diagonal ones) run at the unmasked speed: 370 at 8K.
  EXPECT_NEAR(flops / fa2.attention_forward_s(flops, 8192, 0) / fa2.bf16_peak_flops, 370.0 / 989, 1e-9);
  // A kernel named for an architecture it has no table for is refused (not timed by the rule under its name);
  // not naming one takes the architecture's default.
  const auto unknown = gemm().device(h100, "bf16", "fa4");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.errors().front().field, "attention_kernel");
  const Accelerator& b200 = perf_setup().catalog.get<Accelerator>("b200");
  EXPECT_FALSE(gemm().device(b200, "bf16", "fa1").ok());
  EXPECT_FALSE(gemm().device(b200, "bf16").value().attention_kernel.has_value());
}

// The kernel tables by head dimension (FlashAttention-3 paper, Figures 5(a)/(b), 6(a) at head dim 64;
// 5(c)/(d), 6(b) at 128): a model's kernels run at its own head dimension, linear in head dimension between
// the tables, held at the nearest table outside them.
TEST(GemmModel, AttentionRunsAtTheModelsHeadDimension) {
  const Accelerator& h100 = perf_setup().catalog.get<Accelerator>("h100-sxm");
  GemmDevice fa2 = gemm().device(h100, "bf16", "fa2").value();
  ASSERT_EQ(fa2.attention_tables.size(), 2u);
  const double flops = 1e12;
  const auto causal_tflops = [&](double head_dim) {
    fa2.attention_head_dim = head_dim;
    return flops / fa2.attention_forward_s(flops, 8192) / fa2.bf16_peak_flops * 989;
  };
  EXPECT_NEAR(causal_tflops(64), 295, 1e-6);
  EXPECT_NEAR(causal_tflops(128), 333, 1e-6);
  EXPECT_NEAR(causal_tflops(96), (295 + 333) / 2.0, 1e-6);
  EXPECT_DOUBLE_EQ(causal_tflops(256), causal_tflops(128));
  EXPECT_DOUBLE_EQ(causal_tflops(32), causal_tflops(64));
  // Backward at head dim 64: the unmasked 287 x the forward's causal / unmasked ratio (295 / 322).
  fa2.attention_head_dim = 64;
  EXPECT_NEAR(2.5 * flops / fa2.attention_backward_s(flops, 8192) / fa2.bf16_peak_flops,
              287.0 / 989 * 295.0 / 322, 1e-9);
}

// FlashAttention 1.x on H100 is published as the forward + backward pair only (FlashAttention-2 paper, Figure
// 7): both passes run at the pair's rate, so the pair's time is the published one. At 8K and head dim 128:
// 135 TFLOP/s causal, 167 unmasked, of 989.
TEST(GemmModel, AKernelPublishedAsTheForwardBackwardPairRunsBothPassesAtThePairsRate) {
  const Accelerator& h100 = perf_setup().catalog.get<Accelerator>("h100-sxm");
  const GemmDevice fa1 = gemm().device(h100, "bf16", "fa1").value();
  ASSERT_TRUE(fa1.attention_kernel);
  const double flops = 1e12;
  const double peak = fa1.bf16_peak_flops;
  const double pair_s = fa1.attention_forward_s(flops, 8192) + fa1.attention_backward_s(flops, 8192);
  EXPECT_NEAR(3.5 * flops / pair_s / peak * 989, 135, 1e-9);
  EXPECT_NEAR(flops / fa1.attention_forward_s(flops, 8192) / peak * 989, 135, 1e-9);
  EXPECT_NEAR(2.5 * flops / fa1.attention_backward_s(flops, 8192, 0) / peak * 989, 167, 1e-9);
  // At 2K the published pair is slower than at 1K (106 after 126): taken as published.
  EXPECT_NEAR(flops / fa1.attention_forward_s(flops, 2048) / peak * 989, 106, 1e-9);
  // Slower than FlashAttention-2 at every length (the FlashAttention-3 paper's causal forward: 333 at 8K).
  const GemmDevice fa2 = gemm().device(h100, "bf16", "fa2").value();
  for (const double s : {512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0})
    EXPECT_GT(fa1.attention_forward_s(flops, s), fa2.attention_forward_s(flops, s)) << s;
}

const char* const kKernelHead =
    "precisions: {bf16: {peak: bf16, element_bytes: 2, quantised: false, source: x}}\n"
    "architectures:\n  - {architecture: hopper, peak_fraction: 0.5, source: x}\n"
    "attention:\n  tile_tokens: 128\n  backward_to_forward_flops: 2.5\n  source: x\n  kernels:\n";
const std::string kKernelRowStart =
    "    - {kernel: fa1, architecture: hopper, reference_peak_tflops: 989, head_dim: 128, sequence: [512], ";

TEST(GemmModel, AKernelWithBothPerPassAndPairRatesIsALocatedError) {
  testing::expect_located_error(load_gemm_model,
                                std::string(kKernelHead) + kKernelRowStart +
                                    "forward_backward_causal_tflops: [98], forward_backward_tflops: [127],"
                                    " forward_tflops: [100], source: x}\n"
                                    "quantisation: {cast_bytes_per_element: 6, source: x}\n",
                                9, {"not both"});
}

TEST(GemmModel, APairTableWithoutItsUnmaskedRatesIsALocatedError) {
  testing::expect_located_error(load_gemm_model,
                                std::string(kKernelHead) + kKernelRowStart +
                                    "forward_backward_causal_tflops: [98], source: x}\n"
                                    "quantisation: {cast_bytes_per_element: 6, source: x}\n",
                                9, {"forward_backward_tflops"});
}

// The kernel names accepted by --attention-kernel and a training setup are the data's: the bundled file's
// four (its head-dim 64 and 128 tables name the same four), and a file defining only its own kernel accepts
// that one alone.
TEST(GemmModel, TheAcceptedAttentionKernelsAreTheOnesTheDataDefines) {
  EXPECT_EQ(gemm().attention_kernel_names(), "cudnn, fa1, fa2, fa3");
  EXPECT_TRUE(gemm().has_attention_kernel("fa3"));
  EXPECT_FALSE(gemm().has_attention_kernel("fa9"));
  const std::string path = ::testing::TempDir() + "/gemm-own-kernel.yaml";
  std::string row = kKernelRowStart;
  row.replace(row.find("kernel: fa1"), 11, "kernel: fa9");
  std::ofstream(path)
      << kKernelHead << row
      << "forward_causal_tflops: [98], forward_tflops: [127], backward_tflops: [100], source: x}\n"
         "quantisation: {cast_bytes_per_element: 6, source: x}\n";
  const auto model = load_gemm_model(path);
  ASSERT_TRUE(model.ok()) << model.error_text();
  EXPECT_EQ(model.value().attention_kernel_names(), "fa9");
  EXPECT_TRUE(model.value().has_attention_kernel("fa9"));
  EXPECT_FALSE(model.value().has_attention_kernel("fa1"));
}

TEST(GemmModel, AKernelTableThatIsNotIncreasingIsALocatedError) {
  const std::string path = ::testing::TempDir() + "/gemm-bad-kernel.yaml";
  {
    std::ifstream in(source_path("data/perf/gemm-efficiency.yaml"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string good = "sequence:              [512, 1024, 2048, 4096, 8192, 16384]";
    text.replace(text.find(good), good.size(), "sequence:              [512, 1024, 4096, 2048, 8192, 16384]");
    std::ofstream(path) << text;
  }
  const auto model = load_gemm_model(path);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.error_text().find("sequence lengths must increase"), std::string::npos)
      << model.error_text();
  EXPECT_NE(model.error_text().find(path), std::string::npos) << model.error_text();
}

TEST(GemmModel, GroupedGemmsPayForPartialTilesAndWaves) {
  const GemmDevice h100 = device("h100-sxm", "bf16");
  ASSERT_EQ(h100.sms, 132);        // the whitepaper's figure, read from the data file
  GemmDevice compute_only = h100;  // operand traffic made free, to see the tiles alone
  compute_only.memory_bytes_per_s = 1e30;
  const double k = 8192;
  // 12 x 11 tiles of 128 x 128 fill the 132 SMs once; one more row adds a row of tiles and a second wave.
  const double one_wave = compute_only.grouped_gemm_s(1, 12 * 128, 11 * 128, k);
  EXPECT_NEAR(compute_only.grouped_gemm_s(1, 12 * 128 + 1, 11 * 128, k), 2 * one_wave, 1e-12);
  // A 10-row expert costs its whole 128-row tile.
  EXPECT_NEAR(compute_only.grouped_gemm_s(132, 10, 128, k), compute_only.grouped_gemm_s(132, 128, 128, k),
              1e-15);
  // Large experts approach the ungrouped GEMM time (quantisation losses a few per cent).
  const double grouped = h100.grouped_gemm_s(8, 8192, 4096, k);
  EXPECT_NEAR(grouped / (8 * h100.gemm_s(8192, 4096, k)), 1.0, 0.05);
  EXPECT_GT(grouped, 8 * h100.gemm_s(8192, 4096, k) * (1 - 1e-12));
  // No SM count known: no quantisation, the ungrouped sum.
  GemmDevice unknown = h100;
  unknown.sms = 0;
  EXPECT_NEAR(unknown.grouped_gemm_s(132, 10, 128, k), 132 * h100.gemm_s(10, 128, k), 1e-12);
}

TEST(GemmModel, DuplicateSmCountIsALocatedError) {
  testing::expect_located_error(
      load_gemm_model,
      "precisions: {bf16: {peak: bf16, element_bytes: 2, quantised: false, source: x}}\n"
      "architectures:\n  - {architecture: hopper, peak_fraction: 0.5, source: x}\n"
      "attention: {tile_tokens: 128, backward_to_forward_flops: 2.5, source: x}\n"
      "quantisation: {cast_bytes_per_element: 6, source: x}\n"
      "grouped_gemm:\n  tile_m: 128\n  tile_n: 128\n  source: x\n  sm_counts:\n"
      "    - {accelerators: [h100-sxm], sms: 132, source: x}\n"
      "    - {accelerators: [h100-sxm], sms: 114, source: x}\n",
      12, {"listed twice"});
}

TEST(GemmModel, BadFractionIsALocatedError) {
  testing::expect_located_error(
      load_gemm_model,
      "precisions: {bf16: {peak: bf16, element_bytes: 2, quantised: false, source: x}}\n"
      "architectures:\n  - {architecture: hopper, peak_fraction: 1.5, source: x}\n"
      "attention: {tile_tokens: 128, backward_to_forward_flops: 2.5, source: x}\n"
      "quantisation: {cast_bytes_per_element: 6, source: x}\n",
      3, {"peak_fraction"});
}

}  // namespace
}  // namespace gputwin
