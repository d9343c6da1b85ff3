// Fuzzes the nccl_tests_json reader (see reader_fuzzer.hpp).
#include "fuzz/reader_fuzzer.hpp"
#include "gputwin/validate/nccl_tests_json.hpp"

GPUTWIN_READER_FUZZER(gputwin::validate::NcclTestsJson::parse(text, "fuzz"))
