#include "gputwin/report/html/charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "gputwin/core/units.hpp"
#include "gputwin/prometheus/time_params.hpp"

namespace gputwin {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kSecondsPerDay = 86400;
constexpr double kSecondsPerHour = 3600;

Json axis(const std::string& title, const std::string& type = "linear") {
  return {{"type", type}, {"title", {{"display", true}, {"text", title}}}};
}

// Animation off: the page is finished when it loads, screenshots are the same every time.
Json base_options(const Json& x_axis, const Json& y_axis) {
  return {{"animation", false},
          {"responsive", true},
          {"maintainAspectRatio", false},
          {"interaction", {{"mode", "nearest"}, {"intersect", false}}},
          {"elements", {{"point", {{"radius", 0}}}}},
          {"scales", {{"x", x_axis}, {"y", y_axis}}}};
}

// Points come sorted by x, one per x (normalized), which spares Chart.js a pass over a year of intervals.
Json line_config(Json datasets, const Json& x_axis, const Json& y_axis) {
  Json options = base_options(x_axis, y_axis);
  options["normalized"] = true;
  options["interaction"]["axis"] = "x";
  return {{"type", "line"}, {"data", {{"datasets", std::move(datasets)}}}, {"options", options}};
}

Json bar_config(Json labels, Json datasets, const Json& x_axis, const Json& y_axis) {
  Json options = base_options(x_axis, y_axis);
  options["interaction"]["mode"] = "index";
  return {{"type", "bar"},
          {"data", {{"labels", std::move(labels)}, {"datasets", std::move(datasets)}}},
          {"options", options}};
}

// [x, y] pairs: the shortest form Chart.js parses, so a year of hourly intervals stays small.
Json points(const std::vector<double>& x, const std::vector<double>& y) {
  Json data = Json::array();
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) data.push_back(Json::array({x[i], y[i]}));
  return data;
}

Json line_dataset(const std::string& label, Json data) {
  return {{"label", label}, {"data", std::move(data)}, {"borderWidth", 1.5}, {"fill", false}};
}

std::vector<double> days_of(const std::vector<double>& seconds) {
  std::vector<double> days;
  for (const double s : seconds) days.push_back(round_decimals(s / kSecondsPerDay, 4));
  return days;
}

// Series are named by what they show and the file they came from, without its folder.
std::string file_name(const std::string& source) {
  return std::filesystem::path(source).filename().string();
}

std::string replay_label(const ReplaySeries& replay) {
  return fmt::format("{} ({})", replay.policy, file_name(replay.source));
}

Json from_zero(Json axis) {
  axis["min"] = 0;
  return axis;
}

ReportChart replay_over_time(const std::string& id, const std::string& title, const std::string& y_title,
                             const std::vector<ReplaySeries>& replays,
                             std::vector<double> ReplaySeries::*series) {
  Json datasets = Json::array();
  for (const auto& replay : replays)
    datasets.push_back(
        line_dataset(replay_label(replay), points(days_of(replay.interval_start_s), replay.*series)));
  return {id, "simulation", title, "one point per interval of simulate replay --json (intervals[])",
          line_config(datasets, axis("day of the replay"), from_zero(axis(y_title)))};
}

ReportChart jct_chart(const std::vector<ReplaySeries>& replays) {
  Json datasets = Json::array();
  for (const auto& replay : replays) {
    const Summary& jct = replay.jct_s;
    datasets.push_back({{"label", replay_label(replay)},
                        {"data",
                         {jct.median / kSecondsPerHour, jct.mean / kSecondsPerHour, jct.p95 / kSecondsPerHour,
                          jct.max / kSecondsPerHour}}});
  }
  Json config = bar_config({"median", "mean", "p95", "max"}, datasets,
                           axis("job completion time", "category"), axis("hours (log scale)", "logarithmic"));
  return {"chart-jct", "simulation", "Job completion time distribution",
          "median, mean, 95th percentile and maximum of jct_s per replay", config};
}

