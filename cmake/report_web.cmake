# The HTML report inlines Chart.js, pinned by report/web/package-lock.json. At build time `npm ci` installs the
# locked packages into the build tree (never into the source) and the chart script is wrapped into a C++ source
# of gputwin_lib, so the binary carries it and a report needs no network. The same install holds playwright-core,
# which the browser test uses to drive Debian's chromium.
find_program(GPUTWIN_NPM npm REQUIRED)
set(GPUTWIN_WEB_SOURCE "${PROJECT_SOURCE_DIR}/report/web")
set(GPUTWIN_WEB_DIR "${CMAKE_BINARY_DIR}/report-web")
set(GPUTWIN_CHART_JS "${GPUTWIN_WEB_DIR}/node_modules/chart.js/dist/chart.umd.js")
set(GPUTWIN_CHART_JS_SOURCE "${CMAKE_BINARY_DIR}/generated/gputwin/chart_js_asset.cpp")

add_custom_command(
  OUTPUT "${GPUTWIN_CHART_JS}"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${GPUTWIN_WEB_DIR}"
  COMMAND "${CMAKE_COMMAND}" -E copy "${GPUTWIN_WEB_SOURCE}/package.json" "${GPUTWIN_WEB_SOURCE}/package-lock.json"
          "${GPUTWIN_WEB_DIR}"
  COMMAND "${GPUTWIN_NPM}" ci --no-audit --no-fund --prefer-offline --loglevel=error
  COMMAND "${CMAKE_COMMAND}" -E touch "${GPUTWIN_CHART_JS}"
  WORKING_DIRECTORY "${GPUTWIN_WEB_DIR}"
  DEPENDS "${GPUTWIN_WEB_SOURCE}/package.json" "${GPUTWIN_WEB_SOURCE}/package-lock.json"
  COMMENT "npm ci: Chart.js and playwright-core from report/web/package-lock.json"
  VERBATIM)

add_custom_command(
  OUTPUT "${GPUTWIN_CHART_JS_SOURCE}"
  COMMAND "${CMAKE_COMMAND}" -DINPUT=${GPUTWIN_CHART_JS} -DOUTPUT=${GPUTWIN_CHART_JS_SOURCE}
          -P "${PROJECT_SOURCE_DIR}/cmake/embed_chart_js.cmake"
  DEPENDS "${GPUTWIN_CHART_JS}" "${PROJECT_SOURCE_DIR}/cmake/embed_chart_js.cmake"
  COMMENT "Embedding chart.umd.js into the gputwin library"
  VERBATIM)
