// Fuzzes the exposition_text reader (the /metrics scrape reader) (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/prometheus/exposition_text.hpp"

GPUTWIN_READER_FUZZER(gputwin::prometheus::ExpositionText::parse(text, "fuzz"))
