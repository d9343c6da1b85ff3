#include "gputwin/sim/checkpoint_interval.hpp"

#include <cmath>

namespace gputwin {

double young_interval_hours(double checkpoint_write_hours, double mtbf_hours) {
  return std::sqrt(2.0 * checkpoint_write_hours * mtbf_hours);
}

double daly_interval_hours(double checkpoint_write_hours, double mtbf_hours) {
  const double delta = checkpoint_write_hours;
  if (delta >= 2.0 * mtbf_hours) return mtbf_hours;
  const double ratio = delta / (2.0 * mtbf_hours);
  return young_interval_hours(delta, mtbf_hours) * (1.0 + std::sqrt(ratio) / 3.0 + ratio / 9.0) - delta;
}

double first_order_waste(double checkpoint_write_hours, double interval_hours, double restart_hours,
                         double mtbf_hours) {
  return checkpoint_write_hours / interval_hours + (interval_hours / 2.0 + restart_hours) / mtbf_hours;
}

}  // namespace gputwin
