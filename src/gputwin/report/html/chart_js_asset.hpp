// The Chart.js bundle (chart.umd.js) the HTML report inlines, embedded at build time from the version pinned
// in report/web/package-lock.json (see cmake/report_web.cmake).
//
//   html << "<script>" << chart_js_bundle() << "</script>";
#pragma once

#include <string_view>

namespace gputwin {

[[nodiscard]] std::string_view chart_js_bundle();

}  // namespace gputwin
