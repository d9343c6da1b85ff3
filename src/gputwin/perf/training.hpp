// Step time of transformer training on a cluster, with the terms that make it, tokens/s, MFU and HFU, and the
// memory per GPU.
//
//   Result<TrainingCalibration> calibration = load_training_calibration(bundled_data_dir() +
//   "/perf/training-model.yaml"); TrainingEstimate e = estimate_training(hw, collectives,
//   calibration.value(), model, config); e.step_time_s, e.tokens_per_second, e.mfu, e.hfu, e.memory.fits(),
//   e.terms (for --explain)
//
// The model, per pipeline stage and micro-batch, on the most loaded GPU (the last stage: its layers plus the
// output layer):
//   compute     = GEMM and attention FLOPs / (peak of the precision x gemm_efficiency(h))
//               + elementwise traffic / memory bandwidth, the traffic being elementwise_traffic x the layer's
//                 stored-activation bytes (Korthikanti Table 2, as memory.hpp computes them) per pass;
//   tensor / context parallel communication: NCCL collectives (collectives.hpp) on the group's GPUs, exposed;
//   pipeline: (m + (p - 1)/v) stage times (bubble (p - 1)/(v m)), plus one send and one receive per
//   micro-batch and model chunk;
//   data parallel: gradient reduce-scatter (or all-reduce) and weight all-gather after the last backward
//   pass, exposed (overlap_data_parallel hides it behind the last micro-batch's backward pass); optimizer:
//   the Adam update reads and writes the sharded fp32 state once, at memory bandwidth.
// The efficiency curve's two constants are the only fitted numbers; data/perf/training-model.yaml holds them
// with the points they were fitted on, and fit_training_calibration recomputes them.
//
// FLOP convention (stated with every MFU): model FLOPs = 3 x forward FLOPs of every GEMM (2 per multiply-add)
// plus the attention scores and values over the whole s x s square (4 s h per token and layer) plus the
// output layer, with no recomputation: for a GPT shape exactly 72 B s l h^2 (1 + s/(6h) + V/(12 h l))
// (Korthikanti et al.); for grouped-query attention and gated MLPs the same rule over their own matrices. HFU
// adds the recomputed forward work (full: every layer's forward; selective: the attention scores and values).
#pragma once

#include <string>
#include <vector>

#include "gputwin/core/error.hpp"
#include "gputwin/perf/collectives.hpp"
#include "gputwin/perf/hardware.hpp"
#include "gputwin/perf/memory.hpp"
#include "gputwin/perf/model.hpp"
#include "gputwin/perf/training_config.hpp"

namespace gputwin {

// Achieved fraction of the dense peak on a layer's matrix work, as a function of the model width h (the
// reduction dimension of the layer's GEMMs): efficiency(h) = gemm_efficiency_max h / (h + gemm_half_width)
// (narrow models spend more of each layer in small kernels, launches and GEMM tails). Fitted; see
// data/perf/training-model.yaml.
struct TrainingCalibration {
  double gemm_efficiency_max = 0;  // the curve's ceiling, a fraction of peak
  double gemm_half_width = 0;      // the width h at which half the ceiling is reached
  double elementwise_traffic =
      0;               // bytes moved per stored-activation byte in one forward pass (a rule, not fitted)
  std::string source;  // how the values were obtained

  [[nodiscard]] double gemm_efficiency(double width) const {
    return gemm_efficiency_max * width / (width + gemm_half_width);
  }
};

[[nodiscard]] Result<TrainingCalibration> load_training_calibration(const std::string& path);

struct TimeTerm {
  std::string name;    // "compute", "tensor-parallel communication", "pipeline bubble", ...
  double seconds = 0;  // its share of one step
  std::string rule;    // how it was computed, for --explain
};

struct TrainingEstimate {
  TrainingConfig config;  // with dp filled in
  double step_time_s = 0;
  std::vector<TimeTerm> terms;  // they add up to step_time_s
  double tokens_per_second = 0;
  double model_flops_per_step = 0;     // the convention above
  double hardware_flops_per_step = 0;  // + recomputation
  double mfu = 0;                      // model FLOPs / (step time x GPUs x dense peak of config.precision)
  double hfu = 0;
  double peak_flops_per_gpu = 0;
  MemoryFootprint memory;
};

// FLOPs of one training step by the convention above (recompute counted when `with_recompute`).
[[nodiscard]] double training_flops_per_step(const TransformerModel& model, const TrainingConfig& config,
                                             bool with_recompute);

// The config must have passed check_training_config (dp filled in) and name a precision the accelerator has.
[[nodiscard]] TrainingEstimate estimate_training(const PerfHardware& hardware,
                                                 const CollectiveModel& collectives,
                                                 const TrainingCalibration& calibration,
                                                 const TransformerModel& model, const TrainingConfig& config);

}  // namespace gputwin
