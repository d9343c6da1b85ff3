// The HTML report: one self-contained page (styles, SVG diagrams, Chart.js and the chart data inlined; system
// fonts only) that needs no network when opened from disk.
//
//   auto inputs = load_report_inputs(simulation_paths, perf_paths);
//   std::ofstream("report.html") << html_report(cluster, inputs.value(), chart_js_bundle());
//
// Every figure drawn comes from the Cluster model or the result files. Key numbers are also carried as data-*
// attributes (data-gpus, data-racks, data-switches per tier box, ...) so a browser test can compare the page
// with `plan --json`. The same inputs give a byte-identical page.
#pragma once

#include <string>
#include <string_view>

#include "gputwin/design/cluster.hpp"
#include "gputwin/report/html/inputs.hpp"

namespace gputwin {

[[nodiscard]] std::string html_report(const Cluster& cluster, const ReportInputs& inputs,
                                      std::string_view chart_script);

}  // namespace gputwin
