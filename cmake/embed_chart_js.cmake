# cmake -DINPUT=chart.umd.js -DOUTPUT=chart_js_asset.cpp -P embed_chart_js.cmake
# Wraps the Chart.js bundle into raw string literals. The source-map comment is dropped: a report opened from
# disk has no map beside it, and a browser with developer tools open would try to fetch one. The bundle is cut
# into pieces under 65,536 bytes, the longest literal compilers must accept (clang warns past it with -Wpedantic);
# it is ASCII, so any cut is safe.
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
set(piece_bytes 60000)
string(LENGTH "${script}" script_bytes)
set(pieces "")
set(offset 0)
while(offset LESS script_bytes)
  string(SUBSTRING "${script}" ${offset} ${piece_bytes} piece)
  string(APPEND pieces "    R\"gputwin_chart_js(${piece})gputwin_chart_js\",\n")
  math(EXPR offset "${offset} + ${piece_bytes}")
endwhile()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by cmake/embed_chart_js.cmake.\n"
  "#include <string>\n"
  "#include \"gputwin/report/html/chart_js_asset.hpp\"\n"
  "namespace gputwin {\n"
  "std::string_view chart_js_bundle() {\n"
  "  static constexpr std::string_view kPieces[] = {\n${pieces}  };\n"
  "  static const std::string kScript = [] {\n"
  "    std::string script;\n"
  "    for (const std::string_view piece : kPieces) script += piece;\n"
  "    return script;\n"
  "  }();\n"
  "  return kScript;\n"
  "}\n"
  "}  // namespace gputwin\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