// Interruptions by cause, one bar series per replay with failures, over the causes of them all.
ReportChart interruptions_chart(const std::vector<ReplaySeries>& replays) {
  std::set<std::string> causes;
  for (const auto& replay : replays) {
    for (const auto& [cause, count] : replay.interruptions_by_cause) causes.insert(cause);
  }
  Json labels = Json::array();
  for (const auto& cause : causes) labels.push_back(cause);
  Json datasets = Json::array();
  for (const auto& replay : replays) {
    Json data = Json::array();
    for (const auto& cause : causes) {
      int count = 0;
      for (const auto& [name, interruptions] : replay.interruptions_by_cause)
        if (name == cause) count = interruptions;
      data.push_back(count);
    }
    datasets.push_back({{"label", replay_label(replay)}, {"data", data}});
  }
  return {"chart-interruptions", "simulation", "Interruptions by cause",
          "failures.by_cause[].interruptions of simulate replay --json, one series per replay with failures",
          bar_config(labels, datasets, axis("cause", "category"), axis("interruptions"))};
}

ReportChart packing_chart(const std::vector<PackingCurve>& packings) {
  Json datasets = Json::array();
  for (const auto& packing : packings) {
    Json data = Json::array();
    for (std::size_t percent = 0; percent < packing.allocation_percent.size(); ++percent) {
      const auto& value = packing.allocation_percent[percent];
      data.push_back(Json::array({static_cast<double>(percent), value ? Json(*value) : Json(nullptr)}));
    }
    const std::string seeds = packing.seeds > 1 ? fmt::format(", mean of {} seeds", packing.seeds) : "";
    datasets.push_back(
        line_dataset(fmt::format("{}{} ({})", packing.policy, seeds, file_name(packing.source)), data));
  }
  return {"chart-packing", "simulation", "GPU allocation as demand arrives (packing)",
          "allocation_percent_by_arrived_percent of simulate packing --json, one line per policy",
          line_config(datasets, axis("arrived GPU demand (% of capacity)"),
                      from_zero(axis("GPUs allocated (%)")))};
}

ReportChart busbw_chart(const std::vector<CollectiveCurve>& collectives) {
  Json datasets = Json::array();
  for (const auto& curve : collectives) {
    datasets.push_back(
        line_dataset(fmt::format("{}, {} ranks ({})", curve.op, curve.ranks, file_name(curve.source)),
                     points(curve.bytes, curve.busbw_gbps)));
  }
  return {"chart-busbw", "perf", "Collective bus bandwidth by message size",
          "rows[].busbw_gbps of perf collective --json (what nccl-tests would print)",
          line_config(datasets, axis("message size (bytes, log scale)", "logarithmic"),
                      from_zero(axis("busbw (GB/s)")))};
}

ReportChart step_chart(const std::vector<TrainingBreakdown>& trainings) {
  std::vector<std::string> term_names;
  std::set<std::string> seen;
  for (const auto& training : trainings) {
    for (const auto& term : training.terms)
      if (seen.insert(term.name).second) term_names.push_back(term.name);
  }
  Json labels = Json::array();
  for (const auto& training : trainings)
    labels.push_back(fmt::format("{}, {} GPUs", training.model, training.gpus));
  Json datasets = Json::array();
  for (const auto& name : term_names) {
    Json data = Json::array();
    for (const auto& training : trainings) {
      double seconds = 0;
      for (const auto& term : training.terms) seconds += term.name == name ? term.seconds : 0;
      data.push_back(seconds);
    }
    datasets.push_back({{"label", name}, {"data", data}});
  }
  Json x_axis = axis("seconds per step");
  x_axis["stacked"] = true;
  Json y_axis = axis("", "category");
  y_axis["stacked"] = true;
  Json config = bar_config(labels, datasets, x_axis, y_axis);
  config["options"]["indexAxis"] = "y";
  return {"chart-step", "perf", "Training step time breakdown", "terms[] of perf train --json, stacked",
          config};
}

