# cmake -DINPUT=chart.umd.js -DOUTPUT=chart_js_asset.cpp -P embed_chart_js.cmake
# Wraps the Chart.js bundle into a raw string literal. The source-map comment is dropped: a report opened from
# disk has no map beside it, and a browser with developer tools open would try to fetch one.
file(READ "${INPUT}" script)
string(REGEX REPLACE "\n//# sourceMappingURL=[^\n]*" "" script "${script}")
string(FIND "${script}" ")gputwin_chart_js\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter; pick another in embed_chart_js.cmake")
endif()
string(FIND "${script}" "</script" closes)
if(NOT closes EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains </script and cannot be inlined in a <script> element as it is")
endif()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/embed_chart_js.cmake.\n"
  "#include \"gputwin/report/chart_js_asset.hpp\"\n"
  "namespace gputwin {\n"
  "std::string_view chart_js_bundle() {\n"
  "  static constexpr std::string_view kScript = R\"gputwin_chart_js(${script})gputwin_chart_js\";\n"
  "  return kScript;\n"
  "}\n"
  "}  // namespace gputwin\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
