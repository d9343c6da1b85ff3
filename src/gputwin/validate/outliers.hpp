// Fleet outliers by robust statistics: in each group of comparable values (one metric of one GPU model, or
// the busbw of one nccl-tests configuration), a value whose robust z-score |x - median| / (s x MAD) exceeds
// the threshold of data/validate/checks.yaml (3.5, Iglewicz & Hoaglin) is named with its node and GPU.
//
//   std::vector<Outlier> found = find_outliers(fleet, checks.outliers);
//   found[0].node, found[0].gpu, found[0].value, found[0].median, found[0].robust_z
//
// MAD = 0 (over half the group shares one value): the spread is then estimated by the mean absolute deviation
// from the median x 1.253314 (IBM's modified z score); when that is 0 too every value is equal and nothing is
// an outlier. Groups smaller than the data's minimum_group_size are not judged.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gputwin/validate/checks_data.hpp"
#include "gputwin/validate/fleet.hpp"

namespace gputwin::validate {

struct Sample {
  std::string node;
  std::optional<int> gpu;
  double value = 0;
};

struct RobustSpread {
  double median = 0;
  double spread = 0;     // the standard-deviation estimate the z-score divides by; 0 = all equal
  bool from_mad = true;  // false when MAD was 0 and the mean absolute deviation was used
};

[[nodiscard]] RobustSpread robust_spread(std::vector<double> values, const OutlierSettings& settings);

struct Outlier {
  std::string metric;  // "busbw", "sm_clock", "power_draw", "temperature"
  std::string unit;    // "GB/s", "MHz", "W", "C"
  std::string group;   // what was compared: "NVIDIA H100 80GB HBM3", "all_reduce 8 ranks 8589934592 B"
  std::string node;
  std::optional<int> gpu;
  double value = 0;
  double median = 0;
  double robust_z = 0;  // signed: below the median is negative
  int group_size = 0;
  bool spread_from_mad = true;
};

// Outliers of one group of samples, by node then GPU.
[[nodiscard]] std::vector<Outlier> group_outliers(const std::string& metric, const std::string& unit,
                                                  const std::string& group,
                                                  const std::vector<Sample>& samples,
                                                  const OutlierSettings& settings);

// All metrics of the fleet, sorted by metric, group, node and GPU.
[[nodiscard]] std::vector<Outlier> find_outliers(const Fleet& fleet, const OutlierSettings& settings);

}  // namespace gputwin::validate
