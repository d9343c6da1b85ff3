// Chart.js configurations for the HTML report, built from the Cluster model and the simulation and perf
// results. Only configuration: Chart.js (inlined into the page) draws them.
//
//   for (const ReportChart& chart : report_charts(cluster, inputs)) {
//     html += "<canvas id=\"" + chart.id + "\"></canvas>";   // the page runs new Chart(canvas, chart.config)
//   }
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gputwin/design/cluster.hpp"
#include "gputwin/report/html/inputs.hpp"

namespace gputwin {

struct ReportChart {
  std::string id;       // canvas id, e.g. "chart-utilisation"
  std::string section;  // "design", "simulation" or "perf"
  std::string title;
  std::string note;               // what the chart shows and where its numbers come from
  nlohmann::ordered_json config;  // a Chart.js configuration: type, data, options
};

[[nodiscard]] std::vector<ReportChart> report_charts(const Cluster& cluster, const ReportInputs& inputs);

}  // namespace gputwin
