#include "gputwin/report/power_report.hpp"

#include <fmt/format.h>

#include "gputwin/report/json_document.hpp"

namespace gputwin {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kJoulesPerMwh = 3.6e9;

std::string kw(Power p) {
  return fmt::format("{:.2f} kW", p.base() / 1000);
}
std::string w(Power p) {
  return fmt::format("{:.0f} W", p.base());
}

const char* unit_name(PowerUnit unit) {
  switch (unit) {
    case PowerUnit::training_step:
      return "step";
    case PowerUnit::inference_batch:
      return "batch";
    case PowerUnit::serving_run:
      return "run";
  }
  return "step";
}

double energy_per_token_j(const PowerReport& r) {
  return r.tokens_per_unit > 0 ? r.energy.energy_j / r.tokens_per_unit : 0;
}

// Energy of `tokens` tokens at this report's energy per token, in MWh.
double run_mwh(const PowerReport& r, double tokens) {
  return energy_per_token_j(r) * tokens / kJoulesPerMwh;
}

std::string limit_line(const PowerReport& r) {
  const PowerOperatingPoint& p = r.point;
  if (p.clock_limit_mhz) {
    return fmt::format("{} SM clock locked at {:g} MHz of its {:g} MHz, default limit {}", p.accelerator,
                       *p.clock_limit_mhz, p.max_clock_mhz, w(p.default_limit));
  }
  if (p.capped)
    return fmt::format("{} capped at {}, default limit {}", p.accelerator, w(p.limit), w(p.default_limit));
  return fmt::format("{} at its default limit, {}", p.accelerator, w(p.default_limit));
}

std::string time_line(const PowerReport& r) {
  std::string line = fmt::format("  clock      compute-bound {:.3f}, memory-bound {:.3f} of the default",
                                 r.point.compute_factor, r.point.memory_factor);
  if (r.default_seconds && *r.default_seconds > 0) {
    line += fmt::format("; {} {:.4g} s ({:+.1f} % against {:.4g} s at {})", unit_name(r.unit),
                        r.energy.seconds, 100 * (r.energy.seconds / *r.default_seconds - 1),
                        *r.default_seconds, w(r.point.default_limit));
  }
  return line + "\n";
}

std::string energy_line(const PowerReport& r) {
  const double kwh = r.energy.energy_j / kJoulesPerKwh;
  std::string line;
  if (r.unit == PowerUnit::training_step) {
    line = fmt::format("  energy     {:.4g} kWh per step ({} GPUs, {} nodes), {:.4g} J per token; ", kwh,
                       r.energy.gpus, r.energy.nodes, energy_per_token_j(r));
    line += r.run_tokens > 0
                ? fmt::format("{:.4g} MWh for the run's {:.4g}T tokens", run_mwh(r, r.run_tokens),
                              r.run_tokens / 1e12)
                : fmt::format("{:.4g} MWh per 1T tokens (--run-tokens for a run)", run_mwh(r, 1e12));
  } else if (r.unit == PowerUnit::serving_run) {
    line = fmt::format(
        "  energy     {:.4g} kWh over the run's {:.1f} s on {} GPUs ({} nodes; GPUs in iterations {:.1f} % "
        "of "
        "the time), {:.4g} J per output token, {:.4g} J per request",
        kwh, r.energy.seconds, r.energy.gpus, r.energy.nodes, r.busy_fraction * 100, energy_per_token_j(r),
        r.requests > 0 ? r.energy.energy_j / r.requests : 0.0);
  } else {
    line = fmt::format(
        "  energy     {:.4g} kWh per batch on {} GPUs ({:.0f} output tokens), {:.4g} J per output token", kwh,
        r.energy.gpus, r.tokens_per_unit, energy_per_token_j(r));
  }
  return line + "\n";
}

}  // namespace

