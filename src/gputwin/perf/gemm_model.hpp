// Time of one matrix multiplication (GEMM) by its shape, precision and the GPU's architecture, and of the
// flash-attention kernels by sequence length. One model shared by training, roofline and (later) inference.
//
//   Result<GemmModel> gemm = load_gemm_model(bundled_data_dir() + "/perf/gemm-efficiency.yaml");
//   Result<GemmDevice> d = gemm.value().device(accelerator, "fp8");   // peak, bandwidth, fitted fraction
//   double s = d.value().gemm_s(8192, 3072, 8192);                       // C[m x n] = A[m x k] B[k x n]
//
// The rule (a soft roofline): seconds = 2 m n k / (peak x peak_fraction) + bytes / memory bandwidth, the
// bytes being A and B at the precision's element size and C in bf16. peak and bandwidth are the catalog's
// datasheet figures; peak_fraction is the one fitted constant per architecture
// (data/perf/gemm-efficiency.yaml), the same for every precision of that architecture: what a low-precision
// recipe loses besides is modelled where it happens (casts, the pieces kept in bf16), not folded into the
// fraction. The additive memory term is what makes narrow and skinny GEMMs slower (loads and epilogues not
// hidden at tile and wave boundaries); it uses only datasheet figures.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/error.hpp"

namespace gputwin {

struct GemmPrecision {
  std::string name;          // bf16, fp8, mxfp8, nvfp4
  std::string peak_key;      // the catalog dense_compute key whose rate it runs at (bf16, fp8, fp4)
  double element_bytes = 2;  // of A and B
  bool quantised = false;    // inputs are cast from bf16 before the GEMM (with scales)
};

// Grouped-GEMM tiling (data/perf/gemm-efficiency.yaml `grouped_gemm`).
struct GroupedGemmTiling {
  double tile_m = 128, tile_n = 128;
  std::map<std::string, int> sms;  // by catalog accelerator id
};

struct GemmArchitecture {
  std::string name;                       // ampere, hopper, blackwell, blackwell-ultra, cdna3, ...
  std::vector<std::string> accelerators;  // catalog ids that use this row regardless of their `architecture`
  std::optional<double> peak_fraction;    // empty: unknown, the user sets it
  std::string source;
};

// One accelerator at one precision, ready to time kernels.
struct GemmDevice {
  std::string architecture;
  std::string precision;
  double peak_flops = 0;       // dense, of the precision
  double bf16_peak_flops = 0;  // for the pieces a low-precision recipe keeps in bf16
  double memory_bytes_per_s = 0;
  double peak_fraction = 0;
  double element_bytes = 2;
  bool quantised = false;
  double attention_tile = 128;            // tokens per flash-attention tile (causal diagonal waste)
  double attention_backward_ratio = 2.5;  // backward / forward matrix FLOPs inside flash attention
  int sms = 0;                            // streaming multiprocessors; 0: unknown, no wave quantisation
  double tile_m = 128, tile_n = 128;      // output tile of the grouped GEMM kernels

  // C[m x n] = A[m x k] B[k x n] at the device's precision.
  [[nodiscard]] double gemm_s(double m, double n, double k) const;
  // The same GEMM kept in bf16 (output layer, in the recipes checked).
  [[nodiscard]] double bf16_gemm_s(double m, double n, double k) const;
  // `groups` GEMMs C[m x n] = A[m x k] B[k x n] run as one grouped kernel (MoE experts): every group's output
  // padded to whole tiles, all tiles scheduled in waves over the SMs (a partial last wave costs a whole one).
  [[nodiscard]] double grouped_gemm_s(double groups, double m, double n, double k) const;
  // Achieved fraction of the precision's peak for that shape (for `perf roofline --gemm`).
  [[nodiscard]] double gemm_efficiency(double m, double n, double k) const;
  // Causal flash attention, forward and backward, of `model_flops` forward FLOPs (the causal half of the
  // s x s square) at sequence length `sequence`: bf16, at the architecture's fraction, diagonal tiles wasted.
  [[nodiscard]] double attention_forward_s(double model_flops, double sequence) const;
  [[nodiscard]] double attention_backward_s(double model_flops, double sequence) const;
};

class GemmModel {
 public:
  GemmModel() = default;
  GemmModel(std::map<std::string, GemmPrecision> precisions, std::vector<GemmArchitecture> architectures,
            double attention_tile, double attention_backward_ratio, double cast_bytes_per_element);

  [[nodiscard]] Result<GemmDevice> device(const Accelerator& accelerator, const std::string& precision) const;
  [[nodiscard]] const GemmArchitecture* architecture_of(const Accelerator& accelerator) const;
  [[nodiscard]] const GemmPrecision* precision(const std::string& name) const;
  [[nodiscard]] double cast_bytes_per_element() const { return cast_bytes_per_element_; }
  [[nodiscard]] const std::vector<GemmArchitecture>& architectures() const { return architectures_; }
  // For the calibration: replace one architecture's fitted fraction.
  void set_peak_fraction(const std::string& architecture, double fraction);
  void set_grouped_tiling(GroupedGemmTiling tiling) { tiling_ = std::move(tiling); }
  [[nodiscard]] const GroupedGemmTiling& grouped_tiling() const { return tiling_; }

 private:
  std::map<std::string, GemmPrecision> precisions_;
  std::vector<GemmArchitecture> architectures_;
  double attention_tile_ = 128;
  double attention_backward_ratio_ = 2.5;
  double cast_bytes_per_element_ = 6;
  GroupedGemmTiling tiling_;
};

[[nodiscard]] Result<GemmModel> load_gemm_model(const std::string& path);

}  // namespace gputwin
