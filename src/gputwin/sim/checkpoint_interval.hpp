// The optimum checkpoint interval for a job: the compute time between checkpoints that loses least to writing
// them and to redoing work after failures. One small header so that the goodput work (issue 17 item 4) can
// swap in its own formulas without touching the replay.
//
//   double young = young_interval_s(/*write=*/300, /*mtbf=*/24 * 3600);   // 7200 s = 120 min
//   double daly = daly_interval_s(300, 24 * 3600);                         // 7003 s ~= 116.7 min
//
// Formulas (symbols as in ../shared/data/reliability.yaml, checkpoint_interval; delta = write time, M =
// MTBF):
// - J. W. Young, "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974:
//   tau = sqrt(2 delta M).
// - J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", Future
//   Generation Computer Systems 22(3), 2006: tau = sqrt(2 delta M) [1 + 1/3 sqrt(delta / 2M) + 1/9 (delta /
//   2M)]
//   - delta for delta < 2M, tau = M otherwise. The constants 1/3 and 1/9 are the series' coefficients, not
//   fitted figures; the formula reproduces Daly's published worked example (test CheckpointInterval.*).
#pragma once

#include <cmath>

namespace gputwin {

[[nodiscard]] inline double young_interval_s(double write_s, double mtbf_s) {
  return std::sqrt(2 * write_s * mtbf_s);
}

[[nodiscard]] inline double daly_interval_s(double write_s, double mtbf_s) {
  if (write_s >= 2 * mtbf_s) return mtbf_s;
  const double ratio = write_s / (2 * mtbf_s);
  return young_interval_s(write_s, mtbf_s) * (1 + std::sqrt(ratio) / 3 + ratio / 9) - write_s;
}

}  // namespace gputwin
