#include "gputwin/cli/replay_power.hpp"

#include <fmt/format.h>

#include <cctype>
#include <variant>

#include "gputwin/cli/commands.hpp"
#include "gputwin/core/data_dir.hpp"
#include "gputwin/perf/power_model.hpp"
#include "gputwin/perf/training_power_curve.hpp"

namespace gputwin::cli {
namespace {

// The resolution of the cap grid cap-all chooses from: a numerical setting, not a figure of the hardware
// (nvidia-smi -pl takes whole watts; 10 W steps keep the table small and the chosen cap within 10 W of the
// highest that fits).
const Power kCapStep = Power::from_base(10);

}  // namespace

std::optional<ReplayPowerProfile> replay_power_profile(const Cluster& cluster, const Catalog& catalog,
                                                       int pool_nodes, std::string& why_not) {
  const NodeType* type = cluster.sole_node_type();
  if (type == nullptr) {
    why_not = "the cluster has more than one compute node type";
    return std::nullopt;
  }
  const System* system = catalog.find<System>(type->system);
  const Accelerator* accelerator = catalog.find<Accelerator>(type->accelerator);
  if (system == nullptr || accelerator == nullptr || type->gpus <= 0) {
    why_not = fmt::format("the catalog has no GPU figures for {}", type->system);
    return std::nullopt;
  }
  auto data = load_power_model(bundled_data_dir() + "/power/power-model.yaml");
  if (!data.ok()) {
    why_not = data.error_text();
    return std::nullopt;
  }
  const auto point = power_operating_point(data.value(), *accelerator, std::nullopt);
  if (!point.ok()) {
    why_not = point.errors().front().to_string();
    return std::nullopt;
  }
  ReplayPowerProfile profile;
  profile.system = type->system;
  profile.accelerator = type->accelerator;
  profile.nodes = pool_nodes;
  profile.gpus_per_node = type->gpus;
  profile.idle_gpu_w = in_watts(point.value().draw.idle);
  profile.non_gpu_node_w = in_watts(non_gpu_power(*system, *accelerator));
  profile.pue = cluster.power.pue;
  profile.facility = cluster.power.overhead;
  for (const TrainingCapPoint& cap : training_power_curve(data.value(), *accelerator, kCapStep))
    profile.caps.push_back({in_watts(cap.limit), in_watts(cap.gpu_draw), cap.throughput});
  profile.source = fmt::format(
      "{}: busy {} GPU {:.0f} W (training phase mix at the {:.0f} W default limit{}), idle {:.0f} W; {} "
      "non-GPU {:.0f} W per node (power_max - GPUs x TDP); PUE {:.3g} (the design's, blended by cooling)",
      data.value().file_label, profile.accelerator, profile.caps.back().busy_draw_w,
      profile.caps.back().limit_w, point.value().generic ? ", generic draws" : "", profile.idle_gpu_w,
      profile.system, profile.non_gpu_node_w, profile.pue);
  return profile;
}

double parse_power_budget(const std::string& text) {
  bool has_unit = false;
  for (const char c : text) has_unit = has_unit || std::isalpha(static_cast<unsigned char>(c)) != 0;
  if (!has_unit) {
    throw UsageFailure{"--power-budget: '" + text +
                       "' has no unit; give the IT power with one, such as 2.5MW, 800kW or 20000W"};
  }
  const auto parsed = parse_quantity<Power>(text);
  if (const auto* error = std::get_if<std::string>(&parsed)) throw UsageFailure{"--power-budget: " + *error};
  const double watts = in_watts(std::get<Power>(parsed));
  if (!(watts > 0)) throw UsageFailure{"--power-budget: '" + text + "': the budget must be above 0 W"};
  return watts;
}

}  // namespace gputwin::cli
