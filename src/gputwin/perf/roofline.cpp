#include "gputwin/perf/roofline.hpp"

namespace gputwin {

KernelTime Roofline::kernel(double flops, double bytes) const {
  KernelTime time;
  time.flops = flops;
  time.bytes = bytes;
  time.compute_s = flops / peak_flops;
  time.memory_s = bytes / memory_bytes_per_s;
  return time;
}

KernelTime Roofline::gemm(std::int64_t m, std::int64_t n, std::int64_t k, double element_bytes) const {
  const auto dm = static_cast<double>(m);
  const auto dn = static_cast<double>(n);
  const auto dk = static_cast<double>(k);
  return kernel(2 * dm * dn * dk, element_bytes * (dm * dk + dk * dn + dm * dn));
}

double bytes_per_element(const std::string& precision) {
  if (precision == "fp8" || precision == "int8") return 1;
  if (precision == "fp32" || precision == "tf32") return 4;
  if (precision == "fp64" || precision == "fp64_tensor") return 8;
  return 2;
}

Result<Roofline> roofline_of(const Accelerator& accelerator, const std::string& precision) {
  const auto rate = accelerator.dense_compute.find(precision);
  if (rate == accelerator.dense_compute.end() || !rate->second) {
    InputError error;
    error.message = "perf: " + accelerator.info.id + " has no published dense " + precision + " rate" +
                    (rate == accelerator.dense_compute.end() ? "" : " (not supported)");
    return error;
  }
  Roofline roofline;
  roofline.accelerator = accelerator.info.id;
  roofline.precision = precision;
  roofline.peak_flops = rate->second->base();
  roofline.memory_bytes_per_s = in_gigabytes_per_second(accelerator.memory_bandwidth) * 1e9;
  return roofline;
}

}  // namespace gputwin
