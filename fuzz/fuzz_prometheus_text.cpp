// Fuzzes the prometheus_text reader (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/validate/prometheus_text.hpp"

GPUTWIN_READER_FUZZER(gputwin::validate::PrometheusText::parse(text, "fuzz"))
