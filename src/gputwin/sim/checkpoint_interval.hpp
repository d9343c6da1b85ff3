// The optimum compute time between checkpoints of a job that fails at random: Young's first-order formula and
// Daly's higher-order one, and the first-order fraction of time a checkpointed job loses. The formulas and
// their test vectors are in ../shared/data/reliability.yaml (checkpoint_interval).
//
//   double young = young_interval_hours(5.0 / 60, 24);   // 2.0 h   (sqrt(2 delta M))
//   double daly = daly_interval_hours(5.0 / 60, 24);     // 1.945 h (116.7 min)
#pragma once

namespace gputwin {

// tau = sqrt(2 delta M): delta the checkpoint write time, M the mean time between failures (both hours).
[[nodiscard]] double young_interval_hours(double checkpoint_write_hours, double mtbf_hours);

// tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9) (delta / 2M)] - delta for delta < 2M, else M
// (Daly, FGCS 2006).
[[nodiscard]] double daly_interval_hours(double checkpoint_write_hours, double mtbf_hours);

// First-order fraction of wall time lost: delta / tau + (tau / 2 + R) / M (the waste model of
// reliability.yaml, confidence unverified; a cross-check of the Monte Carlo, not what perf goodput reports).
[[nodiscard]] double first_order_waste(double checkpoint_write_hours, double interval_hours,
                                       double restart_hours, double mtbf_hours);

}  // namespace gputwin