// Output tokens per second per GPU as concurrent sequences grow, one line per perf infer result (its max-load
// point last); the x axis is logarithmic because the sequences given usually double.
ReportChart inference_chart(const std::vector<InferenceResult>& inferences) {
  Json datasets = Json::array();
  for (const auto& result : inferences) {
    std::vector<InferencePoint> rows = result.by_sequences;
    if (result.max_load.sequences > 0) rows.push_back(result.max_load);
    std::vector<double> sequences;
    std::vector<double> per_gpu;
    for (const auto& row : rows) {
      sequences.push_back(row.sequences);
      per_gpu.push_back(row.output_tokens_per_s_per_gpu);
    }
    datasets.push_back(line_dataset(fmt::format("{} on {}, TP {} ({})", result.model, result.accelerator,
                                                result.tp, file_name(result.source)),
                                    points(sequences, per_gpu)));
  }
  return {"chart-inference", "perf", "Inference throughput by concurrent sequences",
          "output_tokens_per_s_per_gpu of by_sequences[] and max_load of perf infer --json",
          line_config(datasets, axis("concurrent sequences (log scale)", "logarithmic"),
                      from_zero(axis("output tokens/s per GPU")))};
}

// Latency percentiles against the request rate served, one line per deployment (model, system, TP, replicas)
// and percentile, from perf serve runs at several rates; the y axis is logarithmic because an overloaded
// deployment's latency grows by orders of magnitude.
ReportChart serve_latency_chart(const std::vector<ServeDocument>& serves, const std::string& id,
                                const std::string& what, LatencyStats ServeDocument::*stats) {
  std::map<std::string, std::vector<const ServeDocument*>> deployments;
  for (const auto& run : serves) {
    deployments[fmt::format("{} on {}, {}", run.model, run.system, deployment_text(run))].push_back(&run);
  }
  Json datasets = Json::array();
  for (auto& [name, runs] : deployments) {
    std::stable_sort(runs.begin(), runs.end(), [](const ServeDocument* a, const ServeDocument* b) {
      return a->requests_per_s < b->requests_per_s;
    });
    for (const auto& [label, member] :
         {std::pair{"p90", &LatencyStats::p90}, std::pair{"p99", &LatencyStats::p99}}) {
      std::vector<double> rates;
      std::vector<double> latency;
      for (const ServeDocument* run : runs) {
        rates.push_back(run->requests_per_s);
        latency.push_back((*run).*stats.*member);
      }
      datasets.push_back(line_dataset(fmt::format("{} {}", name, label), points(rates, latency)));
    }
  }
  Json config = line_config(datasets, from_zero(axis("requests/s served")),
                            axis(what + " ms (log scale)", "logarithmic"));
  config["options"]["elements"]["point"]["radius"] = 3;
  return {id, "perf", what + " against the request rate",
          "ttft_ms / tpot_ms (p90, p99) against requests_per_s of perf serve --json, one line per deployment",
          config};
}

ReportChart tco_chart(const Cluster& cluster) {
  const Costs& costs = cluster.costs;
  const double years = costs.lifetime_years;
  Json data = {round_decimals(in_usd(costs.capex), 2),
               round_decimals(in_usd(costs.energy_per_year) * years, 2),
               round_decimals(in_usd(costs.support_per_year) * years, 2)};
  Json config = {
      {"type", "doughnut"},
      {"data",
       {{"labels",
         {"capex", fmt::format("energy over {} years", years), fmt::format("support over {} years", years)}},
        {"datasets", {{{"label", "USD"}, {"data", data}}}}}},
      {"options", {{"animation", false}, {"responsive", true}, {"maintainAspectRatio", false}}}};
  // A capex that leaves out unpriced parts is not a total: the chart says so in its title.
  const std::string title = costs.complete() || !costs.priced
                                ? "Total cost of ownership"
                                : "Total cost of ownership (incomplete: parts without a price)";
  return {"chart-tco", "design", title, "costs of plan --json, USD", config};
}

