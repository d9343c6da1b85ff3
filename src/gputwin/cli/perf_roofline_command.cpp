// `gputwin perf roofline`: an accelerator's compute and memory ceilings at one precision, and where a kernel
// (a GEMM, or given FLOPs and bytes) sits under them.
#include <iostream>
#include <memory>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/units.hpp"
#include "gputwin/perf/roofline.hpp"

namespace gputwin::cli {
namespace {

struct RooflineOptions {
  CatalogOptions catalog;
  std::string accelerator;
  std::string precision = "bf16";
  std::vector<std::int64_t> gemm;  // M N K
  double flops = 0;
  double bytes = 0;
};

void print_kernel(const Roofline& roofline, const KernelTime& kernel, const std::string& what) {
  std::cout << "  " << what << ": " << format_number(kernel.flops / 1e9, 3) << " GFLOP, "
            << format_number(kernel.bytes / 1e6, 3) << " MB moved, intensity "
            << format_number(kernel.intensity(), 1) << " FLOP/byte -> "
            << (kernel.compute_bound() ? "compute-bound" : "memory-bound") << "\n"
            << "  time at the roofline: " << format_number(kernel.seconds() * 1e6, 2) << " us (compute "
            << format_number(kernel.compute_s * 1e6, 2) << " us, memory " << format_number(kernel.memory_s * 1e6, 2)
            << " us); attainable " << format_number(kernel.flops / kernel.seconds() / 1e12, 1) << " of "
            << format_number(roofline.peak_flops / 1e12, 1) << " TFLOP/s\n";
}

int run_roofline(const RooflineOptions& options) {
  const auto catalog = load_catalog(options.catalog);
  if (!catalog) return kInputError;
  const auto* accelerator = catalog->find<Accelerator>(options.accelerator);
  if (accelerator == nullptr) {
    std::cerr << "perf roofline: no accelerator '" << options.accelerator
              << "' in the catalog (see `gputwin catalog list --kind accelerator`)\n";
    return kInputError;
  }
  const auto roofline = roofline_of(*accelerator, options.precision);
  if (!roofline.ok()) {
    std::cerr << roofline.error_text();
    return kInputError;
  }
  const Roofline& r = roofline.value();
  std::cout << "Roofline of " << accelerator->info.name << " at " << r.precision << "\n"
            << "  peak " << format_number(r.peak_flops / 1e12, 1) << " TFLOP/s dense, memory "
            << format_number(r.memory_bytes_per_s / 1e9, 0) << " GB/s, ridge point "
            << format_number(r.ridge_flop_per_byte(), 1) << " FLOP/byte\n";
  const double element_bytes = bytes_per_element(options.precision);
  if (options.gemm.size() == 3) {
    print_kernel(r, r.gemm(options.gemm[0], options.gemm[1], options.gemm[2], element_bytes),
                 "GEMM " + std::to_string(options.gemm[0]) + " x " + std::to_string(options.gemm[1]) + " x " +
                     std::to_string(options.gemm[2]));
  } else if (options.flops > 0 && options.bytes > 0) {
    print_kernel(r, r.kernel(options.flops, options.bytes), "kernel");
  }
  return 0;
}

}  // namespace

void add_perf_roofline_command(CLI::App& perf, int& exit_code) {
  auto options = std::make_shared<RooflineOptions>();
  auto* command = perf.add_subcommand("roofline", "compute and memory ceilings; where a GEMM or kernel sits");
  command->add_option("--accelerator", options->accelerator, "accelerator id, e.g. h100-sxm")->required();
  command->add_option("--precision", options->precision, "bf16 (default), fp8, fp16, tf32, fp32, fp64, int8");
  command->add_option("--gemm", options->gemm, "a GEMM's M N K (C[MxN] = A[MxK] B[KxN])")
      ->expected(3)
      ->check(positive_number());
  command->add_option("--flops", options->flops, "a kernel's FLOPs")->check(positive_number());
  command->add_option("--bytes", options->bytes, "a kernel's bytes moved to and from memory")
      ->check(positive_number());
  add_catalog_options(*command, options->catalog);
  command->callback([options, &exit_code] { exit_code = run_roofline(*options); });
}

}  // namespace gputwin::cli
