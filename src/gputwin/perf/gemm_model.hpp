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
// (data/perf/gemm-efficiency.yaml), the same for every precision of that architecture unless a published
// kernel measurement gives the precisions' relative rates (`precision_rates`: then the fraction is the
// reference precision's and each measured precision runs at its measured rate relative to it); what a
// low-precision recipe loses besides is modelled where it happens (casts, the pieces kept in bf16), not
// folded into the fraction. The additive memory term is what makes narrow and skinny GEMMs slower (loads and
// epilogues not hidden at tile and wave boundaries); it uses only datasheet figures.
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
  std::optional<double> cast_bytes_per_element;  // empty: the model's rule (`quantisation`)
};

// A flash-attention kernel's measured speed on one architecture (data/perf/gemm-efficiency.yaml
// `attention.kernels`): TFLOP/s by sequence length for head dimension 128, as fractions of the bf16 peak of
// the GPU it was measured on, so another GPU of the architecture (H200, a power-capped H100) scales by its
// own bf16 peak. Between the measured lengths the fraction is interpolated in log2(sequence), outside them
// held at the nearest end.
struct AttentionKernel {
  std::string name;          // fa1, fa2, fa3, cudnn
  std::string architecture;  // hopper
  bool is_default = false;   // the kernel a run gets when its framework's is not given
  double head_dim = 128;     // the head dimension the table was measured at
  std::vector<double> sequence;
  std::vector<double> forward_causal;  // fraction of the bf16 peak, causal mask (FLOPs of the causal half)
  std::vector<double> forward;         // without mask
  // without mask (FLOPs = 2.5 x forward). A kernel published as the forward + backward pair only holds the
  // pair's rate here and in `forward` (and the causal pair's in `forward_causal`): both passes at the pair's
  // rate of their mask, by `fraction` below.
  std::vector<double> backward;
  // Fraction of the bf16 peak at `sequence` tokens, causal or not, forward or backward. The causal backward
  // is not published: the non-causal backward scaled by the forward's causal / non-causal ratio at that
  // length.
  [[nodiscard]] double fraction(double sequence_tokens, bool causal, bool backward_pass) const;
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
  // Measured kernel rate of each precision relative to the reference precision (`precision_rates`); empty:
  // every precision at peak_fraction.
  std::map<std::string, double> precision_rates;
  // peak_fraction x this is the precision's achieved fraction of its own peak (1 where not measured).
  [[nodiscard]] double rate_of(const std::string& precision) const;
  // Measured max-achievable GEMM TFLOP/s by part id and peak key (`sustained_rates`): parts of one
  // architecture that sustain different clocks under GEMM load. The fitted fraction is the reference part's.
  std::string reference_part;
  std::map<std::string, double> reference_peak_tflops;                    // the reference part's peaks
  std::map<std::string, std::map<std::string, double>> sustained_tflops;  // part id -> peak key -> TFLOP/s
  // The part's measured share of its own peak over the reference part's (1 where either is not measured).
  [[nodiscard]] double sustained_factor(const Accelerator& accelerator, const std::string& peak_key) const;
};