ReportChart power_chart(const Cluster& cluster) {
  std::map<RackKind, std::pair<double, double>> kw_by_kind;  // max, typical
  for (const auto& rack : cluster.racks) {
    kw_by_kind[rack.kind].first += in_kilowatts(rack.power_max);
    kw_by_kind[rack.kind].second += in_kilowatts(rack.power_typical);
  }
  Json labels = Json::array();
  Json max = Json::array();
  Json typical = Json::array();
  for (const auto& [kind, kw] : kw_by_kind) {
    labels.push_back(fmt::format("{} racks", rack_kind_name(kind)));
    max.push_back(round_decimals(kw.first, 3));
    typical.push_back(round_decimals(kw.second, 3));
  }
  Json datasets = {{{"label", "maximum"}, {"data", max}}, {{"label", "typical"}, {"data", typical}}};
  return {"chart-power", "design", "Where the IT power goes", "sum of the racks' power by rack kind, kW",
          bar_config(labels, datasets, axis("", "category"), axis("kW"))};
}

// Cables of every fabric by orderable length, one stacked series per medium. Links no medium reaches have no
// orderable length (each keeps its routed one), so they share one "beyond reach" bar.
ReportChart cable_chart(const Cluster& cluster) {
  constexpr double kBeyondReach = std::numeric_limits<double>::infinity();
  std::map<std::string, std::map<double, long>> count_by_medium;
  std::set<double> lengths;
  for (const auto& fabric : cluster.fabrics) {
    for (const auto& bundle : fabric.bundles) {
      const std::string medium = bundle.medium ? medium_name(*bundle.medium) : "none";
      const double length = bundle.medium ? in_metres(bundle.cable_length) : kBeyondReach;
      count_by_medium[medium][length] += bundle.links;
      lengths.insert(length);
    }
  }
  Json labels = Json::array();
  for (const double length : lengths)
    labels.push_back(length == kBeyondReach ? "beyond reach" : format_number(length, 1) + " m");
  Json datasets = Json::array();
  for (const auto& [medium, counts] : count_by_medium) {
    Json data = Json::array();
    for (const double length : lengths) data.push_back(counts.count(length) ? counts.at(length) : 0);
    datasets.push_back({{"label", medium}, {"data", data}});
  }
  Json x_axis = axis("cable length", "category");
  x_axis["stacked"] = true;
  Json y_axis = axis("cables");
  y_axis["stacked"] = true;
  return {"chart-cables", "design", "Cables by medium and length", "every fabric's links by orderable length",
          bar_config(labels, datasets, x_axis, y_axis)};
}

// IT power per interval of each replay on a known system and, beside it, the facility's power at that IT load
// (the design's overhead curve), with each budget a replay ran under drawn as a dashed flat line across that
// replay's days.
ReportChart replay_power_chart(const std::vector<ReplaySeries>& replays) {
  Json datasets = Json::array();
  for (const auto& replay : replays) {
    datasets.push_back(line_dataset("IT " + replay_label(replay),
                                    points(days_of(replay.interval_start_s), replay.interval_it_kw)));
    if (!replay.interval_facility_kw.empty()) {
      datasets.push_back(line_dataset("facility " + replay_label(replay),
                                      points(days_of(replay.interval_start_s), replay.interval_facility_kw)));
    }
  }
  for (const auto& replay : replays) {
    if (!replay.budget_it_kw || replay.interval_start_s.empty()) continue;
    const std::vector<double> days = days_of(replay.interval_start_s);
    Json budget = line_dataset(fmt::format("budget {} ({})", format_number(*replay.budget_it_kw, 0) + " kW",
                                           file_name(replay.source)),
                               Json::array({Json::array({days.front(), *replay.budget_it_kw}),
                                            Json::array({days.back(), *replay.budget_it_kw})}));
    budget["borderDash"] = Json::array({6, 4});
    datasets.push_back(std::move(budget));
  }
  return {"chart-replay-power", "simulation", "IT and facility power over time and the power budget",
          "intervals[].it_kw, intervals[].facility_kw (the facility at each interval's IT load) and "
          "energy.budget.it_kw of simulate replay --json on a --cluster spec",
          line_config(datasets, axis("day of the replay"), from_zero(axis("power (kW)")))};
}

