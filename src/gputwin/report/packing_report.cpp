#include "gputwin/report/packing_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gputwin/core/units.hpp"
#include "gputwin/report/text_table.hpp"

namespace gputwin {
namespace {

using Json = nlohmann::ordered_json;

Json curve_json(const std::vector<double>& curve) {
  Json values = Json::array();
  for (const double value : curve) {
    if (std::isnan(value)) {
      values.push_back(nullptr);
    } else {
      values.push_back(std::round(value * 1e4) / 1e4);
    }
  }
  return values;
}

Json curves_json(const std::vector<double>& allocation, const std::vector<double>& fragmentation,
                 const std::vector<double>& ratio) {
  return {{"allocation_percent_by_arrived_percent", curve_json(allocation)},
          {"fragmentation_percent_by_arrived_percent", curve_json(fragmentation)},
          {"fragmentation_ratio_by_arrived_percent", curve_json(ratio)}};
}

template <class Pick>
std::vector<double> mean_of(const std::vector<PackingResult>& runs, Pick pick) {
  std::vector<std::vector<double>> curves;
  for (const auto& run : runs) curves.push_back(pick(run));
  return mean_curve(curves);
}

}  // namespace

Json packing_json(const std::vector<PackingResult>& runs) {
  Json json;
  json["schema"] = kPackingSchema;
  if (runs.empty()) return json;
  const PackingResult& first = runs.front();
  json["policy"] = first.policy;
  json["inflate"] = first.inflate;
  json["nodes"] = first.nodes;
  json["gpus"] = first.gpus;
  json["pods_original"] = first.pods_original;
  Json list = Json::array();
  for (const auto& run : runs) {
    Json item = {{"seed", run.seed},
                 {"pods_arrived", run.pods_arrived},
                 {"pods_placed", run.pods_placed},
                 {"pods_failed", run.pods_failed},
                 {"gpu_pods_failed", run.gpu_pods_failed},
                 {"final_allocation_percent", std::round(run.final_allocation_percent * 1e4) / 1e4}};
    item.update(curves_json(run.allocation_percent_by_arrived_percent,
                            run.fragmentation_percent_by_arrived_percent,
                            run.fragmentation_ratio_by_arrived_percent));
    list.push_back(item);
  }
  json["runs"] = list;
  if (runs.size() == 1) {
    json["seed"] = first.seed;
    json["pods_failed"] = first.pods_failed;
    json.update(curves_json(first.allocation_percent_by_arrived_percent,
                            first.fragmentation_percent_by_arrived_percent,
                            first.fragmentation_ratio_by_arrived_percent));
  } else {
    Json mean =
        curves_json(mean_of(runs, [](const auto& r) { return r.allocation_percent_by_arrived_percent; }),
                    mean_of(runs, [](const auto& r) { return r.fragmentation_percent_by_arrived_percent; }),
                    mean_of(runs, [](const auto& r) { return r.fragmentation_ratio_by_arrived_percent; }));
    json["mean_over_seeds"] = mean;
  }
  return json;
}

std::string packing_text(const std::vector<PackingResult>& runs, const std::string& pods_name) {
  if (runs.empty()) return "";
  const PackingResult& first = runs.front();
  std::string text = fmt::format(
      "Packing {} pods of {} on {} nodes ({} GPUs) with {}, inflated to {}x capacity\n", first.pods_original,
      pods_name, first.nodes, first.gpus, first.policy, format_number(first.inflate, 2));
  const auto allocation =
      mean_of(runs, [](const auto& r) { return r.allocation_percent_by_arrived_percent; });
  const auto fragmentation =
      mean_of(runs, [](const auto& r) { return r.fragmentation_percent_by_arrived_percent; });
  TextTable table({"arrived GPU demand", "GPUs allocated", "fragmentation"},
                  {Align::right, Align::right, Align::right});
  for (const int percent : {50, 70, 90, 100, 110, 120, 130}) {
    if (percent >= static_cast<int>(allocation.size())) continue;
    table.add_row({std::to_string(percent) + " %", format_number(allocation[percent], 2) + " %",
                   format_number(fragmentation[percent], 2) + " %"});
  }
  text += table.render();
  for (const auto& run : runs) {
    text += fmt::format("  seed {}: {} pods arrived, {} placed, {} failed ({} of them GPU pods)\n", run.seed,
                        run.pods_arrived, run.pods_placed, run.pods_failed, run.gpu_pods_failed);
  }
  if (runs.size() > 1) text += fmt::format("  (curve values are the mean over {} seeds)\n", runs.size());
  return text;
}

// One seed's curve sits at the top level; several seeds' mean sits under mean_over_seeds.
PackingCurve packing_curve_from_json(const JsonField& root, const std::string& source) {
  PackingCurve packing;
  packing.source = source;
  packing.policy = root.child("policy").string();
  packing.seeds = static_cast<int>(root.child("runs").array_size());
  const JsonField curve_owner = root.has("mean_over_seeds") ? root.child("mean_over_seeds") : root;
  const JsonField curve = curve_owner.child("allocation_percent_by_arrived_percent");
  for (std::size_t i = 0; i < curve.array_size(); ++i) {
    const JsonField point = curve.element(i);
    packing.allocation_percent.push_back(point.json().is_null() ? std::nullopt
                                                                : std::optional<double>(point.number()));
  }
  return packing;
}

}  // namespace gputwin