// One accelerator at one precision, ready to time kernels.
struct GemmDevice {
  std::string architecture;
  std::string precision;
  double peak_flops = 0;       // dense, of the precision
  double bf16_peak_flops = 0;  // for the pieces a low-precision recipe keeps in bf16
  double memory_bytes_per_s = 0;
  double peak_fraction = 0;
  double precision_rate = 1;  // measured rate of this precision relative to the fitted fraction's reference
  double bf16_rate = 1;       // the same for bf16 (the pieces a recipe keeps in bf16)
  double element_bytes = 2;
  bool quantised = false;
  double cast_bytes_per_element = 6;  // bytes moved per element quantised (the precision's, else the rule)
  double attention_tile = 128;        // tokens per flash-attention tile (causal diagonal waste)
  double attention_backward_ratio = 2.5;            // backward / forward matrix FLOPs inside flash attention
  std::optional<AttentionKernel> attention_kernel;  // measured kernel speed; empty: the rule below
  // Every table of that kernel on the architecture, one per measured head dimension, ascending; the kernel
  // runs at `attention_head_dim` (the model's query/key head dimension): linear in head dimension between the
  // two nearest tables, held at the nearest end outside them.
  std::vector<AttentionKernel> attention_tables;
  double attention_head_dim = 128;
  int sms = 0;                        // streaming multiprocessors; 0: unknown, no wave quantisation
  double tile_m = 128, tile_n = 128;  // output tile of the grouped GEMM kernels

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
  // s x s square), always in bf16. The kernel runs on blocks of `sequence` query and key tokens (the whole
  // sequence, or one context-parallel chunk), a share `causal_share` of the work on blocks with the causal
  // mask (1 without context parallelism; 1/c of it with ring attention over c ranks, whose other blocks are
  // unmasked). With a measured kernel: its fraction of the bf16 peak at that length. Without one (an
  // architecture with no published kernel table): the architecture's GEMM fraction, the diagonal tiles of
  // the masked blocks computed whole (1 + causal_share x tile / sequence).
  [[nodiscard]] double attention_forward_s(double model_flops, double sequence,
                                           double causal_share = 1) const;
  // The measured kernel's fraction of the bf16 peak at `attention_head_dim` (attention_tables).
  [[nodiscard]] double attention_fraction(double sequence, bool causal, bool backward_pass) const;
  [[nodiscard]] double attention_backward_s(double model_flops, double sequence,
                                            double causal_share = 1) const;
};

class GemmModel {
 public:
  GemmModel() = default;
  GemmModel(std::map<std::string, GemmPrecision> precisions, std::vector<GemmArchitecture> architectures,
            double attention_tile, double attention_backward_ratio, double cast_bytes_per_element);

  // `attention_kernel`: the flash-attention kernel by name (fa1, fa2, fa3, cudnn); empty = the architecture's
  // default kernel. A name the architecture has no table for leaves the rule (GemmDevice::attention_kernel
  // empty).
  [[nodiscard]] Result<GemmDevice> device(const Accelerator& accelerator, const std::string& precision,
                                          const std::string& attention_kernel = "") const;
  [[nodiscard]] const std::vector<AttentionKernel>& attention_kernels() const { return kernels_; }
  // The one list of kernel names (`attention.kernels`, any architecture): what --attention-kernel and a
  // training setup's attention_kernel accept, so a kernel added to the data is accepted everywhere.
  [[nodiscard]] bool has_attention_kernel(const std::string& name) const;
  [[nodiscard]] std::string attention_kernel_names() const;  // sorted, each once: "cudnn, fa1, fa2, fa3"
  void set_attention_kernels(std::vector<AttentionKernel> kernels) { kernels_ = std::move(kernels); }
  [[nodiscard]] const GemmArchitecture* architecture_of(const Accelerator& accelerator) const;
  [[nodiscard]] const GemmPrecision* precision(const std::string& name) const;
  [[nodiscard]] double cast_bytes_per_element() const { return cast_bytes_per_element_; }
  // The quantisation cost of a per-tensor FP8 scaling (`quantisation.by_scaling`: delayed, current), where
  // it is measured; empty: the precision's cost.
  [[nodiscard]] std::optional<double> scaling_cast_bytes(const std::string& scaling) const;
  void set_scaling_cast_bytes(std::map<std::string, double> bytes) { scaling_cast_bytes_ = std::move(bytes); }
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
  std::map<std::string, double> scaling_cast_bytes_;
  GroupedGemmTiling tiling_;
  std::vector<AttentionKernel> kernels_;
};

[[nodiscard]] Result<GemmModel> load_gemm_model(const std::string& path);

// How a per-tensor FP8 recipe scales its operands: "delayed" (the scale from earlier steps' amax history, the
// amax taken during the cast) or "current" (an amax pass over the tensor before its cast).
[[nodiscard]] bool is_fp8_scaling(const std::string& name);

}  // namespace gputwin