// The design's facility power against its IT load, from no load to its rated maximum (the cooling class's
// overhead split, or one PUE at every load), with its two operating points: typical and maximum IT power.
ReportChart facility_curve_chart(const Cluster& cluster) {
  constexpr int kSteps = 20;  // points along the curve: a smooth line, a small page
  const PowerSummary& power = cluster.power;
  const FacilityOverhead& overhead = power.overhead;
  Json curve = Json::array();
  for (int step = 0; step <= kSteps; ++step) {
    const Power it = power.it_max * (static_cast<double>(step) / kSteps);
    curve.push_back(Json::array(
        {round_decimals(in_kilowatts(it), 3), round_decimals(in_kilowatts(overhead.facility_power(it)), 3)}));
  }
  Json datasets = Json::array({line_dataset("facility power", std::move(curve))});
  for (const auto& [label, it] :
       {std::pair{"typical IT load", power.it_typical}, std::pair{"maximum IT load", power.it_max}}) {
    Json point = line_dataset(
        fmt::format("{} (PUE {})", label, format_number(overhead.pue_at(it), 3)),
        Json::array({Json::array({round_decimals(in_kilowatts(it), 3),
                                  round_decimals(in_kilowatts(overhead.facility_power(it)), 3)})}));
    point["pointRadius"] = 5;
    datasets.push_back(std::move(point));
  }
  const std::string shape = overhead.curve ? overhead.basis + ", scaled to the PUE at full load"
                                           : "one PUE at every load: " + overhead.basis;
  return {
      "chart-facility-curve", "design", "Facility power by IT load",
      "facility power (IT plus cooling and power-path overhead) from no IT load to the design's maximum; " +
          shape,
      line_config(datasets, from_zero(axis("IT power (kW)")), from_zero(axis("facility power (kW)")))};
}

// A validate --prometheus --range timeline: measured occupancy and mean utilisation by interval, and the
// replay's predicted occupancy when the document has one (validate --sacct), in hours from the first
// interval.
ReportChart validate_timeline_chart(const ValidateDocument& document, std::size_t index) {
  const std::vector<ValidateTimelinePoint>& timeline = document.summary.timeline;
  const double first = prometheus::parse_time(timeline.front().time).value_or(0);
  std::vector<double> hours, occupancy, utilisation, predicted;
  bool has_prediction = false;
  for (const ValidateTimelinePoint& point : timeline) {
    hours.push_back(
        round_decimals((prometheus::parse_time(point.time).value_or(first) - first) / kSecondsPerHour, 4));
    occupancy.push_back(100 * point.occupancy);
    utilisation.push_back(point.mean_utilization_percent);
    predicted.push_back(100 * point.predicted_occupancy.value_or(0));
    has_prediction = has_prediction || point.predicted_occupancy.has_value();
  }
  Json datasets = Json::array();
  datasets.push_back(line_dataset("measured occupancy (GPUs above 0 %)", points(hours, occupancy)));
  datasets.push_back(line_dataset("measured mean utilisation", points(hours, utilisation)));
  if (has_prediction)
    datasets.push_back(
        line_dataset("predicted occupancy (simulate replay " + document.summary.prediction + ")",
                     points(hours, predicted)));
  Json y = from_zero(axis("% of the GPUs reporting (predicted: of the replayed cluster)"));
  y["max"] = 100;
  return {fmt::format("chart-validate-timeline-{}", index), "validate",
          "GPU utilisation by interval: " + file_name(document.source),
          "one point per interval of validate --prometheus --range --json (timeline[]), from " +
              timeline.front().time +
              (has_prediction ? "; predicted: timeline[].predicted from --sacct" : ""),
          line_config(datasets, axis("hours from " + timeline.front().time), y)};
}

