// The roofline of one accelerator at one precision: a kernel of F FLOPs that moves B bytes to and from memory
// takes at least max(F / peak, B / bandwidth); its arithmetic intensity F / B against the ridge point
// peak / bandwidth says which ceiling binds.
//
//   Result<Roofline> r = roofline_of(catalog.get<Accelerator>("h100-sxm"), "bf16");
//   r.value().ridge_flop_per_byte();                       // 295 FLOP/byte
//   KernelTime t = r.value().gemm(8192, 8192, 8192, 2);    // compute-bound, 1.11 ms at peak
#pragma once

#include <cstdint>
#include <string>

#include "gputwin/catalog/parts.hpp"
#include "gputwin/core/error.hpp"

namespace gputwin {

struct KernelTime {
  double flops = 0;
  double bytes = 0;
  double compute_s = 0;  // flops / peak
  double memory_s = 0;   // bytes / bandwidth
  [[nodiscard]] double seconds() const { return compute_s > memory_s ? compute_s : memory_s; }
  [[nodiscard]] bool compute_bound() const { return compute_s >= memory_s; }
  [[nodiscard]] double intensity() const { return bytes > 0 ? flops / bytes : 0; }
};

struct Roofline {
  std::string accelerator;
  std::string precision;          // bf16, fp8, fp16, tf32, fp32, fp64, int8
  double peak_flops = 0;          // dense, FLOP/s
  double memory_bytes_per_s = 0;  // HBM bandwidth, bytes/s

  [[nodiscard]] double ridge_flop_per_byte() const { return peak_flops / memory_bytes_per_s; }
  [[nodiscard]] KernelTime kernel(double flops, double bytes) const;
  // C[m x n] = A[m x k] B[k x n]: 2mnk FLOPs; reads A and B and writes C once, `element_bytes` each.
  [[nodiscard]] KernelTime gemm(std::int64_t m, std::int64_t n, std::int64_t k, double element_bytes) const;
};

// Bytes of one element at a precision: 1 for fp8/int8, 4 for fp32/tf32, 8 for fp64, 2 otherwise (bf16, fp16).
[[nodiscard]] double bytes_per_element(const std::string& precision);

// Fails, naming the accelerator, when it publishes no dense rate for the precision (or does not support it).
[[nodiscard]] Result<Roofline> roofline_of(const Accelerator& accelerator, const std::string& precision);

}  // namespace gputwin
