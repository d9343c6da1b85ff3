#include "gputwin/validate/outliers.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include "gputwin/core/units.hpp"
#include "gputwin/validate/nccl_busbw.hpp"
#include "gputwin/validate/text_values.hpp"

namespace gputwin::validate {
namespace {

double median_of(std::vector<double>& values) {
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return (lower + upper) / 2;
}

using Groups = std::map<std::string, std::vector<Sample>>;

// A GPU metric of the node's fact model (nvidia-smi outputs and dcgm-exporter scrapes alike).
struct GpuMetric {
  std::string name;
  std::string unit;
  std::function<std::optional<double>(const GpuFacts&)> from_facts;
};

const std::vector<GpuMetric>& gpu_metrics() {
  static const std::vector<GpuMetric> metrics = {
      {"sm_clock", "MHz", [](const GpuFacts& gpu) { return gpu.clocks.sm_mhz; }},
      {"power_draw", "W",
       [](const GpuFacts& gpu) -> std::optional<double> {
         if (!gpu.power.draw) return std::nullopt;
         return in_watts(*gpu.power.draw);
       }},
      {"temperature", "C", [](const GpuFacts& gpu) { return gpu.temperature_celsius; }},
  };
  return metrics;
}

void add_gpu_samples(const FleetNode& node, const GpuMetric& metric, Groups& groups) {
  if (!node.facts) return;
  for (const GpuFacts& gpu : node.facts->gpus)
    if (const auto value = metric.from_facts(gpu))
      groups[gpu.model.empty() ? "unknown model" : gpu.model].push_back({node.name, gpu.index, *value});
}

void add_busbw_samples(const FleetNode& node, Groups& groups) {
  for (const NcclTestsRun& run : node.nccl_runs)
    if (const auto largest = largest_message(run))
      groups[busbw_group_name(run, *largest)].push_back({node.name, std::nullopt, largest->busbw_gbps});
}

void append_groups(const std::string& metric, const std::string& unit, const Groups& groups,
                   const OutlierSettings& settings, std::vector<Outlier>& out) {
  for (const auto& [group, samples] : groups) {
    auto found = group_outliers(metric, unit, group, samples, settings);
    out.insert(out.end(), found.begin(), found.end());
  }
}

}  // namespace

RobustSpread robust_spread(std::vector<double> values, const OutlierSettings& settings) {
  RobustSpread spread;
  if (values.empty()) return spread;
  spread.median = median_of(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  double deviation_sum = 0;
  for (double value : values) {
    deviations.push_back(std::abs(value - spread.median));
    deviation_sum += deviations.back();
  }
  const double mad = median_of(deviations);
  if (mad > 0) {
    spread.spread = settings.mad_scale * mad;
    return spread;
  }
  spread.from_mad = false;
  spread.spread = settings.mean_absolute_deviation_scale * deviation_sum / static_cast<double>(values.size());
  return spread;
}

std::vector<Outlier> group_outliers(const std::string& metric, const std::string& unit,
                                    const std::string& group, const std::vector<Sample>& samples,
                                    const OutlierSettings& settings) {
  std::vector<Outlier> found;
  if (static_cast<int>(samples.size()) < settings.minimum_group_size) return found;
  std::vector<double> values;
  for (const Sample& sample : samples) values.push_back(sample.value);
  const RobustSpread spread = robust_spread(values, settings);
  if (spread.spread <= 0) return found;
  for (const Sample& sample : samples) {
    const double z = (sample.value - spread.median) / spread.spread;
    if (std::abs(z) <= settings.threshold) continue;
    found.push_back({metric, unit, group, sample.node, sample.gpu, sample.value, spread.median, z,
                     static_cast<int>(samples.size()), spread.from_mad});
  }
  std::sort(found.begin(), found.end(), [](const Outlier& a, const Outlier& b) {
    return std::tie(a.node, a.gpu) < std::tie(b.node, b.gpu);
  });
  return found;
}

std::vector<Outlier> find_outliers(const Fleet& fleet, const OutlierSettings& settings) {
  std::vector<Outlier> out;
  Groups busbw;
  for (const FleetNode& node : fleet.nodes) add_busbw_samples(node, busbw);
  append_groups("busbw", "GB/s", busbw, settings, out);
  for (const GpuMetric& metric : gpu_metrics()) {
    Groups groups;
    for (const FleetNode& node : fleet.nodes) add_gpu_samples(node, metric, groups);
    append_groups(metric.name, metric.unit, groups, settings, out);
  }
  return out;
}

}  // namespace gputwin::validate