// A facility power budget's candidates: training throughput against the GPU power cap, one series per
// platform (its caps from the lowest up; a platform without a settable range is one point), only those that
// fit.
ReportChart power_budget_chart(const PowerBudgetPlan& budget) {
  std::vector<std::string> systems;
  for (const BudgetCandidate& candidate : budget.candidates) {
    if (std::find(systems.begin(), systems.end(), candidate.system) == systems.end())
      systems.push_back(candidate.system);
  }
  Json datasets = Json::array();
  for (const std::string& system : systems) {
    std::vector<const BudgetCandidate*> fitted;
    for (const BudgetCandidate& candidate : budget.candidates) {
      if (candidate.system == system && candidate.fits) fitted.push_back(&candidate);
    }
    std::sort(fitted.begin(), fitted.end(), [](const BudgetCandidate* a, const BudgetCandidate* b) {
      return in_watts(a->cap) < in_watts(b->cap);
    });
    Json data = Json::array();
    for (const BudgetCandidate* candidate : fitted)
      data.push_back(Json::array({in_watts(candidate->cap), candidate->tokens_per_second}));
    Json dataset = line_dataset(system, std::move(data));
    dataset["pointRadius"] = 4;  // a platform with one cap is one point
    datasets.push_back(std::move(dataset));
  }
  return {"chart-power-budget", "budget",
          fmt::format("Training throughput by GPU power cap within {} of facility power",
                      format_number(in_kilowatts(budget.budget) / 1000, 3) + " MW"),
          "each platform sized to the most nodes whose design fits the budget at each cap (plan "
          "workload_fit.power_budget.candidates[]: cap_w, tokens_per_second)",
          line_config(datasets, axis("GPU power cap (W)"), from_zero(axis("training tokens/s")))};
}

}  // namespace

std::vector<ReportChart> report_charts(const Cluster& cluster, const ReportInputs& inputs) {
  std::vector<ReportChart> charts;
  charts.push_back(power_chart(cluster));
  charts.push_back(facility_curve_chart(cluster));
  if (cluster.costs.priced) charts.push_back(tco_chart(cluster));
  charts.push_back(cable_chart(cluster));
  if (!inputs.replays.empty()) {
    charts.push_back(replay_over_time("chart-utilisation", "GPU utilisation over time", "utilisation (0-1)",
                                      inputs.replays, &ReplaySeries::interval_utilisation));
    charts.push_back(replay_over_time("chart-queue", "Queue length over time", "waiting jobs", inputs.replays,
                                      &ReplaySeries::interval_queue_length));
    charts.push_back(replay_over_time("chart-fragmentation", "Fragmentation over time (stranded GPUs)",
                                      "idle GPUs no waiting job can use", inputs.replays,
                                      &ReplaySeries::interval_stranded_gpus));
    charts.push_back(jct_chart(inputs.replays));
    std::vector<ReplaySeries> with_failures;
    for (const auto& replay : inputs.replays)
      if (replay.has_failures) with_failures.push_back(replay);
    if (!with_failures.empty()) {
      charts.push_back(replay_over_time("chart-down-gpus", "GPUs out of service over time",
                                        "GPUs down (hot spares included)", with_failures,
                                        &ReplaySeries::interval_down_gpus));
      charts.push_back(interruptions_chart(with_failures));
    }
  }
  if (!inputs.replays.empty()) {
    std::vector<ReplaySeries> with_energy;
    for (const auto& replay : inputs.replays)
      if (replay.has_energy) with_energy.push_back(replay);
    if (!with_energy.empty()) charts.push_back(replay_power_chart(with_energy));
  }
  if (!inputs.packings.empty()) charts.push_back(packing_chart(inputs.packings));
  if (!inputs.collectives.empty()) charts.push_back(busbw_chart(inputs.collectives));
  if (!inputs.trainings.empty()) charts.push_back(step_chart(inputs.trainings));
  if (!inputs.inferences.empty()) charts.push_back(inference_chart(inputs.inferences));
  if (!inputs.serves.empty()) {
    charts.push_back(serve_latency_chart(inputs.serves, "chart-serve-ttft", "TTFT", &ServeDocument::ttft_ms));
    charts.push_back(serve_latency_chart(inputs.serves, "chart-serve-tpot", "TPOT", &ServeDocument::tpot_ms));
  }
  if (inputs.power_budget) charts.push_back(power_budget_chart(*inputs.power_budget));
  for (std::size_t i = 0; i < inputs.validations.size(); ++i)
    if (!inputs.validations[i].summary.timeline.empty())
      charts.push_back(validate_timeline_chart(inputs.validations[i], i));
  return charts;
}

}  // namespace gputwin