std::string power_text(const PowerReport& r) {
  const EnergyEstimate& e = r.energy;
  const PowerOperatingPoint& p = r.point;
  std::string out = fmt::format("\nPower and energy ({}; docs/perf-power.md)\n", limit_line(r));
  out += time_line(r);
  out += fmt::format("  per GPU    average {}, peak {} (compute {}, memory and communication {}, idle {})\n",
                     w(e.gpu_average), w(e.gpu_peak), w(p.draw.compute), w(p.draw.memory), w(p.draw.idle));
  out += fmt::format("  per node   average {}, peak {} ({} GPUs + {} non-GPU: {})\n", kw(e.node_average),
                     kw(e.node_peak), r.node.gpus_per_node, kw(r.node.non_gpu), r.node.non_gpu_rule);
  out += fmt::format("  per rack   average {}, peak {} ({} nodes: {})\n", kw(e.rack_average), kw(e.rack_peak),
                     r.node.nodes_per_rack, r.node.rack_rule);
  out += energy_line(r);
  if (r.published_node && r.unit == PowerUnit::training_step) {
    const double published = r.published_node->training_typical.base();
    out += fmt::format("  published  {} under training: {} per node; modelled average {} ({:+.1f} %)\n",
                       r.system_id, kw(r.published_node->training_typical), kw(e.node_average),
                       100 * (e.node_average.base() / published - 1));
  }
  out += fmt::format("  figures    {}{}\n", p.basis,
                     p.generic ? " (generic draws: no published figures for this accelerator)" : "");
  return out;
}

nlohmann::json power_json(const PowerReport& r) {
  const EnergyEstimate& e = r.energy;
  const PowerOperatingPoint& p = r.point;
  nlohmann::json j;
  j["accelerator"] = p.accelerator;
  j["limit_w"] = p.limit.base();
  j["default_limit_w"] = p.default_limit.base();
  j["capped"] = p.capped;
  if (p.clock_limit_mhz) j["clock_limit_mhz"] = *p.clock_limit_mhz;  // only with --clock-limit
  j["compute_factor"] = p.compute_factor;
  j["memory_factor"] = p.memory_factor;
  j["phase_draw_w"] = {{"compute", p.draw.compute.base()},
                       {"memory", p.draw.memory.base()},
                       {"communication", p.draw.communication.base()},
                       {"idle", p.draw.idle.base()}};
  j["generic"] = p.generic;
  j["gpu_average_w"] = e.gpu_average.base();
  j["gpu_peak_w"] = e.gpu_peak.base();
  j["node_average_w"] = e.node_average.base();
  j["node_peak_w"] = e.node_peak.base();
  j["rack_average_w"] = e.rack_average.base();
  j["rack_peak_w"] = e.rack_peak.base();
  j["gpus_per_node"] = r.node.gpus_per_node;
  j["non_gpu_w_per_node"] = r.node.non_gpu.base();
  j["nodes_per_rack"] = r.node.nodes_per_rack;
  j["unit"] = unit_name(r.unit);
  j["gpus"] = e.gpus;
  j["seconds_per_unit"] = e.seconds;
  j["default_seconds_per_unit"] = r.default_seconds ? nlohmann::json(*r.default_seconds) : nlohmann::json();
  j["energy_per_unit_kwh"] = e.energy_j / kJoulesPerKwh;
  j["energy_per_token_j"] = energy_per_token_j(r);
  if (r.unit == PowerUnit::serving_run) {
    j["requests"] = r.requests;
    j["energy_per_request_j"] = r.requests > 0 ? r.energy.energy_j / r.requests : 0.0;
    j["busy_fraction"] = r.busy_fraction;
  }
  if (r.unit == PowerUnit::training_step) {
    j["run_tokens"] = r.run_tokens > 0 ? nlohmann::json(r.run_tokens) : nlohmann::json();
    j["energy_per_run_mwh"] = r.run_tokens > 0 ? nlohmann::json(run_mwh(r, r.run_tokens)) : nlohmann::json();
    j["energy_per_1t_tokens_mwh"] = run_mwh(r, 1e12);
  }
  j["basis"] = p.basis;
  return j;
}

Result<EnergySummary> power_summary_from_json(std::string_view text, const std::string& source) {
  return read_json_document<EnergySummary>(text, source, [](const JsonField& root) {
    const JsonField power = root.child("power");
    EnergySummary s;
    s.accelerator = power.child("accelerator").string();
    s.limit_w = power.child("limit_w").number();
    s.default_limit_w = power.child("default_limit_w").number();
    s.capped = boolean_of(power.child("capped"));
    s.compute_factor = power.child("compute_factor").number();
    s.memory_factor = power.child("memory_factor").number();
    s.gpu_average_w = power.child("gpu_average_w").number();
    s.gpu_peak_w = power.child("gpu_peak_w").number();
    s.node_average_w = power.child("node_average_w").number();
    s.node_peak_w = power.child("node_peak_w").number();
    s.rack_average_w = power.child("rack_average_w").number();
    s.rack_peak_w = power.child("rack_peak_w").number();
    s.energy_per_unit_kwh = power.child("energy_per_unit_kwh").number();
    s.energy_per_token_j = power.child("energy_per_token_j").number();
    return s;
  });
}

}  // namespace gputwin
