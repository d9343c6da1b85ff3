// Fuzzes the reader of Prometheus HTTP API answers (/api/v1/query, /api/v1/query_range JSON; see
// reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/prometheus/query_api.hpp"

GPUTWIN_READER_FUZZER(gputwin::prometheus::read_query_answer(text, "fuzz"))
